"""A running score and the lobby's options in words, in the current Babel locale."""

from __future__ import annotations

from companion.cardgames.summoners.records import Score
from companion.cardgames.summoners.state import MAX_PLAYERS, catch_up_chips

from .catalogue import lazy_pgettext, pgettext
from .names import kind_name
from .words import listed

# The label and help ids of the options in ``companion.cardgames.summoners.options.OPTIONS``;
# a sentence may name the chips each later seat begins with (``%(chips)s``).
OPTION_WORDS = {
    "catch-up": lazy_pgettext("age-of-summoners", "Catch-up chips (house rule)"),
    "catch-up-help": lazy_pgettext(
        "age-of-summoners",
        "Recommended, though not in the printed rules: everyone after the start player begins"
        " with VP chips equal to their place in turn order (%(chips)s), and in our bot matches"
        " the start player won %(without)s of 2-, 3- and 4-player games without them and"
        " %(with)s with them.",
    ),
    "always-use": lazy_pgettext("age-of-summoners", "Use every ability without asking"),
    "always-use-help": lazy_pgettext(
        "age-of-summoners",
        "Quicker: each spirit's ability is used in full as it comes, and every cost reduction"
        " in every payment. By the printed rules using an ability is optional, so without this"
        " box each one asks its owner first (bots answer for themselves either way).",
    ),
}
# The start player's win rate in heuristic bot matches, 2, 3 and 4 players, without and with
# the chips (docs/cardgames.md, "Balance figures", engine version 3: seeds 1-1,000, 1,000 and
# 2,000; 56.1/39.2/31.1% and 53.5/33.0/25.1%).
START_WINS = {"without": (56, 39, 31), "with": (54, 33, 25)}


def standing_line(row: Score) -> str:
    """How one seat's running total is made up, e.g. "3 VP chips + 5 spirit points + 2 Golem"."""
    text = pgettext(
        "age-of-summoners",
        "%(chips)s VP chips + %(points)s spirit points",
        chips=row["chips"],
        points=row["points"],
    )
    for kind, points in row["abilities"].items():
        if points:  # an ability that scores nothing yet is no part of the total
            text += pgettext(
                "age-of-summoners", " + %(points)s %(name)s", points=points, name=kind_name(kind)
            )
    return text


def option_words(message: str) -> str:
    """The label or help sentence ``message`` of an option."""
    chips = listed([str(n) for n in catch_up_chips(MAX_PLAYERS)])
    wins = {key: listed([percent(n) for n in rates]) for key, rates in START_WINS.items()}
    return str(OPTION_WORDS[message]) % {"chips": chips, **wins}


def percent(n: int) -> str:
    """A whole percentage: "53%"."""
    return pgettext("age-of-summoners", "%(n)s%%", n=n)
