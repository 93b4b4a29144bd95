"""The print shop's files: the body with bleed and crop marks, and the cover as one spread.

The body is the ordinary book typeset with a 3 mm bleed (WeasyPrint writes TrimBox and BleedBox),
padded with blank pages to a multiple of four, then given a wider MediaBox holding Japanese-style
crop marks (トンボ: a double corner mark at the trim and at the bleed, and a centre mark on each
edge), all outside the bleed so nothing of them is printed on the book. The cover is front, spine
and back on one page whose spine width follows the body's page count and the paper's thickness.
"""

from __future__ import annotations

import io
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import render_template
from flask_babel import force_locale

from ..legacy import State
from . import DEFAULT_THICKNESS_MM, THICKNESS_RANGE_MM
from .book import Paper, book_html, paper_for, render_document, told_by
from .contents import EditionError, contents
from .typeset import finish, isolate, passes_for, printable

if TYPE_CHECKING:
    from weasyprint import Document

BLEED_MM = 3
SLUG_MM = 13  # the MediaBox reaches this far beyond the trim: the bleed, then the marks
MARK_MM = 9  # length of a corner mark's lines
MM = 72 / 25.4
MIN_SPINE_TEXT_MM = 4  # narrower spines carry no title (binding can shift the spine 1 mm)
LAID_OUT_BLANK = '<!doctype html><html><head><style>@page {{ size: {size}; bleed: {bleed}mm; margin: 0 }}</style></head><body><div style="break-after: page"></div>{pages}</body></html>'  # noqa: E501


def check_thickness(thickness_mm: float) -> float:
    """The paper thickness, if a paper could be that thick; EditionError otherwise."""
    low, high = THICKNESS_RANGE_MM
    if not low <= thickness_mm <= high:
        raise EditionError(f"paper thickness {thickness_mm!r} mm: use {low} to {high} mm")
    return thickness_mm


