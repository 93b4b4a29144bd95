"""Every character a person can type is drawn in every book by a glyph of an embedded font.

Each book of a life whose names and texts hold every emoji ZWJ sequence of the kept list, kana,
kanji of JIS levels 1 to 4, Latin with diacritics, Greek, Cyrillic, Hangul and symbols is read
back glyph by glyph (``pdf_glyphs``: each code a page shows, through its font's maps, into the
embedded font program with fontTools): no ``.notdef``, no empty glyph for a visible character,
every character of the life drawn, every font one of the bundled faces.
"""

from __future__ import annotations

import io
import shutil
import unicodedata
import zipfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from book_characters import PIONEER, PLAYERS, characters_life, every_character, zwj_sequences
from flask import Flask
from fontTools.ttLib import TTFont
from pdf_glyphs import drawn
from test_export_editions import epubcheck, needs_epubcheck
from test_export_pdf import BUNDLED, ink

from companion import ROOT
from companion.export import editions
from companion.export.book import book_html, render_book

STATIC = ROOT / "static"
FONTS = STATIC / "fonts"


@pytest.fixture(scope="module")
def book_app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    from conftest import make_app

    return make_app(tmp_path_factory.mktemp("characters"))


@pytest.fixture(scope="module")
def book(book_app: Flask) -> Callable[[str, str], bytes]:
    @cache
    def made(layout: str, language: str) -> bytes:
        state = characters_life(language)
        with book_app.app_context():
            if layout == "book":
                return render_book(book_html(state, "annotated", "a5"), STATIC)
            return editions.make(state, "annotated", "a5", layout, STATIC, key="k")

    return made


@cache
def same_glyph() -> dict[str, set[str]]:
    """Characters IPAex draws with one glyph (a kanji and its radical): a PDF's text names one."""
    shared: dict[str, set[str]] = {}
    for name in ("ipaexm.ttf", "ipaexg.ttf"):
        by_glyph: dict[str, set[str]] = {}
        for code, glyph in TTFont(FONTS / name).getBestCmap().items():
            by_glyph.setdefault(glyph, set()).add(chr(code))
        for chars in by_glyph.values():
            for char in chars:
                shared.setdefault(char, set()).update(chars)
    return shared


def parts(chars: set[str]) -> set[str]:
    """The characters, decomposed (Ĕ is E and a breve, ︽ is 《), with what shares their glyph."""
    out: set[str] = set()
    for char in chars:
        for alias in same_glyph().get(char, {char}) | {char}:
            out |= set(unicodedata.normalize("NFKD", alias))
    return out


def check_every_glyph(pdf: bytes) -> None:
    result = drawn(pdf)
    assert result.glyphs > 5000
    assert result.problems == []
    assert all(name.startswith(BUNDLED) for name in result.chars), sorted(result.chars)
    shown = parts(result.all_chars)
    missing = {c for c in every_character() if not set(unicodedata.normalize("NFKD", c)) <= shown}
    assert not missing, "".join(sorted(missing))[:200]


@pytest.mark.parametrize(("layout", "language"), [("book", "ja"), ("book", "en"), ("print", "ja")])
def test_weasyprint_books_draw_every_character(
    book: Callable[[str, str], bytes], layout: str, language: str
) -> None:
    check_every_glyph(book(layout, language))


@pytest.mark.browser
def test_the_vertical_book_draws_every_character(book: Callable[[str, str], bytes]) -> None:
    from companion.export.vertical import chromium_path

    if chromium_path() is None:
        pytest.skip("Chromium is not installed (scripts/setup --vertical installs it)")
    check_every_glyph(book("vertical", "ja"))


@pytest.mark.skipif(not shutil.which("pdftoppm"), reason="poppler-utils is not installed")
def test_the_title_page_shows_the_emoji_names(
    book: Callable[[str, str], bytes], tmp_path: Path
) -> None:
    """The title page, rendered: the emoji of the names are drawn where they stand (ink)."""
    from pypdf import PdfReader

    pdf = book("book", "ja")
    first = PdfReader(io.BytesIO(pdf)).pages[0]
    result = drawn(_single_page(first))
    emoji = set().union(*(chars for name, chars in result.chars.items() if "Emoji" in name))
    assert {"🦊", "🌊"} <= emoji
    path = tmp_path / "book.pdf"
    path.write_bytes(pdf)
    assert ink(path, 1) > 0.003  # rendered by poppler, with its names and facts


