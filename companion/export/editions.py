"""Every book a chronicle can be made into, by layout: one table that names them and makes them.

A layout is what a book job makes (``LAYOUTS``): the home-printer PDF, the print shop's body and
cover (the cover's layout carries the paper thickness in micrometres, ``cover-100``), the vertical
PDF, the EPUB (horizontal or vertical), the booklet for a home printer (from the home-printer or
the vertical PDF) and the Obsidian vault. The CLI, the worker, the exports page, the API, its
OpenAPI document and ``docs/exports.md`` all read a layout here, so an unknown or impossible one
is refused the same way everywhere (``docs/architecture.md``, "Adding a layout").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from companion.base.languages import writes_vertically

from ..legacy import State
from . import PAPERS, THICKNESS_RANGE_MM
from .booklet import SHEETS
from .contents import EditionError

Progress = Callable[[float, str], None]


class InParts(NamedTuple):
    """A body made in parts: at most this many estimated pages a part, and pages-done reports."""

    part_pages: int
    progress: Callable[[int], None] | None


@dataclass(frozen=True)
class Order:
    """Everything one book is made from; each layout's maker reads what it needs."""

    state: State
    edition: str
    paper: str
    layout: Layout
    static: Path
    progress: Progress | None = None
    body_pages: Callable[[], int | None] | None = None
    key: str = ""
    date: str = ""
    in_parts: InParts | None = None

    @property
    def part_pages(self) -> int:
        return self.in_parts.part_pages if self.in_parts is not None else 0


Maker = Callable[[Order], bytes]


@dataclass(frozen=True)
class Kind:
    """One kind of book: how a request asks for it, its file, its maker and its limits."""

    key: str
    format: str  # what a request names: pdf, epub or vault
    extension: str
    media_type: str
    maker: Maker
    # The request's choices that make it: (print shop, vertical, booklet).
    asked_as: tuple[bool, bool, bool] = (False, False, False)
    needs_chromium: bool = False
    japanese_only: bool = False
    papers: tuple[str, ...] = PAPERS  # the book papers it is made on (a booklet: two a sheet)
    described: str = ""

    @property
    def paged(self) -> bool:
        """Whether the paper is part of the book (not of an EPUB or a vault)."""
        return self.format == "pdf"


def _home(order: Order) -> bytes:
    from .parts import home_book

    return home_book(order.state, order.edition, order.paper, order.static, order.part_pages)


def _print(order: Order) -> bytes:
    from .parts import print_body
    from .print_shop import book_title, print_ready

    pages, report = order.in_parts if order.in_parts is not None else (0, None)
    body = print_body(order.state, order.edition, order.paper, order.static, pages, report)
    return print_ready(body, order.state.setup.language, book_title(order.state))


def _cover(order: Order) -> bytes:
    from .print_shop import make_cover

    assert order.layout.thickness_mm is not None
    pages = _body_pages(order)
    return make_cover(
        order.state, order.edition, order.paper, pages, order.layout.thickness_mm, order.static
    )


def _vertical(order: Order) -> bytes:
    from .vertical import make_vertical

    return make_vertical(order.state, order.edition, order.paper, order.static, order.progress)


def _booklet(order: Order) -> bytes:
    """The home book typeset once, then imposed two pages a side."""
    from .booklet import impose

    return impose(_home(order), order.paper, False)


def _booklet_vertical(order: Order) -> bytes:
    """The vertical book typeset once, then imposed two pages a side, bound on the right."""
    from .booklet import impose

    return impose(_vertical(order), order.paper, True)


def _epub(order: Order) -> bytes:
    from .epub import make_epub

    _print_shop, vertical, _booklet = order.layout.kind.asked_as
    return make_epub(order.state, order.edition, order.static, vertical, order.date, order.key)


def _vault(order: Order) -> bytes:
    from .vault import make_vault

    return make_vault(order.state, order.edition)


