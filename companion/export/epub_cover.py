"""The EPUB's cover image: the front of the print shop's cover, drawn as a JPEG at export.

The same words (the suits, the Pioneer's name, the people, the span of ages, the edition) in the
same colours and faces as ``templates/book/cover.html`` and ``static/css/cover.css``, drawn with
Pillow from the bundled fonts (no PDF renderer is needed at export). Each character is set in the
first face of the book's stack that holds it, so a name in any script or with emoji is drawn.
Stores ask for a raster cover about 1,600 pixels wide; this one has the book's A5 proportions.
"""

from __future__ import annotations

import io
from functools import cache
from pathlib import Path

from flask_babel import force_locale
from flask_babel import gettext as _

from ..legacy import State
from .contents import Contents
from .rendering import edition_name

WIDTH, HEIGHT = 1480, 2100  # A5's proportions, 10 pixels a millimetre
GROUND, GOLD, WORDS, SOFT = "#2e2722", "#c9a45c", "#f3ead8", "#d8cab0"
STACKS = {
    "ja": ["ipaexm.ttf", "LinLibertine_R.otf", "NanumMyeongjo.ttf", "NotoEmoji-Regular.ttf"],
    "en": ["LinLibertine_R.otf", "ipaexm.ttf", "NanumMyeongjo.ttf", "NotoEmoji-Regular.ttf"],
}
LAST = "DejaVuSans.ttf"


@cache
def _codes(path: Path) -> frozenset[int]:
    from fontTools.ttLib import TTFont

    return frozenset(TTFont(path, lazy=True).getBestCmap())


def _face(fonts: Path, language: str, char: str) -> Path:
    for name in STACKS.get(language, STACKS["en"]):
        if ord(char) in _codes(fonts / name):
            return fonts / name
    return fonts / LAST


def _runs(fonts: Path, language: str, text: str) -> list[tuple[Path, str]]:
    """``text`` cut into runs of one face each (a joiner or selector stays with its run)."""
    runs: list[tuple[Path, str]] = []
    for char in text:
        if runs and (not char.isprintable() or char in "\u200d\ufe0f"):
            runs[-1] = (runs[-1][0], runs[-1][1] + char)
            continue
        face = _face(fonts, language, char)
        if runs and runs[-1][0] == face:
            runs[-1] = (face, runs[-1][1] + char)
        else:
            runs.append((face, char))
    return runs


def _line(
    draw: object, fonts: Path, language: str, text: str, size: int, y: int, colour: str
) -> int:
    """Draw ``text`` centred at height ``y``, wrapped to the page; the height it took."""
    from PIL import ImageDraw, ImageFont

    assert isinstance(draw, ImageDraw.ImageDraw)
    lines = _wrap(fonts, language, text, size, WIDTH * 8 // 10)
    for index, line in enumerate(lines):
        runs = _runs(fonts, language, line)
        widths = [ImageFont.truetype(str(face), size).getlength(part) for face, part in runs]
        x = (WIDTH - sum(widths)) / 2
        for (face, part), width in zip(runs, widths, strict=True):
            font = ImageFont.truetype(str(face), size)
            draw.text((x, y + index * size * 1.4), part, font=font, fill=colour)
            x += width
    return int(len(lines) * size * 1.4)


def _wrap(fonts: Path, language: str, text: str, size: int, width: int) -> list[str]:
    from PIL import ImageFont

    def length(part: str) -> float:
        return sum(
            ImageFont.truetype(str(face), size).getlength(run)
            for face, run in _runs(fonts, language, part)
        )

    lines: list[str] = []
    current = ""
    for char in text:
        if current and length(current + char) > width:
            cut = current.rfind(" ")
            if cut > 0:
                lines.append(current[:cut])
                current = current[cut + 1 :]
            else:
                lines.append(current)
                current = ""
        current += char
    return [*lines, current] if current else lines


def cover_image(book: Contents, state: State, static: Path) -> bytes:
    """The front cover of ``book`` as a JPEG."""
    from PIL import Image, ImageDraw

    fonts = static / "fonts"
    language = book.language
    setup = state.setup
    image = Image.new("RGB", (WIDTH, HEIGHT), GROUND)
    draw = ImageDraw.Draw(image)
    with force_locale(language):
        edition = edition_name(book.edition)
        ages = f"{_('Ages')} {book.age_span}"
    y = 420
    y += _line(draw, fonts, language, "♥ ♦ ♣ ♠", 70, y, GOLD) + 140
    y += _line(draw, fonts, language, setup.pioneer, 150, y, WORDS) + 60
    if setup.people:
        y += _line(draw, fonts, language, setup.people, 60, y, SOFT) + 60
    _line(draw, fonts, language, ages, 56, y + 120, GOLD)
    _line(draw, fonts, language, edition, 44, HEIGHT - 260, SOFT)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85, optimize=True)
    return out.getvalue()
