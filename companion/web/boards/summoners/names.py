"""Card and colour names in the current Babel locale: names are data, one field per language.

A language the card data does not name yet reads the default language's names
(``companion.base.languages.DEFAULT``); every other word comes from the catalogue.
"""

from __future__ import annotations

from flask_babel import get_locale

from companion.base.languages import DEFAULT
from companion.cardgames.summoners.cards import colour_words, kind_of_card, kind_words


def data_lang() -> str:
    """The reader's language: the current locale's (the default language outside a request)."""
    locale = get_locale()
    return str(locale.language) if locale is not None else DEFAULT


def _in_lang(words: dict[str, str], field: str) -> str:
    return words.get(f"{field}_{data_lang()}") or words[f"{field}_{DEFAULT}"]


def kind_id(kind_or_card: str) -> str:
    """A kind id from a kind id or a card id."""
    return kind_of_card().get(kind_or_card, kind_or_card)


def kind_data(kind_or_card: str, field: str) -> str:
    """A language field of a kind in the card data: ``name``, ``text`` or ``flavour``."""
    return _in_lang(kind_words(kind_id(kind_or_card)), field)


def kind_name(kind_or_card: str) -> str:
    """A spirit's name, from a kind id or a card id."""
    return kind_data(kind_or_card, "name")


def colour_name(colour: str) -> str:
    """A colour as written on the cards: "black" / "黒" (also "any" / "任意")."""
    return _in_lang(colour_words(colour), "name")


def mana_name(colour: str) -> str:
    """A mana type's name: "Lightning" / "雷光"."""
    return _in_lang(colour_words(colour), "mana")
