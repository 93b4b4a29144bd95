"""Names and titles people typed, kept from turning the app's own words around them.

A name holding right-to-left letters or a bidirectional control (say "Ann" + U+202E + "evil")
would otherwise reorder the sentence it sits in ("Ann nrut s'live"). Where such a name is shown
it is isolated: ``<bdi>`` on pages (the ``bdi`` filter), FSI … PDI in plain text such as page
titles, attributes and books (``isolate``), escaped in logs (``companion.base.logs``), and dropped
from download names (``strip_controls``). The interface's languages are written left to right,
so a name with neither right-to-left letters nor controls cannot move the words around it and
is shown as it is: pages of ordinary names stay byte for byte what they were.
"""

from __future__ import annotations

import re
from typing import Any

from flask import Flask
from markupsafe import Markup, escape

FSI, PDI = "\u2068", "\u2069"
CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# Scripts written right to left (Hebrew, Arabic, Syriac, Thaana, N'Ko, …, their presentation
# forms) and the right-to-left blocks of the supplementary planes.
RIGHT_TO_LEFT = re.compile(
    "[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff\U00010800-\U00010fff\U0001e800-\U0001efff]"
)


def needs_isolation(text: str) -> bool:
    """Whether ``text`` could reorder the words around it."""
    return bool(CONTROLS.search(text) or RIGHT_TO_LEFT.search(text))


def isolate(text: str) -> str:
    """``text`` between FSI and PDI when it could reorder its neighbours (plain text: books,
    titles, attributes); otherwise as it is."""
    return f"{FSI}{text}{PDI}" if needs_isolation(text) else text


def bdi(value: Any) -> Markup:
    """A name for a page: escaped, inside ``<bdi>`` when it could reorder its neighbours."""
    text = str(value if value is not None else "")
    if needs_isolation(text):
        return Markup("<bdi>%s</bdi>") % text
    return escape(text)


def bdi_list(items: Any) -> Markup:
    """Names in a row in the reader's way (「A、B」, "A, B"), each isolated like ``bdi``."""
    from companion.text.wording import join_list

    return Markup(escape(join_list(["", ""]))).join(bdi(item) for item in items)


def strip_controls(text: str) -> str:
    """``text`` without bidirectional controls (download names, which no isolate can hold)."""
    return CONTROLS.sub("", text)


def _plain_isolate(value: Any) -> str:
    return isolate(str(value if value is not None else ""))


def init_app(app: Flask) -> None:
    """The ``bdi``, ``bdi_list`` and ``isolate`` template filters."""
    app.jinja_env.filters["bdi"] = bdi
    app.jinja_env.filters["isolate"] = _plain_isolate
    app.jinja_env.filters["bdi_list"] = bdi_list
