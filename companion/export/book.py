"""The PDF book: the story as HTML in the chronicle's language, typeset by WeasyPrint.

``book_html`` needs a Flask app context (templates and translations); ``render_book`` needs
nothing but the HTML and the static folder, so a worker process or a benchmark can call it.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from flask import current_app, render_template
from flask_babel import force_locale
from flask_babel import gettext as _
from markupsafe import Markup

from companion.text.story import life_timeline
from companion.text.terms import stage_name

from ..legacy import State
from . import PAPERS
from .contents import Contents, EditionError, contents
from .fetcher import StaticFetcher
from .typeset import finish, isolate, passes_for, printable

if TYPE_CHECKING:
    from weasyprint import Document


@dataclass(frozen=True)
class Paper:
    """A page size with its margins (top, outer, bottom, inner) and the body type size."""

    key: str
    width_mm: float
    height_mm: float
    margins_mm: tuple[int, int, int, int]
    font_pt: float

    @property
    def size(self) -> str:
        return f"{self.width_mm}mm {self.height_mm}mm"


# B6 is the Japanese (JIS) B6 of 128 x 182 mm that Japanese books use, not ISO B6 (125 x 176).
PAPER_SIZES = {
    "a5": Paper("a5", 148, 210, (16, 14, 18, 17), 9.5),
    "a4": Paper("a4", 210, 297, (22, 22, 24, 26), 11),
    "b6": Paper("b6", 128, 182, (14, 12, 16, 15), 9),
    # A6 is the size of a Japanese bunko; shinsho is the 103 x 182 mm of a Japanese shinsho.
    "a6": Paper("a6", 105, 148, (12, 10, 14, 13), 8.5),
    "shinsho": Paper("shinsho", 103, 182, (14, 10, 16, 13), 8.5),
    # Half of a US Letter sheet (5.5 x 8.5 in), the American booklet's page.
    "half-letter": Paper("half-letter", 139.7, 215.9, (16, 14, 18, 17), 9.5),
}
assert set(PAPER_SIZES) == set(PAPERS)


class _IgnoredLineBreak(logging.Filter):
    """WeasyPrint has no ``line-break`` property (Pango already breaks Japanese strictly)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "line-break" not in record.getMessage()


logging.getLogger("weasyprint").addFilter(_IgnoredLineBreak())


def paper_for(key: str) -> Paper:
    """The paper named ``key`` (a5, a4, b6, a6, shinsho or half-letter)."""
    try:
        return PAPER_SIZES[key]
    except KeyError:
        raise EditionError(f"unknown paper {key!r}: use {', '.join(PAPERS)}") from None


def static_dir() -> Path:
    """The application's static folder, the only place a book loads files from."""
    return Path(current_app.static_folder or "static").resolve()


def book_html(
    state: State,
    edition: str,
    paper: str,
    bleed_mm: int = 0,
    vertical: bool = False,
    toc_pages: Mapping[str, str] | None = None,
    sections: Collection[str] | None = None,
    first_folio: int | None = None,
    lead: int = 0,
) -> str:
    """The book as one HTML document, in the chronicle's language.

    ``bleed_mm`` is for the print shop's edition; ``vertical`` lays it out for Chromium in
    vertical Japanese (``vertical.py``). The contents show ``toc_pages`` (anchor: page) when
    given. A part of a book made in parts (``parts.py``) holds only ``sections`` ("front" for
    the cover and contents, or section anchors), numbers its first page ``first_folio`` and
    opens with ``lead`` blank pages that put its first page on the right side.
    """
    book = contents(state, edition)
    size = paper_for(paper)
    with force_locale(book.language):
        html = render_template(
            "book/book.html",
            book=book,
            state=state,
            setup=state.setup,
            paper=size,
            bleed_mm=bleed_mm,
            vertical=vertical,
            dice_as_text=vertical,
            css_string=css_string,
            running_heads=running_heads,
            toc_pages=toc_pages or {},
            shown=lambda name: sections is None or name in sections,
            first_folio=first_folio,
            lead=lead,
            timeline=_timeline(state),
            isolate=isolate,
            told_by=told_by(state),
        )
    return finish(html, passes_for(book.language, kenten=not vertical))


def told_by(state: State) -> str:
    """The players in seating order, each name isolated, joined as the language joins a list."""
    from companion.text.wording import join_list

    return join_list([isolate(player) for player in state.setup.players])


def running_heads(book: Contents, state: State) -> list[tuple[str, str]]:
    """Each part of the body after the contents, as (page name, its running head)."""
    heads = [(f"stage-{c.stage.index}", stage_name(c.stage.index)) for c in book.chapters]
    if state.epilogue:
        heads.append(("epilogue", _("Epilogue")))
    heads.append(("timeline", _("The life at a glance")))
    heads.append(("keystones", _("Keystones")))
    return heads


def css_string(text: str) -> Markup:
    """``text`` as the inside of a CSS string: every character but ASCII letters and digits escaped.

    Names typed by players go into the stylesheet's running heads; escaping all else means no
    quote, backslash or ``</style>`` can leave the string.
    """
    escaped = "".join(
        c if c.isascii() and c.isalnum() else f"\\{ord(c):x} " for c in printable(text)
    )
    return Markup(escaped)  # noqa: S704


def _timeline(state: State) -> Markup:
    title = _("The life of %(name)s", name=state.setup.pioneer)
    # The picture names the bundled IPAexGothic face, which the book embeds.
    return life_timeline(state, [stage_name(i) for i in range(4)], title)


def render_book(html: str, static: Path) -> bytes:
    """Typeset ``html`` as PDF, loading only files under ``static`` (fonts, stylesheet)."""
    pdf: bytes = render_document(html, static).write_pdf()
    return pdf


def render_document(html: str, static: Path) -> Document:
    """The laid-out WeasyPrint document, for writing as PDF or inspecting its pages."""
    from weasyprint import HTML

    fetcher = StaticFetcher(static)
    base_url = static.resolve().as_uri() + "/"
    return HTML(string=html, base_url=base_url, url_fetcher=fetcher).render()


def make_book(state: State, edition: str, paper: str) -> bytes:
    """The PDF book of ``state``: HTML from the templates, then WeasyPrint."""
    return render_book(book_html(state, edition, paper), static_dir())
