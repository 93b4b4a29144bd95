"""The refusals of Traitor's Flame: English templates a player understands, one place for all,
filed in the catalogue under the game's message context (see ``companion.base.i18n_marks``)."""

from __future__ import annotations

from companion.base.i18n_marks import pgettext

BAD_PLAYERS = pgettext("traitors-flame", "Traitor's Flame is for 2 to 6 players, not %(players)r.")
BAD_START = pgettext("traitors-flame", "There is no seat %(seat)r to start.")
MATCH_OVER = pgettext("traitors-flame", "The match is over.")
BAD_SEAT = pgettext("traitors-flame", "There is no seat %(seat)r.")
NOT_YOUR_TURN = pgettext(
    "traitors-flame", "It is not seat %(seat)s's turn: seat %(current)s holds Night."
)
UNKNOWN_ACTION = pgettext("traitors-flame", "Unknown action %(action)s: draw or play a card.")
NOT_IN_HAND = pgettext("traitors-flame", "Card %(card)s is not in your hand.")
UNUSABLE = pgettext("traitors-flame", "%(name)s cannot be played.")
BAD_TARGET = pgettext("traitors-flame", "Choose a valid player for %(name)s, not %(target)s.")
BAD_CHOICE = pgettext("traitors-flame", "Those choices are not allowed: %(action)s.")
