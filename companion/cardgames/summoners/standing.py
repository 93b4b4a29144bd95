"""A running score in words: what each seat would score if the match ended now."""

from __future__ import annotations

from typing import Any

from .cards import kinds

WORDS = {
    "en": {"parts": "{chips} VP chips + {points} spirit points", "ability": " + {points} {name}"},
    "ja": {"parts": "勝利点チップ{chips}＋精霊の得点{points}", "ability": "＋{name}{points}"},
}


def standing_line(row: dict[str, Any], lang: str) -> str:
    """How one seat's running total is made up, e.g. "3 VP chips + 5 spirit points + 2 Golem"."""
    lang = "ja" if lang == "ja" else "en"
    words = WORDS[lang]
    text = words["parts"].format(chips=row["chips"], points=row["points"])
    for kind, points in row["abilities"].items():
        text += words["ability"].format(points=points, name=kinds()[kind][f"name_{lang}"])
    return text
