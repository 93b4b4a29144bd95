"""A long book made in parts: the same book as one document, page for page.

A sample life is forced into parts (a threshold of a few pages) and compared with the book laid
out as one document: its page count, its contents and where each entry really is, the folio and
running head of every page across each join, the outline's targets, and the file itself (qpdf,
a subset tag per font program, and for the print shop the PDF/X-1a preflight).
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from pdf_checks import qpdf_warnings, subset_programs
from pypdf import PdfReader
from test_export_pdf import contents_page, sample_state
from test_pdfx import preflight

from companion.base.paths import CHECKOUT as ROOT
from companion.export import DEFAULT_PART_PAGES, editions, parts
from companion.export.book import book_html, make_book
from companion.export.print_shop import make_print_book

STATIC = ROOT / "static"


@pytest.fixture(scope="module")
def parts_app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    from conftest import make_app

    return make_app(tmp_path_factory.mktemp("parts"))


def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The first page of every part laid out from now on (the front matter's is 1)."""
    firsts: list[int] = []
    lay_out_apart = parts.lay_out_apart

    def spy(html: str, static: Path, first: int = 1, *args: Any) -> parts.Laid:
        firsts.append(first)
        return lay_out_apart(html, static, first, *args)

    monkeypatch.setattr(parts, "lay_out_apart", spy)
    return firsts


def texts(page: Any) -> list[tuple[float, float, str]]:
    """Each piece of text on ``page``: (x, y from the top, text)."""
    pieces: list[tuple[float, float, str]] = []

    def visit(text: str, cm: Any, tm: Any, _font: Any, _size: Any) -> None:
        if text.strip():
            pieces.append((cm[4] + tm[4], tm[5], text.strip()))

    page.extract_text(visitor_text=visit)
    return pieces


def folio(page: Any) -> int | None:
    """The page number printed in the bottom margin, if any."""
    height = float(page.mediabox.height)
    found = [t for _x, y, t in texts(page) if y > height * 0.9 and t.isdigit()]
    return int(found[-1]) if found else None


def head(page: Any) -> tuple[str, str] | None:
    """The running head: which side of the page it is on, and its words."""
    width, height = float(page.mediabox.width), float(page.mediabox.height)
    found = [(x, t) for x, y, t in texts(page) if y < height * 0.1]
    if not found:
        return None
    x, words = found[-1]
    return ("left" if x < width / 2 else "right", words)


def outline(reader: PdfReader, items: list[Any] | None = None) -> Iterator[tuple[str, int]]:
    """Every bookmark, nested ones too, with its 1-based page."""
    for item in reader.outline if items is None else items:
        if isinstance(item, list):
            yield from outline(reader, item)
        else:
            yield " ".join(item.title.split()), reader.get_destination_page_number(item) + 1


def squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def check_same_book(one: bytes, joined: bytes, tmp_path: Path) -> None:
    """``joined`` is ``one`` made in parts: every promise of the module's docstring."""
    whole, made = PdfReader(io.BytesIO(one)), PdfReader(io.BytesIO(joined))
    assert abs(len(made.pages) - len(whole.pages)) <= 1
    printed = contents_page(made)
    assert printed == contents_page(whole)
    assert len(printed) >= 6
    for entry, number in printed.items():  # the entry's heading is on the page it names
        assert squeezed(entry.split(" ", 1)[-1]) in squeezed(made.pages[number - 1].extract_text())
    first_chapter = min(printed.values())
    for index in range(first_chapter - 1, len(made.pages)):
        page = made.pages[index]
        if not texts(page):
            continue  # a blank page padding the print shop's body to a multiple of four
        assert folio(page) == index + 1, index + 1
        side = head(page)
        assert side is not None and side == head(whole.pages[index]), index + 1
        assert side[0] == ("right" if index % 2 == 0 else "left"), index + 1
    bookmarks = list(outline(made))
    assert bookmarks == list(outline(whole))
    assert len(bookmarks) > len(printed)  # the turning points' headings too
    for title, number in bookmarks:
        assert squeezed(title) in squeezed(made.pages[number - 1].extract_text()), title
    assert qpdf_warnings(tmp_path, joined) == []
    assert {name: n for name, n in subset_programs(joined).items() if len(n) > 1} == {}


def test_parts_group_whole_chapters_up_to_the_threshold() -> None:
    sizes = [("stage-0", 30.0), ("stage-1", 250.0), ("stage-2", 90.0), ("stage-3", 100.0)]
    sizes += [("epilogue", 5.0), ("timeline", 2.0), ("keystones", 2.0)]
    assert parts.plan(sizes, 200) == [
        ["stage-0"],
        ["stage-1"],  # longer than a part: a part of its own, never split
        ["stage-2", "stage-3", "epilogue", "timeline", "keystones"],
    ]
    assert parts.plan(sizes, 1000) == [[name for name, _ in sizes]]
    assert parts.plan(sizes, 1) == [[name] for name, _ in sizes]


