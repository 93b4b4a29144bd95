"""Every PDF the app makes is a valid file: qpdf reads each object of it without a warning, and
no two font programs share a subset tag. The quick lane makes one of each layout; the slow lane
every edition, paper and language a chronicle can ask for."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from flask import Flask
from pdf_checks import needs_qpdf, qpdf_warnings, shared_subset_tags
from test_export_pdf import sample_state

from companion import ROOT
from companion.export import PAPERS, editions
from companion.export.book import book_html, render_book
from companion.export.booklet import SHEETS
from companion.export.vertical import chromium_path

STATIC = ROOT / "static"
needs_chromium = pytest.mark.skipif(chromium_path() is None, reason="Chromium is not installed")


@pytest.fixture(scope="module")
def pdf_app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    from conftest import make_app

    return make_app(tmp_path_factory.mktemp("validity"))


@pytest.fixture(scope="module")
def made(pdf_app: Flask) -> Callable[[str, str, str, str], bytes]:
    """A PDF of the sample life, made once per module: (layout, language, edition, paper)."""

    @cache
    def make(layout: str, language: str, edition: str, paper: str) -> bytes:
        state = sample_state(language)
        with pdf_app.app_context():
            if layout == "book":
                return render_book(book_html(state, edition, paper), STATIC)
            return editions.make(state, edition, paper, layout, STATIC, key="t", date="2024-05-01")

    return make


def assert_valid(tmp_path: Path, data: bytes) -> None:
    assert data.startswith(b"%PDF-")
    assert qpdf_warnings(tmp_path, data) == []
    assert shared_subset_tags(data) == {}


QUICK = [
    ("book", "ja", "annotated", "a5"),
    ("book", "en", "story", "a6"),
    ("print", "ja", "annotated", "a5"),
    ("print", "en", "story", "b6"),
    ("cover-100", "ja", "annotated", "a5"),
    ("cover-100", "en", "story", "b6"),
    ("booklet", "en", "annotated", "half-letter"),
]


@needs_qpdf
@pytest.mark.parametrize(("layout", "language", "edition", "paper"), QUICK)
def test_each_layout_passes_qpdf(
    made: Callable[..., bytes], tmp_path: Path, layout: str, language: str, edition: str, paper: str
) -> None:
    assert_valid(tmp_path, made(layout, language, edition, paper))


@needs_qpdf
@needs_chromium
@pytest.mark.parametrize("layout", ["vertical", "booklet-vertical"])
def test_the_vertical_books_pass_qpdf_with_a_tag_per_subset(
    made: Callable[..., bytes], tmp_path: Path, layout: str
) -> None:
    # The front matter is printed twice and merged: its subsets are renamed, never shared.
    assert_valid(tmp_path, made(layout, "ja", "annotated", "a5"))


def every_pdf() -> list[tuple[str, str, str, str]]:
    """Every PDF a chronicle of the sample lives can be made into."""
    cases = []
    for language in ("ja", "en"):
        for edition in ("story", "annotated"):
            for paper in PAPERS:
                layouts = ["book", "print", "cover-100", "cover-300"]
                if paper in SHEETS:
                    layouts.append("booklet")
                if language == "ja":
                    layouts.append("vertical")
                    if paper in SHEETS:
                        layouts.append("booklet-vertical")
                cases += [(layout, language, edition, paper) for layout in layouts]
    return cases


@needs_qpdf
@needs_chromium
@pytest.mark.slow  # about 90 books
@pytest.mark.parametrize(("layout", "language", "edition", "paper"), every_pdf())
def test_every_pdf_of_every_edition_passes_qpdf(
    made: Callable[..., bytes], tmp_path: Path, layout: str, language: str, edition: str, paper: str
) -> None:
    assert_valid(tmp_path, made(layout, language, edition, paper))
