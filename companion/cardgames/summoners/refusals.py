"""The refusals of Age of Summoners: English templates a player understands, one place for all,
filed in the catalogue under the game's message context (see ``companion.base.i18n_marks``)."""

from __future__ import annotations

from companion.base.i18n_marks import pgettext

BAD_PLAYERS = pgettext(
    "age-of-summoners", "Age of Summoners needs %(least)s to %(most)s players, not %(players)r."
)
NOBODY_TO_ACT = pgettext("age-of-summoners", "Nobody is to act now.")
MATCH_OVER = pgettext("age-of-summoners", "The match is over.")
NOT_AN_ACTION = pgettext("age-of-summoners", "An action must be a dict with a type.")
NOT_YOUR_TURN = pgettext("age-of-summoners", "It is not seat %(seat)s's turn to act.")
CANNOT_PAY = pgettext("age-of-summoners", "You cannot pay for %(card)r now.")
NOT_NOW = pgettext(
    "age-of-summoners", "A %(type)s action is not possible now (waiting for %(phase)s)."
)
PAYMENT_SHORT = pgettext("age-of-summoners", "That payment does not pay the cost.")
NOT_IN_HAND = pgettext("age-of-summoners", "Card %(card)s is not in your hand.")
BAD_CHOICE = pgettext("age-of-summoners", "That choice is not allowed now: %(action)s.")
