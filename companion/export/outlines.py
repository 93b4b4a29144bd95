"""An SVG picture's words drawn as the outlines of a bundled face, for a book whose reader
would otherwise set them in fonts of its own.

An e-reader shows the EPUB's timeline as an image, which cannot use the fonts the book embeds;
so each ``<text>`` of it becomes a ``<path>`` of its glyphs (from IPAex Gothic in a Japanese
book, Linux Biolinum in an English one, the other bundled faces for what those lack), its
words kept in a ``<title>``. Glyphs are placed by their advance widths, as the labels are short.
"""

from __future__ import annotations

import re
from functools import cache
from html import unescape
from pathlib import Path
from typing import Any

from markupsafe import escape

from .epub_fonts import latin_first

TEXT = re.compile(r"<text\b([^>]*)>([^<]*)</text>")
ATTRIBUTE = re.compile(r'([a-z-]+)="([^"]*)"')
FALLBACK = [
    "ipaexg.ttf",
    "LinBiolinum_R.otf",
    "NanumMyeongjo.ttf",
    "NotoEmoji-Regular.ttf",
    "DejaVuSans.ttf",
]


@cache
def _font(path: Path) -> Any:
    from fontTools.ttLib import TTFont

    return TTFont(path)


def _glyphs(text: str, faces: list[Path]) -> list[tuple[Any, str]]:
    """(font, glyph name) for each character, from the first face that holds it."""
    out = []
    for char in text:
        for path in faces:
            font = _font(path)
            glyph = font.getBestCmap().get(ord(char))
            if glyph is not None:
                out.append((font, glyph))
                break
    return out


def _path(font: Any, glyph: str) -> str:
    from fontTools.pens.svgPathPen import SVGPathPen

    glyphs = font.getGlyphSet()
    pen = SVGPathPen(glyphs)
    glyphs[glyph].draw(pen)
    return str(pen.getCommands())


def outline_text(attributes: str, text: str, faces: list[Path]) -> str:
    """One ``<text>`` element (its attributes and words) as a group of glyph outlines."""
    attrs = dict(ATTRIBUTE.findall(attributes))
    size = float(attrs.get("font-size", "16"))
    glyphs = _glyphs(unescape(text), faces)
    widths = [font["hmtx"][glyph][0] * size / font["head"].unitsPerEm for font, glyph in glyphs]
    x = float(attrs.get("x", "0"))
    anchor = attrs.get("text-anchor", "start")
    x -= {"middle": sum(widths) / 2, "end": sum(widths)}.get(anchor, 0)
    y = float(attrs.get("y", "0"))
    paths = []
    for (font, glyph), width in zip(glyphs, widths, strict=True):
        scale = size / font["head"].unitsPerEm
        commands = _path(font, glyph)
        if commands:
            paths.append(
                f'<path transform="translate({x:.2f} {y:.2f}) scale({scale:.5f} {-scale:.5f})"'
                f' d="{commands}"/>'
            )
        x += width
    fill = f' fill="{attrs["fill"]}"' if "fill" in attrs else ""
    return f"<g{fill}><title>{escape(unescape(text))}</title>{''.join(paths)}</g>"


def outlined(svg: str, static: Path, language: str) -> str:
    """``svg`` with each ``<text>`` drawn as outlines in the book's face for ``language``."""
    fonts = static / "fonts"
    first = "LinBiolinum_R.otf" if latin_first(language) else "ipaexg.ttf"
    faces = [fonts / first] + [fonts / name for name in FALLBACK if name != first]
    return TEXT.sub(lambda m: outline_text(m.group(1), m.group(2), faces), svg)
