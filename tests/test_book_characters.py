"""Every character a person can type is drawn in every book by a glyph of an embedded font.

Each book of a life whose names and texts hold every emoji ZWJ sequence of the kept list, kana,
kanji of JIS levels 1 to 4, Latin with diacritics, Greek, Cyrillic, Hangul and symbols is read
back glyph by glyph (``pdf_glyphs``: each code a page shows, through its font's maps, into the
embedded font program with fontTools): no ``.notdef``, no empty glyph for a visible character,
every character of the life drawn, every font one of the bundled faces.
"""

from __future__ import annotations

import io
import re
import shutil
import unicodedata
import zipfile
from collections.abc import Callable
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

import pytest
from book_characters import PIONEER, PLAYERS, characters_life, every_character, zwj_sequences
from flask import Flask
from fontTools.ttLib import TTFont
from pdf_glyphs import drawn
from test_export_editions import epubcheck, needs_epubcheck
from test_export_pdf import BUNDLED, ink

from companion.base.paths import CHECKOUT as ROOT
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


@pytest.mark.slow
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
@pytest.mark.slow  # epubcheck starts a Java virtual machine for each book
@pytest.mark.parametrize("language", ["ja", "en"])
def test_the_epub_with_its_fonts_passes_epubcheck(
    book: Callable[[str, str], bytes], tmp_path: Path, language: str
) -> None:
    report = epubcheck(tmp_path, book("epub", language))
    assert "ERROR" not in report and "WARNING" not in report, report


class _Text(HTMLParser):
    """The characters an XHTML file shows, and those it shows inside headings."""

    def __init__(self) -> None:
        super().__init__()
        self.shown: list[str] = []
        self.headings: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag: str, attrs: object) -> None:
        self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        while self.open and self.open.pop() != tag:
            pass

    def handle_data(self, data: str) -> None:
        if "style" in self.open or "head" in self.open and "title" not in self.open:
            return
        self.shown.append(data)
        if {"h1", "h2"} & set(self.open):
            self.headings.append(data)


def _visible(char: str) -> bool:
    return not char.isspace() and unicodedata.category(char) not in ("Cf", "Mn")


def _embedded(archive: zipfile.ZipFile) -> dict[str, TTFont]:
    return {
        n: TTFont(io.BytesIO(archive.read(n)))
        for n in archive.namelist()
        if n.endswith((".ttf", ".otf"))
    }


def _drawable(font: TTFont, char: str) -> bool:
    """Whether ``font`` maps ``char`` to a glyph with an outline (not ``.notdef``)."""
    glyph = font.getBestCmap().get(ord(char))
    if glyph is None or glyph == ".notdef" or font.getGlyphID(glyph) == 0:
        return False
    from fontTools.pens.boundsPen import BoundsPen

    pen = BoundsPen(font.getGlyphSet())
    font.getGlyphSet()[glyph].draw(pen)
    return pen.bounds is not None


@pytest.mark.slow
@pytest.mark.parametrize("language", ["ja", "en"])
def test_the_epub_embeds_a_face_for_every_character_it_shows(
    book: Callable[[str, str], bytes], language: str
) -> None:
    """An e-reader with none of the bundled fonts still draws every character: each one the
    book's pages show is drawn by a real glyph of a face the book embeds, kanji of headings by
    the Gothic face the headings are set in, every character of the life among them."""
    archive = zipfile.ZipFile(io.BytesIO(book("epub", language)))
    fonts = _embedded(archive)
    pages = [n for n in archive.namelist() if n.endswith(".xhtml")]
    text, headings = "", ""
    for name in pages:
        parser = _Text()
        parser.feed(archive.read(name).decode("utf-8"))
        text += "".join(parser.shown)
        headings += "".join(parser.headings)
    shown = {c for c in text if _visible(c)}
    assert not {
        c for c in every_character() if not set(unicodedata.normalize("NFKD", c)) <= (parts(shown))
    }
    missing = {c for c in shown if not any(_drawable(f, c) for f in fonts.values())}
    assert not missing, " ".join(f"U+{ord(c):04X}" for c in sorted(missing))
    gothic = fonts["EPUB/fonts/gothic.ttf"]
    kanji = {c for c in headings if unicodedata.name(c, "").startswith("CJK UNIFIED")}
    assert kanji and all(_drawable(gothic, c) for c in kanji)


