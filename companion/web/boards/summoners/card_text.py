"""Card texts with their mana placeholders ("[green]", "[緑]", "[any]") drawn as symbols.

``marked`` swaps each placeholder for one private-use character, so wrapping counts a symbol
as one letter; ``svg_line`` escapes a wrapped line and draws each symbol as a coloured disc
followed by the colour's name in the current locale, so the colour reads without telling colours apart."""

from __future__ import annotations

import re
from html import escape

from flask_babel import pgettext

from companion.cardgames.summoners.cards import colour_info

from .words import colour_name

COLOURS = ("black", "green", "red", "yellow", "blue")
ANY = "any"
ANY_COLOUR = "#6d6a75"
_FILL = {
    "black": "#34343c",
    "green": "#2e7d32",
    "red": "#c62828",
    "yellow": "#b07f00",
    "blue": "#1565c0",
}
_FIRST_MARK = 0xE000
_SYMBOLS = (*COLOURS, ANY)


def _placeholders() -> dict[str, str]:
    names = {f"[{c}]": c for c in COLOURS}
    names.update({f"[{info['name_ja']}]": c for c, info in colour_info().items()})
    names.update({"[any]": ANY, "[任意]": ANY})  # the placeholders the card data is written with
    return names


_PLACEHOLDER = re.compile(r"\[[^\[\]]{1,6}\]")


def marked(text: str) -> str:
    """``text`` with each known placeholder replaced by its one-character mark."""
    known = _placeholders()

    def mark(match: re.Match[str]) -> str:
        symbol = known.get(match.group(0))
        return match.group(0) if symbol is None else chr(_FIRST_MARK + _SYMBOLS.index(symbol))

    return _PLACEHOLDER.sub(mark, text)


def _name(symbol: str) -> str:
    return pgettext("age-of-summoners", "any") if symbol == ANY else colour_name(symbol)


def svg_line(line: str) -> str:
    """One wrapped line of marked text as escaped SVG text content with coloured symbols."""
    out = []
    for char in line:
        index = ord(char) - _FIRST_MARK
        if 0 <= index < len(_SYMBOLS):
            symbol = _SYMBOLS[index]
            fill = ANY_COLOUR if symbol == ANY else _FILL[symbol]
            disc = "◇" if symbol == ANY else "●"
            out.append(
                f'<tspan fill="{fill}" font-weight="bold">{disc}{escape(_name(symbol))}</tspan>'
            )
        else:
            out.append(escape(char))
    return "".join(out)
