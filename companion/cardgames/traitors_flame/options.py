"""Every choice a match is dealt with: the start player (the host may pick one, digest 2.1) and
a safety cap on rounds for simulations; their words are the board's (label/help ids)."""

from __future__ import annotations

from companion.cardgames import GameOption

# key: the option in ``new(players, seed, options)``; label/help: what the board's
# ``option_words`` says (the game's phrases, in the "traitors-flame" message context).
OPTIONS: list[GameOption] = [
    {
        "key": "start",
        "type": "seat",
        "default": None,
        "label": "Start player",
        "help": "Who holds Night in the first round. Left to chance, the deal picks one.",
    },
    {
        "key": "max_rounds",
        "type": "int",
        "default": None,
        "min": 1,
        "max": 1000,
        "label": "Rounds at most",
        "help": "A safety cap for bot matches: the highest total wins after this many rounds.",
        "lobby": False,
    },
]
