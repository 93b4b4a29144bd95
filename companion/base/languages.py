"""The languages the companion speaks: one list for the app, the packs, the rules and the samples.

Words live in the catalogues (``companion/translations/<code>/``); this table holds only the few
facts about writing a language that code needs. No Flask here, so the pure cores import it too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Language:
    """How one language is written, beyond its catalogue."""

    code: str
    name: str  # as its own readers write it, for language pickers
    list_separator: str  # between names in a row
    sentence_gap: str  # between whole sentences
    vertical: bool  # whether a book may be set in vertical lines
    wrap: Literal["characters", "words"]  # where a line may break: anywhere, or between words


TABLE: dict[str, Language] = {
    "ja": Language("ja", "日本語", "、", "", vertical=True, wrap="characters"),
    "en": Language("en", "English", ", ", " ", vertical=False, wrap="words"),
}
LANGUAGES: tuple[str, ...] = tuple(TABLE)
DEFAULT = "en"


def known(code: object) -> str:
    """``code`` if the companion speaks it, else the default language."""
    return code if isinstance(code, str) and code in TABLE else DEFAULT


def about(code: object) -> Language:
    """The facts about language ``code`` (the default language's for one not spoken)."""
    return TABLE[known(code)]


def language_name(code: object) -> str:
    """A language's name as its readers write it ("日本語", "English")."""
    return about(code).name


def writes_vertically(code: object) -> bool:
    """Whether books in language ``code`` may be set in vertical lines."""
    return isinstance(code, str) and code in TABLE and TABLE[code].vertical
