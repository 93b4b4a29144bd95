"""Lists and sentences joined the way the reader's language joins them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from flask_babel import get_locale


def _japanese() -> bool:
    locale = get_locale()
    return locale is not None and locale.language == "ja"


def join_list(items: Iterable[object]) -> str:
    """Names in a row: 「A、B、C」 in Japanese, "A, B, C" in English."""
    return ("、" if _japanese() else ", ").join(str(item) for item in items)


def join_sentences(sentences: Iterable[str]) -> str:
    """Whole sentences one after another, each said once, in their first order."""
    unique = list(dict.fromkeys(s for s in sentences if s))
    return ("" if _japanese() else " ").join(unique)


def in_language(versions: Iterable[Any]) -> Any:
    """Of one pack's versions (each with a ``language``), the one in the reader's language."""
    listed = list(versions)
    language = "ja" if _japanese() else "en"
    return next((v for v in listed if v.language == language), listed[0])