@pytest.mark.parametrize(("language", "first"), [("ja", "Ijin Mincho"), ("en", "Ijin Libertine")])
def test_the_epub_stylesheet_names_its_embedded_faces_first(
    book: Callable[[str, str], bytes], language: str, first: str
) -> None:
    """Each embedded file has its @font-face, and every font stack starts with the embedded
    faces (the chronicle's language's first), the reader's generic family only last."""
    archive = zipfile.ZipFile(io.BytesIO(book("epub", language)))
    css = archive.read("EPUB/style/book.css").decode()
    sources = set(re.findall(r'src: url\("\.\./fonts/([^"]+)"\)', css))
    assert sources == {n.removeprefix("EPUB/fonts/") for n in _embedded(archive)}
    stacks = re.findall(r"font-family:\s*([^;}]+)", css)
    body = [s for s in stacks if s.rstrip().endswith((" serif", " sans-serif"))]
    assert len(body) >= 4
    for value in body:
        names = [n.strip().strip('"') for n in value.split(",")]
        assert names[-1] in ("serif", "sans-serif") and len(names) >= 5, value
    assert [n.strip().strip('"') for n in body[0].split(",")][0] == first


def test_the_epub_carries_each_faces_licence_and_keeps_reserved_names_whole(
    book: Callable[[str, str], bytes],
) -> None:
    """Every embedded face's licence lies beside it; a face whose licence reserves its name is
    the unmodified bundled file (a subset would be a Modified Version under that name)."""
    archive = zipfile.ZipFile(io.BytesIO(book("epub", "ja")))
    listed = {
        line.split()[0]: line.split()[-1]
        for line in (FONTS / "README.txt").read_text("utf-8").splitlines()
        if line.split() and line.split()[0].endswith((".ttf", ".otf"))
    }
    by_family = {
        TTFont(FONTS / name)["name"].getDebugName(1): (name, licence)
        for name, licence in listed.items()
    }
    names = set(archive.namelist())
    for path, font in _embedded(archive).items():
        source, licence = by_family[font["name"].getDebugName(1)]
        assert f"EPUB/fonts/{licence}" in names, path
        assert archive.read(f"EPUB/fonts/{licence}") == (FONTS / licence).read_bytes()
        if (
            "Reserved Font Name"
            in (FONTS / licence).read_text("utf-8").split("\n\n")[0]
            + ((FONTS / licence).read_text("utf-8").split("\n")[0])
        ):
            assert archive.read(path) == (FONTS / source).read_bytes(), path
    assert any("Nanum" in p for p in names)  # the Hangul of the names brings its face


def test_an_epub_embeds_only_the_faces_its_text_needs() -> None:
    """A book of English words embeds Libertine alone, no Japanese, Hangul or emoji face; a
    Japanese one its Mincho and Gothic subsets, each holding just what its styles set."""
    from companion.export.epub_fonts import epub_fonts

    css = (STATIC / "css" / "epub.css").read_text("utf-8")
    english = epub_fonts(STATIC, css, ["<p>A quiet harbour</p>"], "en")
    assert set(english.faces) == {"libertine"}
    assert english.faces["libertine"] == (FONTS / "LinLibertine_R.otf").read_bytes()
    japanese = epub_fonts(STATIC, css, ["<h1>港</h1><p>静かな海 🦊</p>"], "ja")
    assert set(japanese.faces) == {"gothic", "mincho", "emoji"}
    cmaps = {
        key: set(TTFont(io.BytesIO(data)).getBestCmap()) for key, data in japanese.faces.items()
    }
    assert ord("港") in cmaps["gothic"] and ord("港") not in cmaps["mincho"]
    assert {ord(c) for c in "静かな海"} <= cmaps["mincho"] and ord("静") not in cmaps["gothic"]
    assert set(japanese.licences) == {"LICENSE-IPA.txt", "LICENSE-NotoEmoji.txt"}


def test_the_epub_timeline_draws_its_words_as_outlines(book: Callable[[str, str], bytes]) -> None:
    """The timeline picture cannot use the book's fonts, so its words are glyph outlines, a
    path for each visible character, the words kept as the group's title."""
    svg = zipfile.ZipFile(io.BytesIO(book("epub", "ja"))).read("EPUB/timeline.svg").decode()
    assert "<text" not in svg
    groups = re.findall(r"<title>([^<]*)</title>((?:<path [^>]*/>)+)</g>", svg)
    assert {"青年期", "壮年期", "熟年期", "晩年期"} <= {title for title, _paths in groups}
    for title, paths in groups:
        assert paths.count("<path") >= sum(map(_visible, title)), title
