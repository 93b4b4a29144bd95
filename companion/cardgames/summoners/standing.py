"""A running score in words: what each seat would score if the match ended now."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import flask_babel
from flask_babel import force_locale

from .names import kind_name

# The catalogue lookup, typed: flask_babel ships no type information.
pgettext: Callable[..., str] = flask_babel.pgettext


def standing_line(row: dict[str, Any], lang: str) -> str:
    """How one seat's running total is made up in ``lang``, e.g. "3 VP chips + 5 spirit points
    + 2 Golem"."""
    with force_locale(lang):
        text = pgettext(
            "age-of-summoners",
            "%(chips)s VP chips + %(points)s spirit points",
            chips=row["chips"],
            points=row["points"],
        )
        for kind, points in row["abilities"].items():
            text += pgettext(
                "age-of-summoners", " + %(points)s %(name)s", points=points, name=kind_name(kind)
            )
        return text
