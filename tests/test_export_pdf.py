"""The PDF book: embedded Japanese fonts, real glyphs on the page, contents, editions, papers.

Fonts are checked with ``pdffonts`` and pixels with ``pdftoppm``, never by extracting text (which
returns the right characters even when every glyph is drawn as a box).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from flask import Flask
from pypdf import PdfReader

from companion.base.paths import CHECKOUT as ROOT
from companion.export.backup import export_backup, import_backup
from companion.export.book import PAPER_SIZES, book_html, render_document
from companion.legacy import State, start, step
from companion.samples import load_sample, sample_commands, sample_setup
from companion.store.db import connect
from companion.streams.demo import create_demo
from companion.text.story import story_chapters
from companion.text.terms import stage_name

STATIC = ROOT / "static"
MM = 72 / 25.4
needs_poppler = pytest.mark.skipif(
    not (shutil.which("pdffonts") and shutil.which("pdftoppm")),
    reason="poppler-utils is not installed (scripts/setup --test installs it)",
)


class Book(NamedTuple):
    html: str
    document: Any  # weasyprint.Document
    pdf: bytes


def sample_state(language: str, commands: int | None = None) -> State:
    sample = load_sample(language)
    state, _ = start(sample_setup(sample))
    for command in sample_commands(sample)[:commands]:
        state, _ = step(state, command)
    return state


@pytest.fixture(scope="module")
def book_app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    from conftest import make_app

    return make_app(tmp_path_factory.mktemp("book"))


@pytest.fixture(scope="module")
def make(book_app: Flask) -> Callable[..., Book]:
    """Books rendered once per module: (language, edition, paper, commands) -> Book."""

    @cache
    def render(language: str, edition: str, paper: str, commands: int | None = None) -> Book:
        with book_app.app_context():
            html = book_html(sample_state(language, commands), edition, paper)
        document = render_document(html, STATIC)
        return Book(html, document, document.write_pdf())

    return render


def write(tmp_path: Path, pdf: bytes) -> Path:
    path = tmp_path / "book.pdf"
    path.write_bytes(pdf)
    return path


def fonts(path: Path) -> list[dict[str, str]]:
    """pdffonts' table: name, type and the emb/sub/uni columns."""
    lines = subprocess.run(
        ["pdffonts", str(path)], check=True, capture_output=True, text=True
    ).stdout.splitlines()[2:]
    rows = []
    for line in lines:
        name, *_, emb, sub, uni, _obj, _gen = line.split()
        rows.append({"name": name, "emb": emb, "sub": sub, "uni": uni})
    return rows


def ink(path: Path, page: int = 1) -> float:
    """The share of non-white pixels on a page, rendered in grey at 40 dpi by pdftoppm."""
    data = subprocess.run(
        ["pdftoppm", "-r", "40", "-gray", "-f", str(page), "-l", str(page), str(path)],
        check=True,
        capture_output=True,
    ).stdout
    magic, width, height, _maxval, pixels = data.split(maxsplit=4)
    assert magic == b"P5"
    pixels = pixels[: int(width) * int(height)]
    return sum(1 for value in pixels if value < 200) / len(pixels)


BUNDLED = ("IPAexMincho", "IPAexGothic", "Ijin-Libertine", "Ijin-Biolinum", "Ijin-Hangul")
BUNDLED += ("Ijin-Emoji", "Ijin-Symbols")
# Chromium names the faces it embeds by their PostScript names.
BUNDLED += ("NotoEmoji-Regular", "NanumMyeongjo", "DejaVuSans")


