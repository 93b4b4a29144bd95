"""Rule errors from the cores, shown in the reader's language."""

from __future__ import annotations

import re
from typing import Any

from flask_babel import format_number

from companion.base.errors import TemplatedError
from companion.text.wording import gettext, ngettext, pgettext


def _counted(code: str, params: dict[str, Any]) -> str | None:
    """A refusal that counts something, in the form its count takes; the cores keep one English
    template, and the count picks the right form here (None: not such a refusal)."""
    if code == "dice-count" and isinstance(params.get("dice"), int):
        return ngettext(
            "This stage rolls %(num)d die: enter exactly one face.",
            "This stage rolls %(num)d dice: enter exactly %(num)d faces.",
            params["dice"],
            **params,
        )
    return None


def rule_message(err: TemplatedError, game: str | None = None) -> str:
    """Translate a RuleError's English template, then fill in its parameters.

    ``game``: the key of the card game whose table refused (its refusals are in the catalogue
    under the game's context, and a card they name is named as the game's board names it)."""
    template, params = err.message, err.params
    try:
        counted = _counted(err.code, params)
        if counted is not None:
            return counted
        if game is not None:
            params = _card_named(params, game)
        text = _translated(template, game)
        return text % _readable(text, params) if params else text
    except (KeyError, TypeError, ValueError):
        return str(err)


_AS_TEXT = re.compile(r"%\((\w+)\)s")


def _readable(text: str, params: dict[str, Any]) -> dict[str, Any]:
    """A number the template shows as text (``%(limit)s``) is written as the reader's locale
    writes numbers ("1,234"); ``%(n)d`` stays as it is, for ordinals and seat numbers."""
    shown = set(_AS_TEXT.findall(text))
    return {k: format_number(v) if k in shown and type(v) is int else v for k, v in params.items()}


def _translated(template: str, game: str | None) -> str:
    """A card game's refusal under the game's context; the shell's own words (a read-only
    match, a stale table) have none, and the legacy game's errors come without a game."""
    if game is not None:
        text = pgettext(game, template)
        if text != template:
            return str(text)
    return str(gettext(template))


def _card_named(params: dict[str, Any], game: str) -> dict[str, Any]:
    """A refusal naming a card carries its id (``card``) beside its English ``name``: the page
    names it in the reader's language, through the game's board."""
    from companion.web.boards import board_for

    card = params.get("card")
    if "name" not in params or not isinstance(card, str):
        return params
    try:
        return {**params, "name": board_for(game).card_name(card)}
    except KeyError:  # not one of the game's card ids: keep the engine's words
        return params


# A refusal about who asks is 403; one about the moment, or a decision that stays, is 409.
RULE_STATUS = {
    "not-your-decision": 403,
    "dice-stay-rolled": 409,
    "card-stays-veiled": 409,
    "nothing-to-undo": 409,
    # A chronicle at one of its limits (chronicle_limits.py): full, or corrected too fast.
    "chronicle-full": 409,
    "text-corrected-enough": 409,
    "corrections-too-fast": 429,
}


def rule_status(err: Any) -> int:
    """The HTTP status the API answers a RuleError with (400 unless listed)."""
    return RULE_STATUS.get(getattr(err, "code", ""), 400)
