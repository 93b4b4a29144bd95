"""A spirit's rules text wherever it is read, its colour symbols ("[black]", "[任意]") drawn.

On the table (HTML) each symbol is a small mana disc followed by the colour's name; in Markdown
(the rules pages) it is a disc character and the name, as the card faces write it. Both name
the colour in the reader's language, so the text reads without telling colours apart.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from . import svg
from .card_text import ANY, ANY_COLOUR, disc, marked, symbol_of
from .words import colour_name, kind_data

# The characters Markdown gives a meaning to, written with a backslash to read as themselves.
_MARKDOWN = str.maketrans({c: "\\" + c for c in "\\`*_[]<>#|~"})


def card_text(kind_or_card: str) -> Markup:
    """A kind's rules text as HTML, in the reader's language, each symbol drawn and named."""
    return html_text(kind_data(kind_or_card, "text"))


def html_text(text: str) -> Markup:
    """A card text as HTML: escaped, each symbol as a mana disc and the colour's name."""
    out = []
    for char in marked(text):
        symbol = symbol_of(char)
        out.append(_html_symbol(symbol) if symbol is not None else str(escape(char)))
    return Markup("".join(out))  # noqa: S704 - every piece is escaped or fixed markup


def _html_symbol(symbol: str) -> str:
    if symbol == ANY:
        shape = (
            f'<circle r="8.5" fill="#fff" stroke="{ANY_COLOUR}" stroke-width="2" '
            'stroke-dasharray="3 2"/>'
        )
    else:
        shape = (
            f'<circle r="9.5" fill="{svg.FILL[symbol]}"/><path d="{svg.GLYPH[symbol]}" '
            'fill="#fff" stroke="#fff" stroke-width=".6"/>'
        )
    pip = f'<svg class="aos-pip" viewBox="-10 -10 20 20" aria-hidden="true">{shape}</svg>'
    return f'<span class="aos-symbol">{pip}{escape(colour_name(symbol))}</span>'


def markdown_text(kind_or_card: str) -> str:
    """A kind's rules text as Markdown, in the reader's language: nothing in it is read as
    markup, and each symbol is a disc character and the colour's name ("●black", "◇any")."""
    out = []
    for char in marked(kind_data(kind_or_card, "text")):
        symbol = symbol_of(char)
        out.append(disc(symbol) + colour_name(symbol) if symbol else char)
    return "".join(out).translate(_MARKDOWN)
