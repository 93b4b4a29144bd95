"""Lists and sentences joined the way the reader's language joins them."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import flask_babel
from flask_babel import get_locale

from companion.base import languages

# The catalogue lookups, typed once: flask_babel ships no type information.
gettext: Callable[..., str] = flask_babel.gettext
ngettext: Callable[..., str] = flask_babel.ngettext
pgettext: Callable[..., str] = flask_babel.pgettext


def reader_language() -> str:
    """The code of the page's language (the default one outside a request)."""
    locale = get_locale()
    return languages.known(locale.language if locale is not None else None)


def join_list(items: Iterable[object]) -> str:
    """Names in a row: 「A、B、C」 in Japanese, "A, B, C" in English."""
    return languages.about(reader_language()).list_separator.join(str(item) for item in items)


def join_sentences(sentences: Iterable[str]) -> str:
    """Whole sentences one after another, each said once, in their first order."""
    unique = list(dict.fromkeys(s for s in sentences if s))
    return languages.about(reader_language()).sentence_gap.join(unique)


def in_language(versions: Iterable[Any]) -> Any:
    """Of one pack's versions (each with a ``language``), the one in the reader's language."""
    listed = list(versions)
    language = reader_language()
    return next((v for v in listed if v.language == language), listed[0])
