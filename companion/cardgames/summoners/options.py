"""The choices a table can make before the deal, with their words in ja and en."""

from __future__ import annotations

from companion.cardgames import GameOption

# key: the option in ``new(players, seed, options)``; label/help: ids in ``WORDS``.
OPTIONS: list[GameOption] = [
    {
        "key": "catch_up",
        "type": "bool",
        "default": True,
        "label": "catch-up",
        "help": "catch-up-help",
    },
]

WORDS: dict[str, dict[str, str]] = {
    "en": {
        "catch-up": "Catch-up chips",
        "catch-up-help": "Everyone after the start player begins with VP chips equal to their place"
        " in turn order (2, 3, 4), which makes up for playing later.",
    },
    "ja": {
        "catch-up": "後手の勝利点チップ",
        "catch-up-help": "スタートプレイヤー以外は、手番の順位と同じ数（2・3・4）の勝利点チップを"
        "持って始める。後から動く不利を埋めるため。",
    },
}


def option_words(message: str, lang: str) -> str:
    """The label or help sentence ``message`` of an option in ``lang``."""
    return WORDS["ja" if lang == "ja" else "en"][message]
