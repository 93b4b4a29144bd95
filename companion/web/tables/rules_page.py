"""A card game's rules page in the current locale.

The engine keeps its rules in English (``CardGame.rules()``); each block of them is translated
through the catalogue under the game's message context, and a block the catalogue lacks shows in
English. What a board makes from its card data (the Age of Summoners spirit list) follows them.
"""

from __future__ import annotations

from companion.cardgames import get_game
from companion.text.blocks import translate
from companion.text.wording import pgettext
from companion.web.boards import board_for


def markdown(key: str) -> str:
    """The rules of the game ``key`` as Markdown in the current locale, then what its board
    adds from the card data."""
    text = translate(get_game(key).rules(), lambda block: pgettext(key, block))
    appendix = board_for(key).rules_appendix()
    return f"{text}\n{appendix}" if appendix else text
