"""Card pictures on the Age of Summoners board, drawn once per page as SVG symbols.

Each picture a page needs is defined once as a ``<symbol>`` (``defs``) and drawn with ``<use>``
wherever it appears: faces in three states (in hand, upright as a spirit, sideways as mana) and
the back (a philosopher's stone lies sideways). Pictures carry the current locale's words.
"""

from __future__ import annotations

import re
from functools import cache
from html import escape

from markupsafe import Markup

from companion.cardgames.summoners.cards import kinds
from companion.cardgames.summoners.view import View

from . import svg
from .catalogue import pgettext
from .words import data_lang, icon_name, kind_id, kind_name, mana_name

_SVG = re.compile(r'^<svg[^>]*viewBox="(?P<box>[^"]+)"[^>]*>(?P<body>.*)</svg>$', re.DOTALL)


@cache
def _cached(kind: str, state: str, lang: str) -> tuple[str, str]:
    # ``lang`` keys the cache: the picture's words follow the locale it was drawn in.
    if state in ("back", "stone"):
        picture = svg.back_svg(state == "stone")
    else:
        picture = svg.card_svg(kind, state)
    match = _SVG.match(picture)
    if not match:
        return ("0 0 200 280", picture)
    return (match.group("box"), match.group("body"))


def _picture(kind: str, state: str) -> tuple[str, str]:
    """(viewBox, inner markup) of an svg.py picture; state "back" and "stone" are the backs."""
    return _cached(kind, state, data_lang())


def _symbol_id(kind: str, state: str) -> str:
    if state in ("back", "stone"):
        return f"aos-{state}-{data_lang()}"
    return f"aos-{state}-{kind}-{data_lang()}"


def visible_cards(view: View) -> set[tuple[str, str]]:
    """(kind, state) of every face this view shows: own hand and drawn cards, spirits, mana,
    the festival's revealed cards and the command number's two cards."""
    seen: set[tuple[str, str]] = set()
    for seat in view["seats"]:
        seen |= {(c["kind"], "spirit") for c in seat["spirits"]}
        seen |= {(c["kind"], "mana") for c in seat["mana"]}
        seen |= {(c["kind"], "hand") for c in seat["hand"] or []}
    seen |= {(c["kind"], "mana") for c in view["reveal"]}
    if view["pending"] is not None:
        seen |= {(c["kind"], "hand") for c in view["pending"].get("drawn", [])}
    command = view["command"]
    shown = [command["played"], command["pairing"]] if command else []
    seen |= {(c["kind"], "mana") for c in [*shown, view["next_pairing"]] if c is not None}
    return seen


def defs(view: View) -> Markup:
    """One hidden <svg> holding every picture this view needs: the back, the stone and a face
    per (kind, state) the viewer may see; nothing else, so no hidden card's picture is sent."""
    wanted = [("", "back"), ("", "stone"), *sorted(visible_cards(view))]
    parts = []
    for kind, state in wanted:
        box, body = _picture(kind, state)
        parts.append(f'<symbol id="{_symbol_id(kind, state)}" viewBox="{box}">{body}</symbol>')
    return Markup(  # noqa: S704 - svg.py output (it escapes its text) and fixed ids
        '<svg class="aos-defs" aria-hidden="true" focusable="false" '
        f'xmlns="http://www.w3.org/2000/svg">{"".join(parts)}</svg>'
    )


def _use(symbol: str, box: str, title: str, classes: str) -> Markup:
    return Markup(  # noqa: S704 - the title is escaped; the rest are fixed ids and classes
        f'<svg class="{escape(classes.strip())}" viewBox="{box}" role="img" '
        f'aria-label="{escape(title)}"><use href="#{symbol}"/></svg>'
    )


def card(kind_or_card: str, state: str, extra: str = "") -> Markup:
    """A card face drawn from its symbol in ``defs``: ``state`` is hand, spirit or mana."""
    kind = kind_id(kind_or_card)
    box = _picture(kind, state)[0]
    spec = kinds()[kind]
    if state == "mana":
        title = pgettext(
            "age-of-summoners",
            "%(mana)s %(number)s (%(name)s)",
            mana=mana_name(spec["colour"]),
            number=spec["number"],
            name=kind_name(kind),
        )
    else:
        title = kind_name(kind)
    return _use(_symbol_id(kind, state), box, title, f"aos-card aos-face-{state} {extra}")


def back(extra: str = "") -> Markup:
    """A card back, upright (a hand card, the deck)."""
    title = pgettext("age-of-summoners", "Card back")
    box = _picture("", "back")[0]
    return _use(_symbol_id("", "back"), box, title, f"aos-card aos-back {extra}")


def stone(extra: str = "") -> Markup:
    """A philosopher's stone: the back, sideways."""
    title = pgettext("age-of-summoners", "Philosopher's stone")
    box = _picture("", "stone")[0]
    return _use(_symbol_id("", "stone"), box, title, f"aos-card aos-stone {extra}")


def full_card(kind_or_card: str, state: str) -> Markup:
    """A stand-alone card picture (its own <svg>), for pages without ``defs``."""
    return Markup(svg.card_svg(kind_id(kind_or_card), state))  # noqa: S704 - svg.py output


def full_back(sideways: bool) -> Markup:
    """A stand-alone back; sideways it is a philosopher's stone."""
    return Markup(svg.back_svg(sideways))  # noqa: S704 - svg.py output


def mana_pip(colour: str, extra: str = "") -> Markup:
    """A small mana symbol (coloured disc and glyph) with its name as the title."""
    return Markup(  # noqa: S704 - fixed colours and paths; the title is escaped
        f'<svg class="aos-pip {escape(extra)}" viewBox="-10 -10 20 20" role="img" '
        f'aria-label="{escape(mana_name(colour))}"><circle r="9.5" '
        f'fill="{svg.FILL.get(colour, "#777")}"/>'
        f'<path d="{svg.GLYPH.get(colour, "")}" fill="#fff" stroke="#fff" stroke-width=".6"/></svg>'
    )


def icon_pip(icon: str) -> Markup:
    """A small icon picture (armour, shield, staff, axe, sword) with its name as the title."""
    return Markup(  # noqa: S704 - fixed paths; the title is escaped
        f'<svg class="aos-icon" viewBox="-10 -10 20 20" role="img" '
        f'aria-label="{escape(icon_name(icon))}"><circle r="9.5" fill="#fffdf6" '
        f'stroke="#6b5a3a"/><path d="{svg.ICON_PATH.get(icon, "")}" fill="none" '
        'stroke="#2a2418" stroke-width="1.6"/></svg>'
    )
