"""The choices a table can make before the deal: none for now (the rules have no variants)."""

from __future__ import annotations

from companion.cardgames import GameOption

OPTIONS: list[GameOption] = []
WORDS: dict[str, dict[str, str]] = {"en": {}, "ja": {}}


def option_words(message: str, lang: str) -> str:
    """The label or help sentence ``message`` of an option in ``lang``."""
    return WORDS["ja" if lang == "ja" else "en"][message]