def _single_page(page: object) -> bytes:
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_page(page)  # type: ignore[arg-type]
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_the_bundled_faces_hold_every_character() -> None:
    """The faces named in the stylesheet's stacks hold each character (so nothing falls back
    to a font of the machine), the whole of JIS X 0213 included."""
    from book_characters import _jis

    faces = {
        name: set(TTFont(FONTS / name).getBestCmap())
        for name in ("ipaexm.ttf", "ipaexg.ttf", "LinLibertine_R.otf", "NanumMyeongjo.ttf")
        + ("NotoEmoji-Regular.ttf", "DejaVuSans.ttf")
    }
    every = set().union(*faces.values())
    assert not {c for c in every_character() if ord(c) not in every}
    for ipaex in ("ipaexm.ttf", "ipaexg.ttf"):
        for plane, rows in (
            (1, range(1, 95)),
            (2, [1, 3, 4, 5, 8, 12, 13, 14, 15, *range(78, 95)]),
        ):
            kanji = _jis(plane, rows)
            assert len(kanji) > 1000
            assert not [k for k in kanji if not all(ord(c) in faces[ipaex] for c in k)]
    listed = {
        line.split()[0]: line.split()[-1]
        for line in (FONTS / "README.txt").read_text("utf-8").splitlines()
        if line.split() and line.split()[0].endswith((".ttf", ".otf"))
    }
    faces_here = {p.name for p in FONTS.iterdir() if p.suffix in (".ttf", ".otf")}
    assert set(listed) == faces_here  # every face is listed, with its licence beside it
    assert all((FONTS / licence).is_file() for licence in listed.values())


def test_the_emoji_list_is_kept_whole() -> None:
    sequences = zwj_sequences()
    assert len(set(sequences)) == len(sequences) > 1500
    assert "👩\u200d👩\u200d👧" in sequences and "🏳\ufe0f\u200d🌈" in sequences
    assert all("\u200d" in s for s in sequences)
    assert PIONEER in "".join(characters_life().setup.pioneer)
    assert characters_life().setup.players == PLAYERS


@needs_epubcheck
def test_the_epub_with_its_fonts_passes_epubcheck(
    book: Callable[[str, str], bytes], tmp_path: Path
) -> None:
    report = epubcheck(tmp_path, book("epub", "ja"))
    assert "ERROR" not in report and "WARNING" not in report, report


def test_the_epub_embeds_the_emoji_and_symbols_it_shows(book: Callable[[str, str], bytes]) -> None:
    """E-readers set kana, kanji, Latin, Greek, Cyrillic and Hangul in their own fonts; the
    emoji and symbols they often lack are embedded, subset to what the book shows."""
    archive = zipfile.ZipFile(io.BytesIO(book("epub", "ja")))
    fonts = [n for n in archive.namelist() if n.endswith(".ttf")]
    assert fonts
    covered: set[int] = set()
    for name in fonts:
        face = TTFont(io.BytesIO(archive.read(name)))
        covered |= set(face.getBestCmap())
        assert len(archive.read(name)) < 600_000
    css = archive.read("EPUB/style/book.css").decode()
    assert "@font-face" in css and "Ijin Emoji" in css
    text = "".join(archive.read(n).decode() for n in archive.namelist() if n.endswith(".xhtml"))
    for char in every_character() & set(text):
        if _reader_sets(char):
            continue
        assert ord(char) in covered, f"U+{ord(char):04X} {char}"


def _reader_sets(char: str) -> bool:
    """Letters, kana, kanji and punctuation: what an e-reader's own fonts set."""
    code = ord(char)
    punctuation = 0x2000 <= code < 0x2070 or 0x3000 <= code < 0x3100 or 0xFF00 <= code < 0xFFF0
    letter = unicodedata.category(char)[0] in "LN"  # kana and kanji are letters too
    return code < 0x2000 or punctuation or letter  # below U+2000: Latin, Greek, Cyrillic…