@needs_poppler
@pytest.mark.parametrize(
    ("language", "edition", "text_face"),
    [("ja", "annotated", "IPAexMincho"), ("en", "story", "Ijin-Libertine")],
)
def test_book_embeds_only_the_bundled_faces(
    make: Callable[..., Book], tmp_path: Path, language: str, edition: str, text_face: str
) -> None:
    rows = fonts(write(tmp_path, make(language, edition, "a5").pdf))
    names = {row["name"].split("+", 1)[-1] for row in rows}
    assert text_face in names
    assert all(row["emb"] == "yes" and row["uni"] == "yes" for row in rows)
    assert all(name.startswith(BUNDLED) for name in names), names
    if language == "en":  # a real italic and bold, never a slanted or smeared roman
        assert {"Ijin-Libertine-Italic", "Ijin-Libertine-Bold", "Ijin-Biolinum-Bold"} <= names


@needs_poppler
def test_first_page_is_not_blank(make: Callable[..., Book], tmp_path: Path) -> None:
    path = write(tmp_path, make("ja", "annotated", "a5").pdf)
    assert ink(path, 1) > 0.003  # the cover: suits, the name, the concept, the facts
    assert ink(path, 3) > 0.03  # the first page of text


def outline(reader: PdfReader) -> list[tuple[str, int]]:
    """The top-level bookmarks (one per h1) with their 1-based page numbers."""
    return [
        (" ".join(item.title.split()), reader.get_destination_page_number(item) + 1)
        for item in reader.outline
        if not isinstance(item, list)
    ]


def contents_page(reader: PdfReader) -> dict[str, int]:
    """The table of contents as printed on page 2: entry -> page number."""
    entries = {}
    for line in reader.pages[1].extract_text().splitlines():
        match = re.match(r"^(.*?)\s*\.{3,}\s*(\d+)$", line.strip())
        if match:
            entries[" ".join(match.group(1).split())] = int(match.group(2))
    return entries


@pytest.mark.parametrize("language", ["ja", "en"])
def test_contents_list_every_chapter_with_its_page(
    make: Callable[..., Book], book_app: Flask, language: str
) -> None:
    edition = "annotated" if language == "ja" else "story"
    book = make(language, edition, "a5")
    reader = reader_of(book.pdf)
    assert len(reader.pages) == len(book.document.pages) > 20
    printed = contents_page(reader)
    bookmarks = dict(outline(reader))
    with book_app.app_context():
        from flask_babel import force_locale

        with force_locale(language):
            names = [stage_name(c.stage.index) for c in story_chapters(sample_state(language))]
    chapters = [entry for entry in printed if any(entry.endswith(name) for name in names)]
    assert len(chapters) == len(names) == 4
    for entry, page in printed.items():
        assert bookmarks[entry] == page, entry
    assert list(printed.values()) == sorted(printed.values())


def reader_of(pdf: bytes) -> PdfReader:
    import io

    return PdfReader(io.BytesIO(pdf))


def test_editions_differ_in_the_mechanics_only(make: Callable[..., Book]) -> None:
    story, annotated = make("ja", "story", "a5").html, make("ja", "annotated", "a5").html
    for mark in ('class="stakes"', 'class="roll', "payment-title", "payment-sacrifice"):
        assert mark in annotated
    for mark in ('class="stakes"', 'class="roll', "payment-title", "犠牲："):
        assert mark not in story
    assert story.count('class="tp ') == annotated.count('class="tp ') == 28
    assert story.count("mark-ornament") == annotated.count("mark-ornament") == 5
    assert "エピローグ" in story and 'id="keystones"' in story and '<svg class="timeline"' in story


def test_story_edition_is_shorter(make: Callable[..., Book]) -> None:
    story = make("ja", "story", "a5").document.pages
    annotated = make("ja", "annotated", "a5").document.pages
    assert len(story) < len(annotated)


@pytest.mark.parametrize("paper", sorted(PAPER_SIZES))
def test_every_paper_size_gives_its_page_box(make: Callable[..., Book], paper: str) -> None:
    book = make("en", "annotated", paper, 40)
    size = PAPER_SIZES[paper]
    reader = reader_of(book.pdf)
    for page in reader.pages:
        assert float(page.mediabox.width) == pytest.approx(size.width_mm * MM, abs=0.5)
        assert float(page.mediabox.height) == pytest.approx(size.height_mm * MM, abs=0.5)


