"""Card pictures on the page: each picture a page needs is defined once as an SVG ``<symbol>``
(``defs``) and drawn with ``<use>`` wherever it appears."""

from __future__ import annotations

import re
from functools import cache
from html import escape

from flask_babel import lazy_pgettext
from markupsafe import Markup

from companion.cardgames.traitors_flame import cards
from companion.cardgames.traitors_flame.cards import CardInfo
from companion.cardgames.traitors_flame.view import View

from . import svg
from .words import data_name, kind_of, language, pgettext

BACKS = ("back", "flame", "night", "dawn")
BACK_NAMES = {
    "flame": lazy_pgettext("traitors-flame", "Flame"),
    "night": lazy_pgettext("traitors-flame", "Night"),
    "dawn": lazy_pgettext("traitors-flame", "Before-Dawn"),
}
_SVG_BODY = re.compile(r"^<svg[^>]*>(?:<title>.*?</title>)?(?P<body>.*)</svg>$", re.DOTALL)


@cache
def _body(picture: str) -> str:
    """The inside of an svg.py picture (no outer <svg>, no title)."""
    match = _SVG_BODY.match(picture)
    return match.group("body") if match else picture


@cache
def _front_body(kind: str, lang: str) -> str:
    return _body(svg.front(kind, lang))


@cache
def _back_body(which: str) -> str:
    return _body(svg.back(_back_kind(which)))


def _back_kind(which: str) -> str:
    if which in ("flame", "night", "dawn"):
        return which
    return str(cards.characters()[0]["id"])  # every character shares the one rose-window back


def back_of(card: CardInfo | str) -> str:
    """Which back a card shows: ``flame``, ``night``, ``dawn`` or the common ``back``."""
    kind = kind_of(card["kind"] if isinstance(card, dict) else card)
    return str(kind.get("special") or "back")  # the card data marks the three own backs


def defs(view: View) -> Markup:
    """One hidden <svg> holding every picture this view needs: the four backs, and a face per
    kind the viewer may see (own hand, played row, cards they have seen)."""
    lang = language()
    parts = [
        f'<symbol id="tf-back-{b}" viewBox="0 0 {svg.W} {svg.H}">{_back_body(b)}</symbol>'
        for b in BACKS
    ]
    parts += [
        f'<symbol id="tf-face-{k}-{lang}" viewBox="0 0 {svg.W} {svg.H}">'
        f"{_front_body(k, lang)}</symbol>"
        for k in sorted(visible_kinds(view))
    ]
    return Markup(  # noqa: S704 - built from svg.py output and kind ids, no user text
        '<svg class="tf-defs" aria-hidden="true" focusable="false" '
        f'xmlns="http://www.w3.org/2000/svg">{"".join(parts)}</svg>'
    )


def visible_kinds(view: View) -> set[str]:
    """The kinds whose faces this view shows."""
    seen = [c["kind"] for c in view["played"]]
    seen += [k["card"]["kind"] for k in view["known_deck"]]
    for hand in view["hands"]:
        seen += [c["kind"] for c in hand.get("cards", []) + hand.get("known", [])]
    return set(seen)


def face(card: CardInfo | str, extra: str = "") -> Markup:
    """A card face drawn from its symbol in ``defs`` (the kind must be visible to the viewer)."""
    kind = card["kind"] if isinstance(card, dict) else kind_of(card)["id"]
    return _use(f"tf-face-{kind}-{language()}", data_name(kind), f"tf-card tf-face {extra}")


def back(which: str, extra: str = "") -> Markup:
    """A card back (``back``, ``flame``, ``night`` or ``dawn``) drawn from its symbol."""
    return _use(f"tf-back-{which}", back_title(which), f"tf-card tf-back tf-back-{which} {extra}")


def back_title(which: str) -> str:
    """What a back shows to a screen reader: "card back", or whose back it is."""
    if which == "back":
        return pgettext("traitors-flame", "card back")
    return pgettext("traitors-flame", "back: %(name)s", name=str(BACK_NAMES[which]))


def _use(symbol: str, title: str, classes: str) -> Markup:
    return Markup(  # noqa: S704 - the title is escaped; the rest are fixed ids
        f'<svg class="{escape(classes.strip())}" viewBox="0 0 {svg.W} {svg.H}" role="img" '
        f'aria-label="{escape(title)}"><use href="#{symbol}"/></svg>'
    )


def full_face(card: str) -> Markup:
    """A stand-alone card face (its own <svg>), for pages without ``defs``."""
    return Markup(svg.front(card, language()))  # noqa: S704 - svg.py escapes its text


def full_back(card: str) -> Markup:
    """A stand-alone card back (its own <svg>)."""
    return Markup(svg.back(card, back_title(back_of(card))))  # noqa: S704 - escaped by svg.py