def test_only_a_long_book_is_made_in_parts(parts_app: Flask) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_pdf import life

    with parts_app.app_context():
        sample = book_html(sample_state("ja"), "annotated", "a5")
        largest = life(scale=10)  # the largest legal life, as the benchmark makes it
        names = parts.section_names(largest, "annotated")
        sizes = [
            (
                name,
                parts.estimated_pages(book_html(largest, "annotated", "a5", sections=[name]), "a5"),
            )
            for name in names
        ]
    assert not parts.needs_parts(sample, "a5", DEFAULT_PART_PAGES)
    assert parts.needs_parts(sample, "a5", 5)
    assert not parts.needs_parts(sample, "a5", 0)  # 0: never
    whole = sum(pages for _, pages in sizes)
    assert whole > 3 * DEFAULT_PART_PAGES
    groups = parts.plan(sizes, DEFAULT_PART_PAGES)
    assert len(groups) >= 4
    biggest = max(sum(dict(sizes)[name] for name in group) for group in groups)
    assert biggest < whole / 3


def test_a_book_in_parts_is_the_same_book(
    parts_app: Flask, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with parts_app.app_context():
        state = sample_state("ja")
        one = make_book(state, "annotated", "a5")
        firsts = counted(monkeypatch)
        joined = parts.home_book(state, "annotated", "a5", STATIC, part_pages=6)
    assert len(firsts) >= 4  # the front matter twice, and at least two parts
    assert any(first % 2 == 0 for first in firsts[1:-1])  # a part opening on a left page
    check_same_book(one, joined, tmp_path)
    links = PdfReader(io.BytesIO(joined)).pages[1].get("/Annots")
    assert links, "the contents' entries are links"


@pytest.mark.slow
@pytest.mark.parametrize("language", ["ja", "en"])
def test_the_print_shops_body_in_parts_is_the_same_valid_pdfx_book(
    parts_app: Flask, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, language: str
) -> None:
    with parts_app.app_context():
        state = sample_state(language)
        one = make_print_book(state, "story", "a5", STATIC)
        firsts = counted(monkeypatch)
        in_parts = editions.InParts(1, None)
        joined = editions.make(state, "story", "a5", "print", STATIC, in_parts=in_parts)
    assert len(firsts) >= 8  # every section a part of its own
    check_same_book(one, joined, tmp_path)
    assert len(PdfReader(io.BytesIO(joined)).pages) % 4 == 0
    assert preflight(joined, language) == []


@pytest.mark.slow
def test_every_section_a_part_of_its_own(parts_app: Flask, tmp_path: Path) -> None:
    with parts_app.app_context():
        state = sample_state("en")
        one = make_book(state, "annotated", "b6")
        joined = parts.home_book(state, "annotated", "b6", STATIC, part_pages=1)
    check_same_book(one, joined, tmp_path)


def test_a_part_that_fails_says_which_and_why() -> None:
    with pytest.raises(parts.PartFailedError, match="page 41 on.*unknown paper 'folio'"):
        parts.lay_out_apart("<p>A page.</p>", STATIC, 41, 0, pad_paper="folio")


def test_the_worker_makes_a_long_book_in_parts_as_the_host_set(tmp_path: Path) -> None:
    from conftest import make_app

    from companion.export import jobs
    from companion.export.worker import work
    from companion.store.db import connect
    from companion.streams import chronicles
    from companion.streams.demo import create_demo

    app = make_app(tmp_path, EXPORT_PART_PAGES=8)
    db = connect(app.config["DATABASE"])
    exports = tmp_path / "exports"
    exports.mkdir()
    stream = create_demo(db, "en").id
    version = chronicles.load(db, stream).version
    job, _ = jobs.request_book(db, exports, stream, version, "story", "a5")
    assert work(app, db, exports, limit=1) == 1
    done = jobs.find(db, job.id)
    assert done is not None and done.status == "done"
    pdf = (exports / job.filename).read_bytes()
    # In parts, each part embeds its own subset of the text face, under a name of its own.
    faces = [name for name in subset_programs(pdf) if name.endswith("+Ijin-Libertine")]
    assert len(faces) > 1, faces
    assert qpdf_warnings(tmp_path, pdf) == []


def test_the_hosts_threshold_reaches_every_worker() -> None:
    from companion.base.settings import SettingError, check
    from companion.export.supervisor import Settings

    settings = Settings.from_config({"DATABASE": "db", "EXPORTS_DIR": "x", "EXPORT_PART_PAGES": 7})
    command = settings.command(1)
    assert command[command.index("--part-pages") + 1] == "7"
    assert Settings.from_config({"DATABASE": "db", "EXPORTS_DIR": "x"}).part_pages == 200
    with pytest.raises(SettingError, match="EXPORT_PART_PAGES"):
        check({"EXPORT_PART_PAGES": "-1"})
