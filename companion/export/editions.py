"""Every book a chronicle can be made into, by layout: one place that names them and makes them.

A layout is what a book job makes (``LAYOUTS``): the home-printer PDF, the print shop's body and
cover (the cover's layout carries the paper thickness in micrometres, ``cover-100``), the vertical
PDF and the EPUB, horizontal or vertical. The CLI, the worker, the exports page and the API all
read a layout here, so an unknown or impossible one is refused the same way everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..languages import writes_vertically
from ..legacy import State
from . import LAYOUTS, THICKNESS_RANGE_MM
from .contents import EditionError

Progress = Callable[[float, str], None]
JAPANESE_ONLY = ("vertical", "epub-vertical")
COVER = re.compile(r"cover-(\d{2,3})")


@dataclass(frozen=True)
class Layout:
    """A parsed layout: its kind, and the paper thickness for a cover."""

    key: str
    kind: str
    thickness_mm: float | None = None

    @property
    def extension(self) -> str:
        return "epub" if self.kind.startswith("epub") else "pdf"

    @property
    def media_type(self) -> str:
        return "application/epub+zip" if self.extension == "epub" else "application/pdf"


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


def layouts_for(fmt: str, print_shop: bool, vertical: bool, thickness_mm: float) -> list[str]:
    """The jobs one request makes: the print shop's body and cover, or a single book."""
    if fmt == "epub":
        return ["epub-vertical" if vertical else "epub"]
    if print_shop and vertical:
        raise EditionError("the print shop's edition is horizontal; the vertical one is not")
    if print_shop:
        return ["print", cover_layout(thickness_mm)]
    return ["vertical" if vertical else "book"]


def check(state: State, layout: str) -> None:
    """Refuse a layout this chronicle cannot have (vertical books are Japanese only)."""
    if parse_layout(layout).kind in JAPANESE_ONLY and not writes_vertically(state.setup.language):
        raise EditionError("the vertical edition is for Japanese chronicles only")


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
) -> bytes:
    """The book in any layout but the home-printer PDF (``book.make_book``)."""
    parsed = parse_layout(layout)
    check(state, layout)
    if parsed.kind == "print":
        from .print_shop import make_print_book

        return make_print_book(state, edition, paper, static)
    if parsed.kind == "cover":
        from .print_shop import make_cover

        assert parsed.thickness_mm is not None
        pages = _body_pages(state, edition, paper, static, body_pages)
        return make_cover(state, edition, paper, pages, parsed.thickness_mm, static)
    if parsed.kind == "vertical":
        from .vertical import make_vertical

        return make_vertical(state, edition, paper, static, progress)
    from .epub import make_epub

    return make_epub(state, edition, static, parsed.kind == "epub-vertical", date, key)


def _body_pages(
    state: State, edition: str, paper: str, static: Path, known: Callable[[], int | None] | None
) -> int:
    """The body's page count: from the body already made if there is one, else laid out now."""
    pages = known() if known is not None else None
    if pages is None:
        from .print_shop import print_document

        pages = len(print_document(state, edition, paper, static).pages)
    return pages
