"""Every choice a match is dealt with; the lobby offers the catch-up chips (D23, a house rule,
off as the printed set-up has it) and using every ability without being asked (off: the printed
rules ask, section 10). The start seat and the turn cap are for simulations and tests; words are
the board's (label/help ids)."""

from __future__ import annotations

from companion.cardgames import GameOption

from .state import TURN_CAP

# key: the option in ``new(players, seed, options)`` (``turn_cap`` is read by the turn flow);
# label/help: message ids the board says.
OPTIONS: list[GameOption] = [
    {
        "key": "catch_up",
        "type": "bool",
        "default": False,
        "label": "catch-up",
        "help": "catch-up-help",
    },
    {
        "key": "always_use",
        "type": "bool",
        "default": False,
        "label": "always-use",
        "help": "always-use-help",
    },
    {
        "key": "start",
        "type": "seat",
        "default": None,
        "label": "start",
        "help": "start-help",
        "lobby": False,
    },
    {
        "key": "turn_cap",
        "type": "int",
        "default": TURN_CAP,
        "min": 1,
        "max": 1000,
        "label": "turn-cap",
        "help": "turn-cap-help",
        "lobby": False,
    },
]
