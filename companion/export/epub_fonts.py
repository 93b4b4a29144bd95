"""The faces an EPUB carries, so that a reader draws every character of it in a bundled font.

Each character the book shows is given, style by style (``epub_styles``), to the first face of
its stack that holds it, as a reader would choose, with the stacks of the PDF book: Japanese
text in IPAex Mincho, headings, labels and prompts in IPAex Gothic, both subset to the
characters they set (the IPA Font License lets a Digital Document File embed a part of the font,
its Embedded Fonts); Latin, Greek and Cyrillic in Linux Libertine O (text) and Linux Biolinum O
(headings), each style the book uses as its whole, unmodified file (their Reserved Font Names
bind a Modified Version, which a subset would be); Hangul in Nanum Myeongjo, likewise whole, for
a book that holds Hangul; emoji in Noto Emoji (monochrome, its ZWJ ligatures kept) and the other
symbols in DejaVu Sans, subset (neither has a Reserved Font Name a subset would carry). An
English book has its Latin faces first. Every face's licence goes with it.
"""

from __future__ import annotations

import io
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from companion.base import languages

from .epub_styles import Style, styled_text

JOINERS = {0x200D, 0xFE0F, 0x20E3, *range(0x1F3FB, 0x1F400), *range(0xE0020, 0xE0080)}
# What a reader needs of IPAex: composed and vertical forms, proportional and trimmed spacing.
IPAEX_FEATURES = ["ccmp", "liga", "locl", "vert", "vrt2", "halt", "vhal", "palt", "vpal", "kern"]
GENERIC = re.compile(r"font-family:\s*(serif|sans-serif)\s*(?=[;}])")


@dataclass(frozen=True)
class Face:
    """A bundled font as the EPUB carries it."""

    name: str  # its file in the EPUB's fonts folder
    family: str
    source: str  # its file in static/fonts
    licence: str = ""  # the licence text that goes with it
    whole: bool = False  # the unmodified file, else a subset
    bold: bool = False
    italic: bool = False

    @property
    def media_type(self) -> str:
        return "font/otf" if self.name.endswith(".otf") else "font/ttf"


def _latin(family: str, suffix: str, bold: bool, italic: bool) -> Face:
    name = f"Lin{family}_R{suffix}.otf"
    return Face(name, f"Ijin {family}", name, "LICENSE-Libertine.txt", True, bold, italic)


IPA = "LICENSE-IPA.txt"
FACES = {
    "mincho": Face("mincho.ttf", "Ijin Mincho", "ipaexm.ttf", IPA),
    "gothic": Face("gothic.ttf", "Ijin Gothic", "ipaexg.ttf", IPA),
    "libertine": _latin("Libertine", "", False, False),
    "libertine-italic": _latin("Libertine", "I", False, True),
    "libertine-bold": _latin("Libertine", "B", True, False),
    "libertine-bold-italic": _latin("Libertine", "BI", True, True),
    "biolinum": _latin("Biolinum", "", False, False),
    "biolinum-italic": _latin("Biolinum", "I", False, True),
    "biolinum-bold": _latin("Biolinum", "B", True, False),
    "hangul": Face(
        "NanumMyeongjo.ttf", "Ijin Hangul", "NanumMyeongjo.ttf", "LICENSE-Nanum.txt", True
    ),
    "emoji": Face("emoji.ttf", "Ijin Emoji", "NotoEmoji-Regular.ttf", "LICENSE-NotoEmoji.txt"),
    "symbols": Face("symbols.ttf", "Ijin Symbols", "DejaVuSans.ttf", "LICENSE-DejaVu.txt"),
}
# Which of the book's faces a language's own letters are set in, the other script's next.
OWN_SCRIPT: dict[str, str] = {"ja": "japanese", "en": "latin"}


def latin_first(language: str) -> bool:
    """Whether a book in ``language`` puts its Latin faces before its Japanese ones."""
    return OWN_SCRIPT[languages.known(language)] == "latin"


def stack(language: str, style: Style) -> list[str]:
    """The faces a character of ``style`` may be set in, first choice first, as in the PDF
    book: Mincho and Libertine for serif text, Gothic and Biolinum for sans-serif (and for
    monospace, which the stylesheet sets as sans-serif)."""
    sans = style.generic != "serif"
    japanese = "gothic" if sans else "mincho"
    shape = "-".join(word for word, on in (("bold", style.bold), ("italic", style.italic)) if on)
    if sans and shape == "bold-italic":
        shape = "bold"  # Biolinum has no bold italic: a reader slants the bold
    latin = ("biolinum" if sans else "libertine") + (f"-{shape}" if shape else "")
    first = [latin, japanese] if latin_first(language) else [japanese, latin]
    return [*first, "hangul", "emoji", "symbols"]


@cache
def _cmap(path: Path) -> frozenset[int]:
    from fontTools.ttLib import TTFont

    return frozenset(TTFont(path, lazy=True).getBestCmap())


@cache
def _codes(static: Path, key: str) -> frozenset[int]:
    return _cmap(static / "fonts" / FACES[key].source)


def _has(static: Path, key: str, code: int) -> bool:
    return code in _codes(static, key)


def _holds(static: Path, key: str, code: int) -> bool:
    """Whether the face ``key`` is the one to draw ``code`` when a stack reaches it."""
    # Noto Emoji draws some symbols DejaVu Sans has too (✓ ⚠ ♥): those keep their text form.
    symbol = code < 0x1F000 and code not in JOINERS and _has(static, "symbols", code)
    return _has(static, key, code) and (key != "emoji" or not symbol)


