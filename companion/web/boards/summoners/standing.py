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
    "catch-up": lazy_pgettext("age-of-summoners", "Catch-up chips"),
    "catch-up-help": lazy_pgettext(
        "age-of-summoners",
        "Everyone after the start player begins with VP chips equal to their place in turn order"
        " (%(chips)s), which makes up for playing later.",
    ),
}


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
    return str(OPTION_WORDS[message]) % {"chips": chips}
