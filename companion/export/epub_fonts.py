"""The faces an EPUB carries: the bundled emoji and symbol faces, subset to what the book shows.

E-readers set kana, kanji, Latin, Greek, Cyrillic and Hangul in their own fonts, but many have no
emoji and few symbols. So the EPUB embeds Noto Emoji (monochrome) for the emoji it holds, its
ligatures for ZWJ sequences kept, and DejaVu Sans for the other symbols IPAex lacks; a book with
neither embeds nothing.
"""

from __future__ import annotations

import io
import re
from functools import cache
from pathlib import Path

FAMILIES = {"emoji": "Ijin Emoji", "symbols": "Ijin Symbols"}
FILES = {"emoji": "NotoEmoji-Regular.ttf", "symbols": "DejaVuSans.ttf"}
TAGS = re.compile(r"<[^>]*>")
JOINERS = {0x200D, 0xFE0F, 0x20E3, *range(0x1F3FB, 0x1F400), *range(0xE0020, 0xE0080)}


@cache
def _cmap(path: Path) -> frozenset[int]:
    from fontTools.ttLib import TTFont

    return frozenset(TTFont(path).getBestCmap())


def wanted(static: Path, text: str) -> dict[str, set[int]]:
    """The code points of ``text`` each embedded face is to draw: emoji (and the joiners and
    modifiers of their sequences) by Noto Emoji, other symbols by DejaVu Sans; never letters,
    kana, kanji or punctuation, which the reader's fonts set."""
    fonts = static / "fonts"
    emoji, symbols = (_cmap(fonts / name) for name in FILES.values())
    codes = {ord(char) for char in TAGS.sub("", text)}
    shown = {code for code in codes if code >= 0x2070 and not 0x2E80 <= code < 0xFE00}
    chosen: dict[str, set[int]] = {"emoji": set(), "symbols": set()}
    for code in sorted(shown | (codes & JOINERS)):
        if code in emoji and (code >= 0x1F000 or code in JOINERS or code not in symbols):
            chosen["emoji"].add(code)
        elif code in symbols:
            chosen["symbols"].add(code)
    if not chosen["emoji"] - JOINERS:
        chosen["emoji"] = set()
    return chosen


def subset(path: Path, codes: set[int]) -> bytes:
    """The face at ``path`` with only the glyphs for ``codes`` (and the ligatures they make)."""
    from fontTools import subset as fonttools_subset
    from fontTools.ttLib import TTFont

    options = fonttools_subset.Options()
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.notdef_outline = True
    font = TTFont(path)
    subsetter = fonttools_subset.Subsetter(options)
    subsetter.populate(unicodes=codes)
    subsetter.subset(font)
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def epub_fonts(static: Path, text: str) -> list[tuple[str, bytes]]:
    """(name, font file) for each face the book needs, subset to its characters."""
    return [
        (name, subset(static / "fonts" / FILES[name], codes))
        for name, codes in wanted(static, text).items()
        if codes
    ]