def chosen(static: Path, styled: dict[Style, str], language: str) -> dict[str, set[int]]:
    """The code points each face is to draw: every character of ``styled`` goes to the first
    face of its style's stack that holds it; as a reader keeps a sequence in one face, a joiner,
    selector or combining mark goes with the character before it, a character joined by a ZWJ
    (the ♀ of 🏃‍♀) too, and one asking for emoji presentation (VS16) goes to the emoji face."""
    faces: dict[str, set[int]] = {key: set() for key in FACES}
    seen: set[int] = set()
    for style, text in styled.items():
        order = stack(language, style)
        first: dict[int, str | None] = {}  # code -> the face of the stack that draws it
        previous: str | None = None
        for index, char in enumerate(text):
            code = ord(char)
            seen.add(code)
            if char in "\n\r\t":
                continue
            if code in JOINERS or unicodedata.category(char) in ("Cf", "Mn", "Me"):
                if previous is not None and _has(static, previous, code):
                    faces[previous].add(code)
                continue
            joined = index > 0 and text[index - 1] == "\u200d"
            if joined and previous is not None and _has(static, previous, code):
                pass
            elif text[index + 1 : index + 2] == "\ufe0f" and _has(static, "emoji", code):
                previous = "emoji"
            else:
                if code not in first:
                    first[code] = next((k for k in order if _holds(static, k, code)), None)
                previous = first[code]
            if previous is not None:
                faces[previous].add(code)
    if faces["emoji"] - JOINERS:  # the sequences' joiners and modifiers, for its ligatures
        faces["emoji"] |= {code for code in seen & JOINERS if _has(static, "emoji", code)}
    else:
        faces["emoji"] = set()
    # A space between two characters of a face may be set in it (as WeasyPrint does).
    spaces = {code for code in (0x20, 0xA0) if code in seen}
    return {
        key: codes | {code for code in spaces if _has(static, key, code)}
        for key, codes in faces.items()
        if codes
    }


def subset(path: Path, codes: set[int], features: list[str]) -> bytes:
    """The face at ``path`` with only the glyphs for ``codes`` (and what ``features`` make of
    them), without hinting, which e-readers do not use."""
    from fontTools import subset as fonttools_subset
    from fontTools.ttLib import TTFont

    options = fonttools_subset.Options()
    options.layout_features = features
    options.name_IDs = ["*"]
    options.notdef_outline = True
    options.drop_tables += ["FFTM"]  # FontForge's timestamps, which fontTools cannot subset
    options.hinting = False
    font = TTFont(path)
    subsetter = fonttools_subset.Subsetter(options)
    subsetter.populate(unicodes=codes)
    subsetter.subset(font)
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


@dataclass(frozen=True)
class BookFonts:
    """The faces an EPUB embeds: their files, licences and the stylesheet that names them."""

    language: str
    faces: dict[str, bytes]  # key of FACES -> the font file as embedded
    licences: dict[str, bytes]  # file name -> licence text

    def font_faces(self) -> str:
        """The ``@font-face`` rules, one per embedded file."""
        rules = []
        for key in self.faces:
            face = FACES[key]
            style = " font-weight: bold;" if face.bold else ""
            style += " font-style: italic;" if face.italic else ""
            rules.append(
                f'@font-face {{ font-family: "{face.family}";{style}'
                f' src: url("../fonts/{face.name}"); }}\n'
            )
        return "".join(rules)

    def families(self, generic: str) -> list[str]:
        """The embedded families a ``generic`` text is set in, first choice first."""
        names: list[str] = []
        for key in stack(self.language, Style(generic=generic)):
            family = FACES[key].family
            embedded = any(FACES[k].family == family for k in self.faces)
            if embedded and family not in names:
                names.append(family)
        return names

    def stylesheet(self, css: str) -> str:
        """``css`` with the embedded families put in front of each generic family it names."""

        def stacked(match: re.Match[str]) -> str:
            names = ", ".join(f'"{name}"' for name in self.families(match.group(1)))
            return f"font-family: {names + ', ' if names else ''}{match.group(1)}"

        return self.font_faces() + GENERIC.sub(stacked, css)


SESAME = "\ufe45"  # the filled sesame dot of ``text-emphasis: filled sesame``


def epub_fonts(static: Path, css: str, documents: Iterable[str], language: str) -> BookFonts:
    """The faces a book of ``documents`` (HTML, styled by ``css``) needs, each subset to its
    characters or, for the faces kept whole, as distributed."""
    fonts = static / "fonts"
    faces: dict[str, bytes] = {}
    licences: dict[str, bytes] = {}
    documents = list(documents)
    styled = styled_text(css, documents, language)
    if any('class="bouten"' in document for document in documents):
        # A reader draws emphasis dots with the text's own face: each face keeps the dot.
        styled = {style: text + SESAME for style, text in styled.items()}
    for key, codes in chosen(static, styled, language).items():
        face = FACES[key]
        if face.whole:
            faces[key] = (fonts / face.source).read_bytes()
        else:
            features = IPAEX_FEATURES if face.source.startswith("ipaex") else ["*"]
            faces[key] = subset(fonts / face.source, codes, features)
        if face.licence:
            licences[face.licence] = (fonts / face.licence).read_bytes()
    return BookFonts(language, faces, licences)