def padded_count(pages: int) -> int:
    """The page count rounded up to a multiple of four (one sheet folds into four pages)."""
    return -(-pages // 4) * 4


def spine_width_mm(pages: int, thickness_mm: float = DEFAULT_THICKNESS_MM) -> float:
    """The spine of a perfect-bound book: its leaves (two pages each) times the paper's thickness."""
    return round(padded_count(pages) / 2 * check_thickness(thickness_mm), 1)


def print_document(state: State, edition: str, paper: str, static: Path) -> Document:
    """The body laid out with bleed and padded with blank pages to a multiple of four."""
    document = render_document(book_html(state, edition, paper, BLEED_MM), static)
    missing = padded_count(len(document.pages)) - len(document.pages)
    if missing:
        document = document.copy([*document.pages, *blank_pages(paper, missing, static)])
    return document


def blank_pages(paper: str, count: int, static: Path) -> list[Any]:
    """``count`` blank pages of ``paper`` with the print shop's bleed, laid out."""
    if count <= 0:
        return []
    size = paper_for(paper).size
    blank_html = LAID_OUT_BLANK.format(
        size=size, bleed=BLEED_MM, pages='<div style="break-after: page"></div>' * count
    )
    return list(render_document(blank_html, static).pages[:count])


def make_print_book(state: State, edition: str, paper: str, static: Path) -> bytes:
    """The print shop's body PDF (PDF/X-1a:2001), laid out as one document."""
    pdf: bytes = print_document(state, edition, paper, static).write_pdf()
    return print_ready(pdf, state.setup.language, book_title(state))


def book_title(state: State) -> str:
    """The book's title in its language, for the file's metadata."""
    from flask_babel import gettext as _

    with force_locale(state.setup.language):
        return printable(str(_("The life of %(name)s", name=state.setup.pioneer)))


def print_ready(pdf: bytes, language: str, title: str) -> bytes:
    """Crop marks drawn beyond the bleed, and the file made PDF/X-1a:2001 (``pdfx``)."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import (
        ArrayObject,
        DecodedStreamObject,
        DictionaryObject,
        NameObject,
        RectangleObject,
    )

    from .pdfx import REGISTRATION, make_pdfx, registration_space

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf)))
    registration = registration_space(writer)
    for page in writer.pages:
        if "/Resources" not in page:
            page[NameObject("/Resources")] = DictionaryObject()
        resources: Any = page["/Resources"].get_object()
        if "/ColorSpace" not in resources:
            resources[NameObject("/ColorSpace")] = DictionaryObject()
        resources["/ColorSpace"].get_object()[NameObject(REGISTRATION)] = registration
        trim = [float(value) for value in page.trimbox]
        slug = SLUG_MM * MM
        media = RectangleObject([trim[0] - slug, trim[1] - slug, trim[2] + slug, trim[3] + slug])
        page.mediabox = media
        page.cropbox = media
        marks = DecodedStreamObject()
        marks.set_data(crop_marks(*trim).encode("ascii"))
        before = DecodedStreamObject()
        before.set_data(b"q\n")
        # The page's own streams by reference: a stream written inline in the array is no PDF.
        contents: Any = page.raw_get("/Contents")
        resolved = contents.get_object()
        existing = list(resolved) if isinstance(resolved, ArrayObject) else [contents]
        refs = [writer._add_object(before), *existing, writer._add_object(marks)]
        page[NameObject("/Contents")] = ArrayObject(refs)
    make_pdfx(writer, language, title)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def crop_marks(left: float, bottom: float, right: float, top: float) -> str:
    """PDF drawing operators for トンボ around the trim box (in points)."""
    bleed, length = BLEED_MM * MM, MARK_MM * MM
    lines: list[tuple[float, float, float, float]] = []
    for x, y, sx, sy in ((left, bottom, -1, -1), (right, bottom, 1, -1)) + (
        (left, top, -1, 1),
        (right, top, 1, 1),
    ):
        for offset in (0, bleed):  # the inner mark at the trim, the outer at the bleed
            start, end = bleed, bleed + length
            lines.append((x + sx * start, y + sy * offset, x + sx * end, y + sy * offset))
            lines.append((x + sx * offset, y + sy * start, x + sx * offset, y + sy * end))
    middle_x, middle_y = (left + right) / 2, (bottom + top) / 2
    for y, sy in ((bottom, -1), (top, 1)):
        lines.append((middle_x, y + sy * bleed, middle_x, y + sy * (bleed + length)))
        mark_y = y + sy * (bleed + length / 2)
        lines.append((middle_x - length / 2, mark_y, middle_x + length / 2, mark_y))
    for x, sx in ((left, -1), (right, 1)):
        lines.append((x + sx * bleed, middle_y, x + sx * (bleed + length), middle_y))
        mark_x = x + sx * (bleed + length / 2)
        lines.append((mark_x, middle_y - length / 2, mark_x, middle_y + length / 2))
    # Registration colour (every plate, /Separation /All) in a hairline, as print shops expect
    # of trim marks.
    path = "".join(f"{a:.2f} {b:.2f} m {c:.2f} {d:.2f} l S\n" for a, b, c, d in lines)
    return f"Q q 0.25 w /Reg CS 1 SCN\n{path}Q\n"


@dataclass(frozen=True)
class Cover:
    """The cover spread's measurements in millimetres."""

    paper: Paper
    pages: int
    thickness_mm: float

    @property
    def spine_mm(self) -> float:
        return spine_width_mm(self.pages, self.thickness_mm)

    @property
    def width_mm(self) -> float:
        return round(2 * self.paper.width_mm + self.spine_mm, 1)

    @property
    def spine_title(self) -> bool:
        return self.spine_mm >= MIN_SPINE_TEXT_MM


def cover_html(state: State, edition: str, paper: str, pages: int, thickness_mm: float) -> str:
    """The cover spread (back, spine, front) as HTML, in the chronicle's language."""
    book = contents(state, edition)
    cover = Cover(paper_for(paper), pages, thickness_mm)
    with force_locale(book.language):
        html = render_template(
            "book/cover.html",
            book=book,
            setup=state.setup,
            cover=cover,
            bleed_mm=BLEED_MM,
            spine_chars=spine_characters(state.setup.pioneer),
            isolate=isolate,
            told_by=told_by(state),
        )
    return finish(html, passes_for(book.language))


# Characters that lie on their side in vertical Japanese: turned a quarter to stand in the column.
TURNED = set("ー－—―〜～…‥()（）「」『』[]［］-")


# Invisible characters that open a bidirectional run: they go with the character after them.
OPENERS = set("\u202a\u202b\u202d\u202e\u2066\u2067\u2068")
SKIN_TONES = set("\U0001f3fb\U0001f3fc\U0001f3fd\U0001f3fe\U0001f3ff")


def spine_characters(title: str) -> list[tuple[str, bool]]:
    """The title's characters top to bottom, each with whether it must be turned upright.

    The title is isolated like every name in the books (``isolate``). Each visible character is
    a cell of its own; the invisible ones (the isolates and overrides, joiners, variation
    selectors, combining marks, skin tones) go into the cell beside them: no cell is empty.
    """
    cells: list[str] = []
    prefix = ""
    for char in isolate(title):
        if char.isspace():
            continue
        invisible = unicodedata.category(char) in ("Cf", "Mn", "Me") or char in SKIN_TONES
        if char in OPENERS or (invisible and not cells):
            prefix += char
        elif invisible or (cells and cells[-1].endswith("\u200d")):
            cells[-1] += char  # a joined emoji sequence stays in one cell too
        else:
            cells.append(prefix + char)
            prefix = ""
    if prefix and cells:
        cells[-1] += prefix
    return [(cell, any(char in TURNED for char in cell)) for cell in cells]


def make_cover(
    state: State, edition: str, paper: str, pages: int, thickness_mm: float, static: Path
) -> bytes:
    """The print shop's cover PDF, with bleed and crop marks like the body."""
    html = cover_html(state, edition, paper, pages, thickness_mm)
    pdf = render_document(html, static).write_pdf()
    return print_ready(pdf, state.setup.language, book_title(state))


def page_count(pdf: bytes) -> int:
    """How many pages a PDF has."""
    from pypdf import PdfReader

    return len(PdfReader(io.BytesIO(pdf)).pages)
