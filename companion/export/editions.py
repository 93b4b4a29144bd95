"""Every book a chronicle can be made into, by layout: one place that names them and makes them.

A layout is what a book job makes (``LAYOUTS``): the home-printer PDF, the print shop's body and
cover (the cover's layout carries the paper thickness in micrometres, ``cover-100``), the vertical
PDF, the EPUB (horizontal or vertical), the booklet for a home printer (from the home-printer or
the vertical PDF) and the Obsidian vault. The CLI, the worker, the exports page and the API all
read a layout here, so an unknown or impossible one is refused the same way everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from companion.base.languages import writes_vertically

from ..legacy import State
from . import LAYOUTS, THICKNESS_RANGE_MM
from .contents import EditionError

Progress = Callable[[float, str], None]


class InParts(NamedTuple):
    """A body made in parts: at most this many estimated pages a part, and pages-done reports."""

    part_pages: int
    progress: Callable[[int], None] | None


JAPANESE_ONLY = ("vertical", "epub-vertical", "booklet-vertical")
BOOKLETS = ("booklet", "booklet-vertical")
COVER = re.compile(r"cover-(\d{2,3})")


@dataclass(frozen=True)
class Layout:
    """A parsed layout: its kind, and the paper thickness for a cover."""

    key: str
    kind: str
    thickness_mm: float | None = None

    @property
    def extension(self) -> str:
        if self.kind == "vault":
            return "zip"
        return "epub" if self.kind.startswith("epub") else "pdf"

    @property
    def format(self) -> str:
        """The format a request names for this layout: pdf, epub or vault."""
        return "vault" if self.kind == "vault" else self.extension

    @property
    def media_type(self) -> str:
        return {"epub": "application/epub+zip", "zip": "application/zip"}.get(
            self.extension, "application/pdf"
        )

    @property
    def paged(self) -> bool:
        """Whether the paper is part of the book (not of an EPUB or a vault)."""
        return self.extension == "pdf"


def parse_layout(key: str) -> Layout:
    """The layout named ``key``; EditionError if there is no such layout."""
    from .print_shop import check_thickness

    match = COVER.fullmatch(key)
    if match:
        return Layout(key, "cover", check_thickness(int(match.group(1)) / 1000))
    if key in LAYOUTS and key != "cover":
        return Layout(key, key)
    raise EditionError(f"unknown layout {key!r}")


def cover_layout(thickness_mm: float) -> str:
    """The cover's layout for a paper of this thickness, named in micrometres."""
    from .print_shop import check_thickness

    return f"cover-{round(check_thickness(thickness_mm) * 1000)}"


def same_cover(layout: str, pages: int) -> str:
    """The cover as a printer would cut it for a body of ``pages``: to a tenth of a millimetre.

    Papers whose spines round to the same width make the same cover, so they share one job
    (that of the thinnest such paper): one version has a cover per width, not per micrometre.
    """
    from .print_shop import spine_width_mm

    parsed = parse_layout(layout)
    if parsed.thickness_mm is None:
        return layout
    spine = spine_width_mm(pages, parsed.thickness_mm)
    low, high = (round(mm * 1000) for mm in THICKNESS_RANGE_MM)
    for micrometres in range(low, high + 1):
        if spine_width_mm(pages, micrometres / 1000) == spine:
            return f"cover-{micrometres}"
    return layout


def layouts_for(
    fmt: str, print_shop: bool, vertical: bool, thickness_mm: float, booklet: bool = False
) -> list[str]:
    """The jobs one request makes: the print shop's body and cover, or a single book."""
    if fmt == "vault":
        if print_shop or vertical or booklet:
            raise EditionError("the vault is made one way only")
        return ["vault"]
    if fmt == "epub":
        if print_shop or booklet:
            raise EditionError("an EPUB has no print shop's edition nor booklet")
        return ["epub-vertical" if vertical else "epub"]
    if booklet:
        if print_shop:
            raise EditionError("a booklet is printed at home, not by a print shop")
        return ["booklet-vertical" if vertical else "booklet"]
    if print_shop and vertical:
        raise EditionError("the print shop's edition is horizontal; the vertical one is not")
    if print_shop:
        return ["print", cover_layout(thickness_mm)]
    return ["vertical" if vertical else "book"]


def check(state: State, layout: str, paper: str | None = None) -> None:
    """Refuse a layout this chronicle cannot have (vertical books are Japanese only), or a
    booklet on a paper no home printer takes two of a side."""
    kind = parse_layout(layout).kind
    if kind in JAPANESE_ONLY and not writes_vertically(state.setup.language):
        raise EditionError("the vertical edition is for Japanese chronicles only")
    if kind in BOOKLETS and paper is not None:
        from .booklet import check_paper

        check_paper(paper)


def make(
    state: State,
    edition: str,
    paper: str,
    layout: str,
    static: Path,
    progress: Progress | None = None,
    body_pages: Callable[[], int | None] | None = None,
    key: str = "",
    date: str = "",
    in_parts: InParts | None = None,
) -> bytes:
    """The book in any layout but the home-printer PDF (``book.make_book``).

    ``in_parts``: the print shop's body is made in parts (``parts.py``).
    """
    parsed = parse_layout(layout)
    check(state, layout, paper)
    if parsed.kind == "print":
        from .parts import print_body
        from .print_shop import book_title, print_ready

        pages, report = in_parts if in_parts is not None else (0, None)
        body = print_body(state, edition, paper, static, pages, report)
        return print_ready(body, state.setup.language, book_title(state))
    if parsed.kind == "cover":
        from .print_shop import make_cover

        assert parsed.thickness_mm is not None
        pages = _body_pages(state, edition, paper, static, body_pages, in_parts)
        return make_cover(state, edition, paper, pages, parsed.thickness_mm, static)
    if parsed.kind == "vertical":
        from .vertical import make_vertical

        return make_vertical(state, edition, paper, static, progress)
    if parsed.kind in BOOKLETS:
        vertical = parsed.kind == "booklet-vertical"
        return _booklet(state, edition, paper, static, vertical, progress, in_parts)
    if parsed.kind == "vault":
        from .vault import make_vault

        return make_vault(state, edition)
    from .epub import make_epub

    return make_epub(state, edition, static, parsed.kind == "epub-vertical", date, key)


def _booklet(
    state: State,
    edition: str,
    paper: str,
    static: Path,
    vertical: bool,
    progress: Progress | None,
    in_parts: InParts | None = None,
) -> bytes:
    """The home book (or the vertical one) typeset once, then imposed two pages a side."""
    from .booklet import impose

    if vertical:
        from .vertical import make_vertical

        return impose(make_vertical(state, edition, paper, static, progress), paper, True)
    from .parts import home_book

    part_pages = in_parts.part_pages if in_parts is not None else 0
    return impose(home_book(state, edition, paper, static, part_pages), paper, False)


def _body_pages(
    state: State,
    edition: str,
    paper: str,
    static: Path,
    known: Callable[[], int | None] | None,
    in_parts: InParts | None = None,
) -> int:
    """The body's page count: from the body already made if there is one, else laid out now."""
    pages = known() if known is not None else None
    if pages is None:
        from .book import book_html
        from .parts import needs_parts, print_body
        from .print_shop import BLEED_MM, page_count, print_document

        part_pages = in_parts.part_pages if in_parts is not None else 0
        if needs_parts(book_html(state, edition, paper, BLEED_MM), paper, part_pages):
            pages = page_count(print_body(state, edition, paper, static, part_pages))
        else:
            pages = len(print_document(state, edition, paper, static).pages)
    return pages
