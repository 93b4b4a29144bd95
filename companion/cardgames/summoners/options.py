"""The choices a table can make before the deal; their words are the board's (label/help ids)."""

from __future__ import annotations

from companion.cardgames import GameOption

# key: the option in ``new(players, seed, options)``; label/help: message ids the board says.
OPTIONS: list[GameOption] = [
    {
        "key": "catch_up",
        "type": "bool",
        "default": True,
        "label": "catch-up",
        "help": "catch-up-help",
    },
]
