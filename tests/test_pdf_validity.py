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

from companion.base.paths import CHECKOUT as ROOT
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
    """A PDF of every layout on every paper it can take, each layout in both languages it has
    and in both editions (alternating down the papers, so each pair of a layout with a paper, a
    language or an edition is made at least once, without making every combination)."""
    cases = []
    for layout in ("book", "print", "cover-100", "cover-300", "booklet", "vertical",
                   "booklet-vertical"):  # fmt: skip
        papers = [paper for paper in PAPERS if paper in SHEETS or "booklet" not in layout]
        languages = ("ja",) if "vertical" in layout else ("ja", "en")
        for n, paper in enumerate(papers):
            language = languages[n % len(languages)]
            edition = ("story", "annotated")[(n // len(languages) + n % len(languages)) % 2]
            cases.append((layout, language, edition, paper))
    return cases


def test_the_slow_lane_makes_every_layout_paper_language_and_edition() -> None:
    cases = every_pdf()
    layouts = {case[0] for case in cases}
    for layout in layouts:
        mine = [case for case in cases if case[0] == layout]
        assert {case[2] for case in mine} == {"story", "annotated"}, layout
        assert {case[1] for case in mine} == ({"ja"} if "vertical" in layout else {"ja", "en"})
        booklet = "booklet" in layout
        assert {case[3] for case in mine} == {p for p in PAPERS if p in SHEETS or not booklet}


@needs_qpdf
@needs_chromium
@pytest.mark.slow  # about 40 books
@pytest.mark.parametrize(("layout", "language", "edition", "paper"), every_pdf())
def test_every_pdf_of_every_edition_passes_qpdf(
    made: Callable[..., bytes], tmp_path: Path, layout: str, language: str, edition: str, paper: str
) -> None:
    assert_valid(tmp_path, made(layout, language, edition, paper))
