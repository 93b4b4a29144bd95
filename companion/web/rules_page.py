"""A card game's rules page in the current locale.

The engine keeps its rules in English (``CardGame.rules()``); each block of them is translated
through the catalogue under the game's message context, and a block the catalogue lacks shows in
English. What a board makes from its card data (the Age of Summoners spirit list) follows them.
"""

from __future__ import annotations

from collections.abc import Callable

from flask_babel import pgettext

from ..cardgames import get_game
from ..markdown_blocks import translate
from .boards.summoners.spirit_list import spirit_list_markdown


def _appendices() -> dict[str, Callable[[], str]]:
    """What each game's rules page adds after its rules, made from the card data."""
    return {"age-of-summoners": spirit_list_markdown}


def markdown(key: str) -> str:
    """The rules of the game ``key`` as Markdown in the current locale."""
    text = translate(get_game(key).rules(), lambda block: pgettext(key, block))
    appendix = _appendices().get(key)
    return text if appendix is None else f"{text}\n{appendix()}"
