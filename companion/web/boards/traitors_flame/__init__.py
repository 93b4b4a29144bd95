"""逆臣の炎 (Traitor's Flame) at the table: the board's view model, card pictures and words.

The table shell finds these by name: ``label`` (button text), ``describe`` (log sentences),
``standing_line``, ``option_words`` and what ``templates/tables/traitors-flame/`` draws with.
Every word comes from the catalogues in the current locale (message context ``traitors-flame``).
"""

from __future__ import annotations

from typing import Any

from flask_babel import pgettext

from .labels import label
from .log import describe
from .model import board, hand_value, result_info
from .pictures import BACKS, back, back_of, defs, face, full_back, full_face
from .steps import steps
from .words import count_words, data_name, data_text, flame_count, say

__all__ = [
    "BACKS",
    "back",
    "back_of",
    "board",
    "count_words",
    "data_name",
    "data_text",
    "defs",
    "describe",
    "face",
    "flame_count",
    "full_back",
    "full_face",
    "hand_value",
    "label",
    "name",
    "option_words",
    "result_info",
    "say",
    "standing_line",
    "steps",
]


def name() -> str:
    """The game's name in the current locale."""
    return str(pgettext("traitors-flame", "Traitor's Flame"))


def standing_line(row: dict[str, Any]) -> str:
    """One seat's running total in words: "4 of 20 points; 16 to go"."""
    return say("%(total)s of %(goal)s points; %(to_go)s to go", **row)


def option_words(message: str) -> str:
    """An option's label or help sentence (the game has no options yet)."""
    return say(message)
