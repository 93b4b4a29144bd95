"""逆臣の炎 (Traitor's Flame) at the table: the board's view model, card pictures and words.

The table shell finds these by name: ``label`` (button text), ``describe`` (log sentences),
``standing_line``, ``option_words`` and what ``templates/tables/traitors-flame/`` draws with.
Every word comes from the catalogues in the current locale (message context ``traitors-flame``).
"""

from __future__ import annotations

from typing import Any

from flask_babel import lazy_pgettext

from companion.cardgames.traitors_flame.standing import Standing
from companion.cardgames.traitors_flame.view import View

from .labels import label
from .log import describe
from .model import board, result_info
from .pictures import BACKS, back, back_of, defs, face, full_back, full_face
from .steps import steps
from .words import (
    card_name,
    count_words,
    data_name,
    data_text,
    flame_count,
    pgettext,
    printed_value,
)

__all__ = [
    "BACKS",
    "back",
    "back_of",
    "batch",
    "board",
    "card_name",
    "count_words",
    "data_name",
    "data_text",
    "defs",
    "describe",
    "face",
    "flame_count",
    "full_back",
    "full_face",
    "label",
    "name",
    "option_words",
    "rules_appendix",
    "step_order",
    "printed_value",
    "result_info",
    "standing_line",
    "steps",
]


def name() -> str:
    """The game's name in the current locale."""
    return str(pgettext("traitors-flame", "Traitor's Flame"))


def step_order(action: dict[str, Any], view: View) -> int:
    """Every choice keeps the engine's order: the steps (card, target, outcome) already group them."""
    return 0


def batch(view: View, names: Any = None) -> None:
    """Every move of this game is one choice: no form of several at once."""
    return None


def rules_appendix() -> str:
    """The card list is part of the rules themselves; nothing is added after them."""
    return ""


def standing_line(row: Standing) -> str:
    """One seat's running total in words: "4 of 20 points; 16 to go"."""
    return pgettext("traitors-flame", "%(total)s of %(goal)s points; %(to_go)s to go", **row)


# The words of each option's label and help ids (``traitors_flame/options.py``).
OPTION_WORDS = {
    "Start player": lazy_pgettext("traitors-flame", "Start player"),
    "Who holds Night in the first round. Left to chance, the deal picks one.": lazy_pgettext(
        "traitors-flame", "Who holds Night in the first round. Left to chance, the deal picks one."
    ),
    "Rounds at most": lazy_pgettext("traitors-flame", "Rounds at most"),
    "A safety cap for bot matches: the highest total wins after this many rounds.": lazy_pgettext(
        "traitors-flame",
        "A safety cap for bot matches: the highest total wins after this many rounds.",
    ),
}


def option_words(message: str) -> str:
    """An option's label or help sentence, from its id in the game's options."""
    return str(OPTION_WORDS[message])