def elements_by_page(document: Any) -> Iterator[tuple[int, Any]]:
    for number, page in enumerate(document.pages):
        for box in page._page_box.descendants():
            element = getattr(box, "element", None)
            if element is not None:
                yield number, element


def test_headings_stay_with_their_text_and_dice_rows_stay_whole(
    make: Callable[..., Book],
) -> None:
    for book in (make("ja", "annotated", "a5"), make("en", "annotated", "b6", 80)):
        pages: dict[int, set[int]] = {}
        elements: dict[int, Any] = {}
        for number, element in elements_by_page(book.document):
            pages.setdefault(id(element), set()).add(number)
            elements[id(element)] = element
        parents = {id(child): parent for parent in elements.values() for child in parent}
        heads = [e for e in elements.values() if e.get("class") in ("tp-head", "chapter-title")]
        assert len(heads) > 10
        for head in heads:
            siblings = list(parents[id(head)])
            following = siblings[siblings.index(head) + 1]
            assert min(pages[id(following)]) == max(pages[id(head)]), head.get("class")
        rolls = [e for e in elements.values() if (e.get("class") or "").split()[:1] == ["roll"]]
        assert len(rolls) > 10
        assert all(len(pages[id(roll)]) == 1 for roll in rolls)


NO_START = set("、。，．・：；？！）」』】〕〉》ーぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ々…")
NO_END = set("（「『【〔〈《")


def test_japanese_lines_follow_the_line_breaking_rules(book_app: Flask) -> None:
    # Every other character may not begin a line: a break that ignored the rules would put one
    # at the start of about half of the lines.
    text = "鐘。朱音、「瀬那」カッ（谷）ー" * 120
    html = (
        '<!doctype html><html lang="ja"><head><link rel="stylesheet" href="css/book.css">'
        f"<style>@page {{ size: 100mm 150mm }}</style></head><body><p>{text}</p></body></html>"
    )
    reader = reader_of(render_document(html, STATIC).write_pdf())
    lines = [line.strip() for page in reader.pages for line in page.extract_text().splitlines()]
    lines = [line for line in lines if line]
    assert len(lines) > 20
    assert not [line for line in lines if line[0] in NO_START or line[-1] in NO_END]


def test_book_is_set_with_japanese_rules_and_lang(make: Callable[..., Book]) -> None:
    html = make("ja", "annotated", "a5").html
    assert '<html lang="ja"' in html
    css = (STATIC / "css" / "book.css").read_text(encoding="utf-8")
    fonts_css = (STATIC / "css" / "book-fonts.css").read_text(encoding="utf-8")
    assert "line-break: strict" in css and 'src: url("../fonts/ipaexm.ttf")' in fonts_css


def test_imported_chronicle_makes_the_identical_book(book_app: Flask) -> None:
    db = connect(book_app.config["DATABASE"])
    original = create_demo(db, "en").id
    copy = import_backup(db, export_backup(db, original).encode("utf-8")).id
    from companion.streams import chronicles

    books = []
    for stream in (original, copy):
        chronicles.CACHE.clear()
        with book_app.app_context():
            html = book_html(chronicles.load(db, stream).state, "story", "b6")
        books.append(render_document(html, STATIC).write_pdf())
    assert books[0] == books[1]


def test_cli_writes_a_pdf(book_app: Flask, tmp_path: Path) -> None:
    db = connect(book_app.config["DATABASE"])
    created = create_demo(db, "en")
    path = tmp_path / "life.pdf"
    result = book_app.test_cli_runner().invoke(
        args=["export", created.id, "--format", "pdf", "--edition", "story", "--paper", "a4"]
        + ["-o", str(path)]
    )
    assert result.exit_code == 0, result.output
    reader = PdfReader(path)
    assert float(reader.pages[0].mediabox.width) == pytest.approx(210 * MM, abs=0.5)
    no_file = book_app.test_cli_runner().invoke(args=["export", created.id, "--format", "pdf"])
    assert no_file.exit_code != 0 and "-o FILE" in no_file.output