PDF, EPUB, ZIP = "application/pdf", "application/epub+zip", "application/zip"
BOOKLET_PAPERS = tuple(SHEETS)  # a home printer's A4 or US Letter takes two a side
# Every layout, in the order the docs and the OpenAPI document list them.
KINDS: dict[str, Kind] = {
    kind.key: kind
    for kind in (
        Kind("book", "pdf", "pdf", PDF, _home, described="the home-printer PDF"),
        Kind("print", "pdf", "pdf", PDF, _print, (True, False, False)),
        Kind("cover", "pdf", "pdf", PDF, _cover, (True, False, False)),
        Kind("vertical", "pdf", "pdf", PDF, _vertical, (False, True, False), True, True),
        Kind("booklet", "pdf", "pdf", PDF, _booklet, (False, False, True), papers=BOOKLET_PAPERS),
        Kind(
            "booklet-vertical",
            "pdf",
            "pdf",
            PDF,
            _booklet_vertical,
            (False, True, True),
            needs_chromium=True,
            japanese_only=True,
            papers=BOOKLET_PAPERS,
        ),  # fmt: skip
        Kind("epub", "epub", "epub", EPUB, _epub),
        Kind(
            "epub-vertical", "epub", "epub", EPUB, _epub, (False, True, False), japanese_only=True
        ),
        Kind("vault", "vault", "zip", ZIP, _vault),
    )
}
LAYOUTS = tuple(KINDS)
FORMATS = tuple(dict.fromkeys(kind.format for kind in KINDS.values()))
COVER = re.compile(r"cover-(\d{2,3})")


@dataclass(frozen=True)
class Layout:
    """A parsed layout: its key, its kind and, for a cover, the paper thickness."""

    key: str
    kind: Kind
    thickness_mm: float | None = None

    @property
    def extension(self) -> str:
        return self.kind.extension

    @property
    def format(self) -> str:
        """The format a request names for this layout: pdf, epub or vault."""
        return self.kind.format

    @property
    def media_type(self) -> str:
        return self.kind.media_type

    @property
    def paged(self) -> bool:
        """Whether the paper is part of the book (not of an EPUB or a vault)."""
        return self.kind.paged


def parse_layout(key: str) -> Layout:
    """The layout named ``key``; EditionError if there is no such layout."""
    from .print_shop import check_thickness

    match = COVER.fullmatch(key)
    if match:
        return Layout(key, KINDS["cover"], check_thickness(int(match.group(1)) / 1000))
    if key in KINDS and key != "cover":
        return Layout(key, KINDS[key])
    raise EditionError(f"unknown layout {key!r}")


def needs_chromium(layouts: list[str]) -> bool:
    """Whether any of these layouts is printed by Chromium (the vertical books)."""
    return any(parse_layout(layout).kind.needs_chromium for layout in layouts)


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
    asked = (print_shop, vertical, booklet)
    found = [k.key for k in KINDS.values() if k.format == fmt and k.asked_as == asked]
    if not found:
        ways = [_way(k.asked_as) for k in KINDS.values() if k.format == fmt]
        raise EditionError(
            f"no {fmt} book is made that way (ways: {', '.join(dict.fromkeys(ways))})"
        )
    return [cover_layout(thickness_mm) if key == "cover" else key for key in found]


def _way(asked_as: tuple[bool, bool, bool]) -> str:
    words = ("print shop", "vertical", "booklet")
    return " ".join(w for w, on in zip(words, asked_as, strict=True) if on) or "plain"


def check(state: State, layout: str, paper: str | None = None) -> None:
    """Refuse a layout this chronicle cannot have (vertical books are Japanese only), or a
    booklet on a paper no home printer takes two of a side."""
    kind = parse_layout(layout).kind
    if kind.japanese_only and not writes_vertically(state.setup.language):
        raise EditionError("the vertical edition is for Japanese chronicles only")
    if paper is not None and paper not in kind.papers:
        raise EditionError(
            f"a {kind.key} is made on {' or '.join(kind.papers)} paper, not on {paper}"
        )


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
    """The book in any layout, by its kind's maker; EditionError for a layout there is not.

    ``in_parts``: the print shop's body (and the home book) are made in parts (``parts.py``).
    """
    parsed = parse_layout(layout)
    check(state, layout, paper)
    order = Order(state, edition, paper, parsed, static, progress, body_pages, key, date, in_parts)
    return parsed.kind.maker(order)


def _body_pages(order: Order) -> int:
    """The body's page count: from the body already made if there is one, else laid out now."""
    pages = order.body_pages() if order.body_pages is not None else None
    if pages is None:
        from .book import book_html
        from .parts import needs_parts, print_body
        from .print_shop import BLEED_MM, page_count, print_document

        state, edition, paper, static = order.state, order.edition, order.paper, order.static
        html = book_html(state, edition, paper, BLEED_MM)
        if needs_parts(html, paper, order.part_pages):
            pages = page_count(print_body(state, edition, paper, static, order.part_pages))
        else:
            pages = len(print_document(state, edition, paper, static).pages)
    return pages
