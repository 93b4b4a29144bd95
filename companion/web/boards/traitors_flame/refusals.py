"""The engine's refusals, marked for the catalogue under the game's message context.

The engine raises ``CardGameRuleError`` with one English template; the table page translates it
with ``pgettext("traitors-flame", template)`` (``companion.web.text_errors.rule_message``) and
names a card it refuses in the reader's language (``card_name``). ``pybabel extract`` files these
marks under the context; a test holds them equal to the templates the engine raises.
"""

from __future__ import annotations

from flask_babel import lazy_pgettext

REFUSALS = (
    lazy_pgettext("traitors-flame", "Traitor's Flame is for 2 to 6 players, not %(players)r."),
    lazy_pgettext("traitors-flame", "There is no seat %(seat)r to start."),
    lazy_pgettext("traitors-flame", "The match is over."),
    lazy_pgettext("traitors-flame", "There is no seat %(seat)r."),
    lazy_pgettext(
        "traitors-flame", "It is not seat %(seat)s's turn: seat %(current)s holds Night."
    ),
    lazy_pgettext("traitors-flame", "Unknown action %(action)s: draw or play a card."),
    lazy_pgettext("traitors-flame", "Card %(card)s is not in your hand."),
    lazy_pgettext("traitors-flame", "%(name)s cannot be played."),
    lazy_pgettext("traitors-flame", "Choose a valid player for %(name)s, not %(target)s."),
    lazy_pgettext("traitors-flame", "Those choices are not allowed: %(action)s."),
)
