"""The Age of Summoners board: view model, button labels, card pictures and words.

The table templates reach this package as ``board``; everything reads a seat's ``view`` and
speaks in the current Babel locale (the "age-of-summoners" message context).
"""

from __future__ import annotations

from flask_babel import pgettext

from .discarding import batch
from .labels import label
from .log import describe
from .model import board
from .pictures import back, card, defs, full_back, full_card, icon_pip, mana_pip, stone
from .seats import result_info
from .spirit_list import spirit_list_markdown as rules_appendix
from .standing import option_words, standing_line
from .steps import step_order, steps
from .words import action_name, card_count, card_name, card_tag, cost_words, kind_name

__all__ = [
    "action_name",
    "back",
    "batch",
    "board",
    "card",
    "card_count",
    "card_name",
    "card_tag",
    "cost_words",
    "defs",
    "describe",
    "full_back",
    "full_card",
    "icon_pip",
    "kind_name",
    "label",
    "mana_pip",
    "name",
    "option_words",
    "result_info",
    "rules_appendix",
    "standing_line",
    "step_order",
    "steps",
    "stone",
]


def name() -> str:
    """The game's name in the current locale."""
    return str(pgettext("age-of-summoners", "Age of Summoners"))
