"""Card and colour names in the current Babel locale: names are data, one field per language."""

from __future__ import annotations

from flask_babel import get_locale

from companion.cardgames.summoners.cards import colour_info, kind_of_card, kinds


def data_lang() -> str:
    """The language whose names the card data gives for the current locale ("en" if none)."""
    locale = get_locale()
    language = locale.language if locale is not None else "en"
    return language if f"name_{language}" in next(iter(kinds().values())) else "en"


def kind_id(kind_or_card: str) -> str:
    """A kind id from a kind id or a card id."""
    return kind_of_card().get(kind_or_card, kind_or_card)


def kind_data(kind_or_card: str, field: str) -> str:
    """A language field of a kind in the card data: ``name``, ``text`` or ``flavour``."""
    return str(kinds()[kind_id(kind_or_card)][f"{field}_{data_lang()}"])


def kind_name(kind_or_card: str) -> str:
    """A spirit's name, from a kind id or a card id."""
    return kind_data(kind_or_card, "name")


def colour_name(colour: str) -> str:
    """A colour as written on the cards: "black" / "黒"."""
    return str(colour_info()[colour][f"name_{data_lang()}"])


def mana_name(colour: str) -> str:
    """A mana type's name: "Lightning" / "雷光"."""
    return str(colour_info()[colour][f"mana_{data_lang()}"])
