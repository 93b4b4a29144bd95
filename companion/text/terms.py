"""Game terms in the reader's language, for templates: stages, suits, piles, cards, kinds."""

from __future__ import annotations

from fractions import Fraction

from flask import Flask
from flask_babel import lazy_gettext as _l

from companion.legacy import State
from companion.legacy.odds import p_finish, p_success
from companion.text import ruby
from companion.text.markdown import render_markdown
from companion.text.svg import SUITS, card_back, die_face, playing_card
from companion.text.wording import gettext as _
from companion.text.wording import in_language, join_list

STAGE_NAMES = (_l("Youth"), _l("Prime"), _l("Maturity"), _l("Old Age"))
SUIT_NAMES = {
    "hearts": _l("Hearts"),
    "diamonds": _l("Diamonds"),
    "clubs": _l("Clubs"),
    "spades": _l("Spades"),
}
SLOT_NAMES = {"low": _l("A–5 pile"), "middle": _l("6–10 pile"), "face": _l("face-card pile")}
KIND_NAMES = {"resource": _l("Resource"), "attachment": _l("Attachment"), "creed": _l("Creed")}
KIND_PLURALS = {"resource": _l("Resources"), "attachment": _l("Attachments"), "creed": _l("Creeds")}
LETTER_SUIT = {"H": "hearts", "D": "diamonds", "C": "clubs", "S": "spades"}
SUIT_SYMBOL = {name: SUITS[letter][0] for letter, name in LETTER_SUIT.items()}
RANK_NAMES = {"A": _l("Ace"), "J": _l("Jack"), "Q": _l("Queen"), "K": _l("King")}


def stage_name(index: int) -> str:
    """Youth, Prime, Maturity or Old Age."""
    return str(STAGE_NAMES[index])


def suit_symbol(suit: str) -> str:
    """♥ ♦ ♣ ♠ for a suit's name."""
    return SUIT_SYMBOL[suit]


def pile_name(pile: str) -> str:
    """'Hearts A–5 pile' for 'hearts-low'."""
    suit, slot = pile.split("-")
    return _("%(suit)s %(pile)s", suit=SUIT_NAMES[suit], pile=SLOT_NAMES[slot])


def card_name(card: str) -> str:
    """'Queen of Spades ♠' for 'QS'."""
    rank, suit = card[:-1], LETTER_SUIT[card[-1]]
    return _(
        "%(rank)s of %(suit)s %(symbol)s",
        rank=RANK_NAMES.get(rank, rank),
        suit=SUIT_NAMES[suit],
        symbol=SUIT_SYMBOL[suit],
    )


def kind_name(kind: str, plural: bool = False) -> str:
    """Resource, Attachment or Creed."""
    return str((KIND_PLURALS if plural else KIND_NAMES)[kind])


def suit_name(suit: str) -> str:
    """Hearts, Diamonds, Clubs or Spades."""
    return str(SUIT_NAMES[suit])


def percent(value: float | Fraction) -> str:
    """A chance to one decimal; "100%" and "0%" only when certain or impossible.

    A chance that rounds to 100% but is not certain reads "99.9%+" (a near miss is still a miss),
    and one that rounds to 0% but is possible reads "<0.1%".
    """
    if value >= 1:
        return "100%"
    if value <= 0:
        return "0%"
    share = float(value) * 100
    if share >= 99.95:
        return "99.9%+"
    if share < 0.05:
        return "<0.1%"
    return f"{share:.1f}%"


class Chances:
    """The chance of the next roll and of finishing the round, for the play page."""

    def __init__(self, state: State) -> None:
        self.check = percent(p_success(state.dice))
        self.finish = percent(p_finish(state))


def init_app(app: Flask) -> None:
    """Make the terms available in every template, and the ``ruby`` filter for prompts."""
    app.jinja_env.globals.update(
        stage_name=stage_name,
        suit_symbol=suit_symbol,
        pile_name=pile_name,
        card_name=card_name,
        kind_name=kind_name,
        suit_name=suit_name,
        chances=Chances,
        playing_card_svg=playing_card,
        card_back_svg=card_back,
        die_svg=die_face,
        md=render_markdown,
    )
    app.jinja_env.filters["join_list"] = join_list
    app.jinja_env.filters["ruby"] = ruby.shown  # a prompt: escaped, its ruby made
    app.jinja_env.globals["in_language"] = in_language
