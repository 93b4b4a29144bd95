"""The booklet: the finished book two pages a side, in the order a folded stack reads."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from flask import Flask
from pypdf import PdfReader
from test_export_pdf import sample_state

from companion.base.paths import CHECKOUT as ROOT
from companion.export import editions
from companion.export.book import render_document
from companion.export.booklet import SHEETS, impose, saddle_order
from companion.export.contents import EditionError

STATIC = ROOT / "static"
MM = 72 / 25.4
needs_poppler = pytest.mark.skipif(
    not shutil.which("pdftotext"), reason="poppler-utils is not installed (scripts/setup --test)"
)


def numbered_book(pages: int, paper: str = "a5") -> bytes:
    """A book of ``pages`` pages, each showing only its own number."""
    size = {"a5": "148mm 210mm", "half-letter": "5.5in 8.5in"}[paper]
    body = "".join(f'<p style="break-after: page">page{n}</p>' for n in range(1, pages + 1))
    html = (
        f"<!doctype html><html><head><style>@page {{ size: {size}; margin: 20mm }}"
        f" p {{ font: 30pt sans-serif }}</style></head><body>{body}</body></html>"
    )
    return render_document(html, STATIC).write_pdf()


def folded_reading_order(sheets: int, right_bound: bool) -> dict[tuple[int, str, str], int]:
    """Walk a stack of ``sheets`` sheets folded once, page by page as a reader turns them.

    Each sheet has an outside and an inside, each with two halves. Bound on the left, the cover
    is the outer sheet's outside right half; turning a leaf shows its back (the other side's
    opposite half). Bound on the right, everything is mirrored. Returns (sheet, side, half)
    -> the page number read there.
    """
    first, second = ("L", "R") if right_bound else ("R", "L")
    order: list[tuple[int, str, str]] = []
    for sheet in range(1, sheets + 1):  # going in: the front half of each sheet, then its back
        order += [(sheet, "outside", first), (sheet, "inside", second)]
    for sheet in range(sheets, 0, -1):  # coming out: the other half of each sheet
        order += [(sheet, "inside", first), (sheet, "outside", second)]
    return {place: page for page, place in enumerate(order, start=1)}


def sides_read(pdf: bytes, tmp_path: Path) -> list[tuple[int | None, int | None]]:
    """Each side of the imposed PDF as the page numbers on its left and right halves."""
    path = tmp_path / "booklet.pdf"
    path.write_bytes(pdf)
    width = float(PdfReader(io.BytesIO(pdf)).pages[0].mediabox.width)
    layout = subprocess.run(
        ["pdftotext", "-bbox", str(path), "-"], check=True, capture_output=True, text=True
    ).stdout
    sides = []
    for page in re.findall(r"<page [^>]*>(.*?)</page>", layout, re.S):
        halves: list[int | None] = [None, None]
        for x_min, word in re.findall(r'<word xMin="([0-9.]+)"[^>]*>page(\d+)</word>', page):
            half = 0 if float(x_min) < width / 2 else 1
            assert halves[half] is None, "two pages on one half"
            halves[half] = int(word)
        sides.append((halves[0], halves[1]))
    return sides


@needs_poppler
@pytest.mark.parametrize("pages", [4, 8, 12, 40, 10])
@pytest.mark.parametrize("right_bound", [False, True])
def test_the_folded_stack_reads_in_order(tmp_path: Path, pages: int, right_bound: bool) -> None:
    pdf = impose(numbered_book(pages), "a5", right_bound)
    sides = sides_read(pdf, tmp_path)
    sheets = -(-pages // 4)
    assert len(sides) == 2 * sheets  # both sides of each sheet; blanks round up to four
    expected = folded_reading_order(sheets, right_bound)
    for index, (left, right) in enumerate(sides):
        sheet, side = index // 2 + 1, ("outside", "inside")[index % 2]
        for half, shown in (("L", left), ("R", right)):
            page = expected[sheet, side, half]
            assert shown == (page if page <= pages else None), (sheet, side, half)
    assert saddle_order(pages, right_bound) == sides


@pytest.mark.parametrize(
    ("paper", "sheet_mm"), [("a5", (297, 210)), ("half-letter", (279.4, 215.9))]
)
def test_sheets_are_a4_or_us_letter_with_the_pages_meeting_at_the_fold(
    paper: str, sheet_mm: tuple[float, float]
) -> None:
    reader = PdfReader(io.BytesIO(impose(numbered_book(6, paper), paper)))
    assert SHEETS[paper][1:] == sheet_mm
    for page in reader.pages:
        assert float(page.mediabox.width) == pytest.approx(sheet_mm[0] * MM, abs=0.1)
        assert float(page.mediabox.height) == pytest.approx(sheet_mm[1] * MM, abs=0.1)
    drawn = reader.pages[0].get_contents().get_data().decode()
    page_w = {"a5": 148, "half-letter": 139.7}[paper] * MM
    # The right half's page starts at the fold, the left one ends there.
    places = [float(x) for x in re.findall(r"1 0 0 1 ([0-9.]+) [0-9.]+ cm", drawn)]
    assert places and all(
        x == pytest.approx(sheet_mm[0] * MM / 2, abs=0.01)
        or x + page_w == pytest.approx(sheet_mm[0] * MM / 2, abs=0.01)
        for x in places
    )


def test_a_booklet_needs_a5_or_half_letter() -> None:
    with pytest.raises(EditionError):
        impose(numbered_book(4), "b6")
    assert editions.layouts_for("pdf", False, False, 0.1, True) == ["booklet"]
    assert editions.layouts_for("pdf", False, True, 0.1, True) == ["booklet-vertical"]
    with pytest.raises(EditionError):
        editions.layouts_for("pdf", True, False, 0.1, True)
    with pytest.raises(EditionError, match="Japanese"):
        editions.check(sample_state("en", 5), "booklet-vertical")


@needs_poppler
def test_the_chronicles_booklet_holds_every_page_of_its_book(
    book_app: Flask, tmp_path: Path
) -> None:
    from companion.export.book import book_html

    state = sample_state("en", 30)
    with book_app.app_context():
        booklet = editions.make(state, "story", "half-letter", "booklet", STATIC)
        html = book_html(state, "story", "half-letter")
    pages = len(render_document(html, STATIC).pages)
    reader = PdfReader(io.BytesIO(booklet))
    assert len(reader.pages) == 2 * -(-pages // 4)
    text = " ".join(page.extract_text() for page in reader.pages)
    assert state.setup.pioneer in text and "Contents" in text


@pytest.fixture(scope="module")
def book_app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    from conftest import make_app

    return make_app(tmp_path_factory.mktemp("booklet"))
