"""The choices a table can make before the deal, with their words from the catalogue."""

from __future__ import annotations

from typing import Any

from flask_babel import force_locale, lazy_pgettext

# key: the option in ``new(players, seed, options)``; label/help: ids in ``WORDS``.
OPTIONS: list[dict[str, Any]] = [
    {
        "key": "catch_up",
        "type": "bool",
        "default": True,
        "label": "catch-up",
        "help": "catch-up-help",
    },
]

WORDS = {
    "catch-up": lazy_pgettext("age-of-summoners", "Catch-up chips"),
    "catch-up-help": lazy_pgettext(
        "age-of-summoners",
        "Everyone after the start player begins with VP chips equal to their place in turn order"
        " (2, 3, 4), which makes up for playing later.",
    ),
}


def option_words(message: str, lang: str) -> str:
    """The label or help sentence ``message`` of an option in ``lang``."""
    with force_locale(lang):
        return str(WORDS[message])
