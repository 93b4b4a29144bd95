"""Card texts with their mana placeholders ("[green]", "[緑]", "[any]") drawn as symbols.

``marked`` swaps each placeholder for one private-use character, so wrapping counts a symbol
as one letter; ``svg_line`` escapes a wrapped line and draws each symbol as a coloured disc
followed by the colour's name in the current locale, so the colour reads without telling colours apart."""

from __future__ import annotations

import re
from functools import cache
from html import escape

from companion.cardgames.summoners.cards import colour_words

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


@cache
def _placeholders() -> dict[str, str]:
    """What card texts write for each symbol: its name, in brackets, in any language of the data."""
    return {
        f"[{name}]": symbol
        for symbol in _SYMBOLS
        for field, name in colour_words(symbol).items()
        if field.startswith("name_")
    }


_PLACEHOLDER = re.compile(r"\[[^\[\]]{1,6}\]")


def marked(text: str) -> str:
    """``text`` with each known placeholder replaced by its one-character mark."""
    known = _placeholders()

    def mark(match: re.Match[str]) -> str:
        symbol = known.get(match.group(0))
        return match.group(0) if symbol is None else chr(_FIRST_MARK + _SYMBOLS.index(symbol))

    return _PLACEHOLDER.sub(mark, text)


def symbol_of(char: str) -> str | None:
    """The symbol ("black"... "any") a character of marked text stands for, else None."""
    index = ord(char) - _FIRST_MARK if len(char) == 1 else -1
    return _SYMBOLS[index] if 0 <= index < len(_SYMBOLS) else None


def disc(symbol: str) -> str:
    """The character a symbol is drawn with in text: a filled disc, a hollow one for any."""
    return "◇" if symbol == ANY else "●"


def svg_line(line: str) -> str:
    """One wrapped line of marked text as escaped SVG text content with coloured symbols."""
    out = []
    for char in line:
        symbol = symbol_of(char)
        if symbol is not None:
            fill = ANY_COLOUR if symbol == ANY else _FILL[symbol]
            name = escape(colour_name(symbol))
            out.append(f'<tspan fill="{fill}" font-weight="bold">{disc(symbol)}{name}</tspan>')
        else:
            out.append(escape(char))
    return "".join(out)
