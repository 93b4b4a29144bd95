"""The Traitor's Flame table's shared words: seats, cards and hand sizes in the reader's language.

Every phrase comes from the catalogues with the message context ``traitors-flame``; card names
and rules texts are card data, picked for the current locale by ``language``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import flask_babel

from companion.cardgames.traitors_flame import cards
from companion.cardgames.traitors_flame.cards import CardInfo, Kind
from companion.text.wording import join_list, reader_language

from .carddata import data_field


def pgettext(context: str, message: str, **params: Any) -> str:
    """Flask-Babel's ``pgettext``, typed (call it with the context and message as literals, so
    ``pybabel extract`` files the message under the context)."""
    return str(flask_babel.pgettext(context, message, **params))


def npgettext(context: str, singular: str, plural: str, num: int, **params: Any) -> str:
    """Flask-Babel's ``npgettext``, typed (literal context and messages, as for ``pgettext``)."""
    return str(flask_babel.npgettext(context, singular, plural, num, **params))


def language() -> str:
    """The code of the language the page is written in (the default outside a request)."""
    return reader_language()


def kind_of(card: str) -> Kind:
    """The kind record of a card id or kind id."""
    kinds = cards.kinds()
    return kinds[card] if card in kinds else cards.kind_of(card)


def data_name(card: CardInfo | str) -> str:
    """A card's (or kind's) name from the card data, in the reader's language."""
    return _data(card, "name")


def data_text(card: CardInfo | str) -> str:
    """A card's rules text from the card data, in the reader's language."""
    return _data(card, "text")


def _data(card: CardInfo | str, field: str) -> str:
    """A field of a card's data in the reader's language, else in the default language."""
    return data_field(kind_of(card["kind"] if isinstance(card, dict) else card), field, language())


def card_name(card: str) -> str:
    """A card's name as a sentence writes it (Japanese sets names in 「」)."""
    return pgettext("traitors-flame", "%(card)s", card=data_name(card))


def seat_name(seat: int | None, names: Sequence[str] | None = None) -> str:
    """A seat as the table names it: the player's name if given, else "Seat 1"."""
    if seat is None:
        return "—"
    if names is not None and seat < len(names):
        return names[seat]
    return pgettext("traitors-flame", "Seat %(n)s", n=seat + 1)


def list_of(items: Sequence[str]) -> str:
    """Words in a row, joined the way the reader's language joins them."""
    return join_list(items)


def card_count(n: int) -> str:
    """A number of cards: "no cards", "1 card", "5 cards"."""
    if n == 0:
        return pgettext("traitors-flame", "no cards")
    return str(npgettext("traitors-flame", "%(num)d card", "%(num)d cards", n))


def flame_count(n: int) -> str:
    """A number of Flames: "no Flames", "1 Flame", "3 Flames"."""
    if n == 0:
        return pgettext("traitors-flame", "no Flames")
    return str(npgettext("traitors-flame", "%(num)d Flame", "%(num)d Flames", n))


def count_words(n: int, flames: int | None = None) -> str:
    """A hand summary: "5 cards · 2 Flames"."""
    if flames is None:
        return card_count(n)
    return pgettext(
        "traitors-flame", "%(cards)s · %(flames)s", cards=card_count(n), flames=flame_count(flames)
    )


def printed_value(card: CardInfo | str) -> str:
    """A card's value as its face prints it, from the card data: "+2", "-3"."""
    return f"{kind_of(card['kind'] if isinstance(card, dict) else card)['value']:+d}"


def round_end(ended_by: str | None, flame_end: int | None) -> str:
    """How a round ended: Night reached ``flame_end`` Flames, or the deck ran out."""
    if ended_by == "deck":
        return pgettext("traitors-flame", "the deck ran out")
    if ended_by != "flame":
        return ""
    if flame_end is None:  # an event straight from the state, not from a view
        return pgettext("traitors-flame", "Night reached a hand full of Flames")
    return pgettext("traitors-flame", "Night reached %(n)s Flames", n=flame_end)


def direction(d: int) -> str:
    """The direction of play in words."""
    return (
        pgettext("traitors-flame", "Clockwise")
        if d == 1
        else pgettext("traitors-flame", "Counterclockwise")
    )
