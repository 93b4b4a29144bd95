"""A card's words from the card data, which keeps them per language (``name_ja``, ``text_en``...).

No Flask here, so the card faces (``svg.py``) read them too."""

from __future__ import annotations

from collections.abc import Mapping

from companion.base import languages
from companion.cardgames.traitors_flame.cards import Kind


def data_language(kind: Kind, lang: str) -> str:
    """``lang`` if the card data has the kind's words in it, else the default language."""
    return lang if f"name_{lang}" in kind else languages.DEFAULT


def data_field(kind: Kind, field: str, lang: str) -> str:
    """A kind's ``name`` or ``text`` in ``lang`` (in the default language where the data has
    none in ``lang``)."""
    record: Mapping[str, object] = kind  # the words are keyed by language, beside the rules
    return str(record.get(f"{field}_{lang}") or record[f"{field}_{languages.DEFAULT}"])