@pytest.mark.parametrize(("language", "paper"), [("ja", "b6"), ("en", "a5")])
def test_stakes_box_is_never_split_across_pages(
    make: Callable[..., Book], language: str, paper: str
) -> None:
    # Both lives have pages where the box used to break between its two answers.
    success, failure = (
        ("成功したら", "失敗したら") if language == "ja" else ("On success", "On failure")
    )
    pages = [
        page.extract_text() for page in reader_of(make(language, "annotated", paper).pdf).pages
    ]
    boxes = sum(text.count(success) for text in pages)
    assert boxes > 10
    for number, text in enumerate(pages, 1):
        if success in text:
            assert text.rfind(failure) > text.rfind(success), f"page {number} splits the stakes"
    css = (STATIC / "css" / "book.css").read_text(encoding="utf-8")
    assert re.search(r"\.stakes[^{]*\{[^}]*break-inside: avoid", css)


# A page may start a chapter (or the contents, an epilogue, an appendix) only by a forced break.
CHAPTER_OPENINGS = {"cover", "toc", "chapter", "epilogue", "timeline-page", "appendix"}


def lines_per_page(document: Any) -> tuple[list[int], set[int]]:
    """Lines of text on each page (running heads and folios left out), and the pages that open
    a chapter."""
    from weasyprint.formatting_structure import boxes

    counts: list[int] = []
    openings: set[int] = set()
    seen: set[int] = set()
    for number, page in enumerate(document.pages):
        lines = 0
        for area in page._page_box.children:
            if isinstance(area, boxes.MarginBox):
                continue
            for box in area.descendants():
                if isinstance(box, boxes.LineBox) and any(
                    isinstance(inner, boxes.TextBox) and inner.text.strip()
                    for inner in box.descendants()
                ):
                    lines += 1
                element = getattr(box, "element", None)
                classes = (
                    set((element.get("class") or "").split()) if element is not None else set()
                )
                if element is not None and classes & CHAPTER_OPENINGS and id(element) not in seen:
                    seen.add(id(element))  # a chapter's box is on each of its pages: the first
                    openings.add(number)
        counts.append(lines)
    return counts, openings


def short_pages(document: Any) -> list[tuple[int, int]]:
    """Pages (numbered from 1) with fewer than three lines that do not end a chapter."""
    counts, openings = lines_per_page(document)
    return [
        (number + 1, lines)
        for number, lines in enumerate(counts[:-1])
        if lines < 3 and number + 1 not in openings
    ]


def test_no_page_of_a_chapter_holds_fewer_than_three_lines(make: Callable[..., Book]) -> None:
    for book in (make("ja", "annotated", "a5"), make("en", "annotated", "b6", 80)):
        counts, openings = lines_per_page(book.document)
        assert len(openings) > 4 and sum(counts) > 300  # the count sees the chapters and lines
        assert short_pages(book.document) == []
    css = (STATIC / "css" / "book.css").read_text(encoding="utf-8")
    assert "orphans: 3; widows: 3;" in css


@pytest.mark.slow
@pytest.mark.parametrize(("edition", "paper"), [("annotated", "a5"), ("story", "b6")])
def test_no_page_of_a_long_life_holds_fewer_than_three_lines(
    book_app: Flask, edition: str, paper: str
) -> None:
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    from bench_pdf import life

    with book_app.app_context():
        html = book_html(life(), edition, paper)  # 36 turning points, ~2,000 characters each
    document = render_document(html, STATIC)
    assert len(document.pages) > 60
    assert short_pages(document) == []
