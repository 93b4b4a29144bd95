"""A long book made in parts, so that no process holds the layout of the whole book.

WeasyPrint keeps every page of a document laid out until it writes the PDF: the largest legal
life (about 700 A5 pages) peaks near 1 GB in one document. A book whose text fills more than
``EXPORT_PART_PAGES`` pages is made in parts instead, each a run of whole chapters (the last
with the epilogue, the timeline and the appendix), each laid out in a fresh process that exits
once its pages are written, so one part's memory is given back before the next is laid out:

1. the front matter (the cover and the contents) is laid out with numbers as wide as the book's
   widest in its contents, to learn how many pages it takes;
2. each part is numbered from the page after the last one before it (``counter-reset: page N``
   on its first page; one or two blank lead pages, dropped once laid out, put that page on the
   side it has in the book) and records the page each of its sections opens on;
3. the front matter again, its contents holding those numbers;
4. pypdf joins them: one outline made of the parts' bookmarks, the contents' links pointing at
   the sections' pages, and each part's font subsets given tags of their own (WeasyPrint names
   a subset after its font, not its glyphs, so every part's would share one name).

A book that fits stays one document, laid out exactly as before.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..legacy import State
from . import text_pages
from .contents import contents

if TYPE_CHECKING:
    from pypdf import PdfReader, PdfWriter

BACK = ("epilogue", "timeline", "keystones")
PLACEHOLDER_DIGIT = "8"  # the widest digit of the book's faces, near enough
PX_TO_PT = 0.75

Progress = Callable[[int], None]


class PartFailedError(RuntimeError):
    """A part's process stopped without giving back its pages."""


@dataclass(frozen=True)
class Laid:
    """One part as laid out: its PDF, how many pages, where its sections open, its links."""

    pdf: bytes
    pages: int
    anchors: dict[str, int]  # section anchor: page number in the book
    links: list[tuple[int, str, tuple[float, float, float, float]]] = field(default_factory=list)


def section_names(state: State, edition: str) -> list[str]:
    """The anchors of the book's sections after the front matter, in order."""
    book = contents(state, edition)
    names = [f"stage-{chapter.stage.index}" for chapter in book.chapters]
    return names + [name for name in BACK if name != "epilogue" or state.epilogue]


def estimated_pages(html: str, paper: str) -> float:
    """About how many pages the text of ``html`` fills (tags and pictures left out)."""
    import re

    text = re.sub(r"<svg.*?</svg>|<head>.*?</head>|<[^>]+>|\s+", "", html, flags=re.S)
    return text_pages(text, paper)


def plan(sizes: Sequence[tuple[str, float]], part_pages: int) -> list[list[str]]:
    """Sections grouped into parts of at most ``part_pages`` estimated pages, in order.

    A chapter is never split (one longer than a part is a part of its own); the sections after
    the chapters go with the last chapter's part when they fit there.
    """
    parts: list[list[str]] = []
    total = 0.0
    for name, pages in sizes:
        if parts and total + pages <= part_pages:
            parts[-1].append(name)
            total += pages
        else:
            parts.append([name])
            total = pages
    return parts


def needs_parts(html: str, paper: str, part_pages: int | None) -> bool:
    """Whether a book of this HTML is made in parts (never when ``part_pages`` is None or 0)."""
    return bool(part_pages) and estimated_pages(html, paper) > (part_pages or 0)


def home_book(
    state: State,
    edition: str,
    paper: str,
    static: Path,
    part_pages: int = 0,
    progress: Progress | None = None,
) -> bytes:
    """The home-printer PDF: one document, or in parts when longer than ``part_pages``."""
    from .book import book_html, render_book

    html = book_html(state, edition, paper)
    if needs_parts(html, paper, part_pages):
        return make_in_parts(state, edition, paper, static, part_pages, progress=progress)
    return render_book(html, static)


def print_body(
    state: State,
    edition: str,
    paper: str,
    static: Path,
    part_pages: int = 0,
    progress: Progress | None = None,
) -> bytes:
    """The print shop's body with bleed, padded to a multiple of four pages, before its marks
    and PDF/X: one document, or in parts when longer than ``part_pages``."""
    from .book import book_html
    from .print_shop import BLEED_MM, print_document

    if needs_parts(book_html(state, edition, paper, BLEED_MM), paper, part_pages):
        return make_in_parts(
            state, edition, paper, static, part_pages, BLEED_MM, pad_to_four=True, progress=progress
        )
    pdf: bytes = print_document(state, edition, paper, static).write_pdf()
    return pdf


def make_in_parts(
    state: State,
    edition: str,
    paper: str,
    static: Path,
    part_pages: int,
    bleed_mm: int = 0,
    pad_to_four: bool = False,
    progress: Progress | None = None,
) -> bytes:
    """The book as one PDF, its sections laid out a few chapters at a time (see the module)."""
    from .book import book_html

    names = section_names(state, edition)

    def html(sections: Sequence[str], **kwargs: Any) -> str:
        return book_html(state, edition, paper, bleed_mm, sections=sections, **kwargs)

    sizes = [(name, estimated_pages(html([name]), paper)) for name in names]
    widest = PLACEHOLDER_DIGIT * len(str(4 * round(sum(pages for _, pages in sizes) + 10)))
    front = lay_out_apart(html(["front"], toc_pages=dict.fromkeys(names, widest)), static)
    laid: list[Laid] = []
    first = front.pages + 1
    groups = plan(sizes, part_pages)
    for number, group in enumerate(groups):
        lead = 1 if first % 2 == 0 else 2  # a book's first page is a right-hand page
        part = html(group, first_folio=first - lead, lead=lead)
        last = number == len(groups) - 1
        laid.append(lay_out_apart(part, static, first, lead, paper if last and pad_to_four else ""))
        first += laid[-1].pages
        if progress is not None:
            progress(first - 1)
    anchors = {name: page for part in laid for name, page in part.anchors.items()}
    toc_pages = {name: str(page) for name, page in anchors.items()}
    final = lay_out_apart(html(["front"], toc_pages=toc_pages), static)
    if final.pages != front.pages:
        raise PartFailedError(
            f"the front matter took {final.pages} pages with its numbers, {front.pages} without"
        )
    return join([final, *laid], anchors)


def lay_out_apart(
    html: str, static: Path, first: int = 1, lead: int = 0, pad_paper: str = ""
) -> Laid:
    """``lay_out`` in a fresh process, which ends when the part's PDF is written."""
    import pickle
    import subprocess
    import sys

    command = [sys.executable, "-m", "companion.export.parts", str(os.getpid())]
    order = pickle.dumps((html, str(static), first, lead, pad_paper))
    done = subprocess.run(command, input=order, capture_output=True, check=False)
    # The part's messages (WeasyPrint's warnings, a traceback) go where this process's go.
    sys.stderr.write(done.stderr.decode("utf-8", "replace"))
    if done.returncode == 0:
        pdf, pages, anchors, links = pickle.loads(done.stdout)  # noqa: S301 - our child's
        return Laid(pdf, pages, anchors, links)
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    reason = lines[-1] if lines else f"exit status {done.returncode}"
    raise PartFailedError(f"a part of the book (page {first} on) was not laid out: {reason}")


def main() -> int:
    """Lay out the part whose order (pickled) arrives on standard input; its Laid to stdout."""
    import pickle
    import sys

    _die_with_parent()
    if len(sys.argv) > 1 and os.getppid() != int(sys.argv[1]):
        return 1  # the book's process died before this one could follow it
    html, static, first, lead, pad_paper = pickle.loads(sys.stdin.buffer.read())  # noqa: S301
    laid = lay_out(html, Path(static), first, lead, pad_paper)
    # Plain values: this module runs as __main__ here, so its classes would not unpickle there.
    sys.stdout.buffer.write(pickle.dumps((laid.pdf, laid.pages, laid.anchors, laid.links)))
    return 0


def _die_with_parent() -> None:
    # Linux: a part outlives no worker stopped for time (the supervisor kills only the worker).
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)


def lay_out(html: str, static: Path, first: int = 1, lead: int = 0, pad_paper: str = "") -> Laid:
    """One part laid out by WeasyPrint, its ``lead`` pages dropped, its first page ``first``.

    With ``pad_paper`` blank pages of that paper follow, to end the book on a multiple of four
    pages (the print shop's body).
    """
    from .book import render_document

    document = render_document(html, static)
    pages = document.pages[lead:]
    if pad_paper:
        from .print_shop import blank_pages, padded_count

        last = first + len(pages) - 1
        pages = [*pages, *blank_pages(pad_paper, padded_count(last) - last, static)]
    anchors: dict[str, int] = {}
    links = []
    for index, page in enumerate(pages):
        for name in page.anchors:
            anchors.setdefault(name, first + index)
        for link_type, target, rectangle, _box in page.links:
            if link_type == "internal":
                x1, y1, x2, y2 = rectangle
                height = page.height
                rect = (x1, height - y2, x2, height - y1)
                links.append((index, target, tuple(v * PX_TO_PT for v in rect)))
    pdf: bytes = document.copy(pages).write_pdf()
    sections = {name: page for name, page in anchors.items() if _is_section(name)}
    return Laid(pdf, len(pages), sections, links)


def _is_section(name: str) -> bool:
    return name.startswith("stage-") or name in BACK


def join(laid: Sequence[Laid], anchors: dict[str, int]) -> bytes:
    """The parts as one PDF: one outline, the contents' links, a subset tag per font program."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    readers = [PdfReader(io.BytesIO(part.pdf)) for part in laid]
    taken: set[str] = set()
    offset = 0
    for reader in readers:
        start = len(writer.pages)
        writer.append(reader, import_outline=False)
        _retag(writer, start, taken)
        _copy_outline(writer, reader, reader.outline, offset, None)
        offset += len(reader.pages)
    for index, target, rect in laid[0].links:
        if target in anchors:
            _link(writer, index, rect, anchors[target] - 1)
    metadata = readers[0].metadata
    if metadata is not None:
        writer.add_metadata({str(k): str(v) for k, v in metadata.items()})
    root: Any = readers[0].trailer["/Root"]
    language = root.get_object().get("/Lang")
    if language is not None:
        from pypdf.generic import NameObject

        writer._root_object[NameObject("/Lang")] = language
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _copy_outline(
    writer: PdfWriter, reader: PdfReader, items: list[Any], offset: int, parent: Any
) -> None:
    """The bookmarks of one part under ``parent``, their pages moved by ``offset``."""
    from pypdf.generic import Fit

    last = None
    for item in items:
        if isinstance(item, list):
            _copy_outline(writer, reader, item, offset, last)
            continue
        page = reader.get_destination_page_number(item)
        if page is None:
            continue
        fit = Fit.xyz(left=item.left, top=item.top) if item.top is not None else Fit.fit()
        last = writer.add_outline_item(
            title=item.title, page_number=offset + page, parent=parent, fit=fit
        )


def _link(writer: PdfWriter, page: int, rect: tuple[float, float, float, float], to: int) -> None:
    from pypdf.annotations import Link

    annotation = Link(rect=rect, target_page_index=to, border=[0, 0, 0])
    writer.add_annotation(page, annotation)


def _retag(writer: PdfWriter, start: int, taken: set[str]) -> None:
    """Give the subsets of the pages from ``start`` on tags no earlier part's subset has."""
    from pypdf.generic import DictionaryObject, NameObject

    from .pdf_update import FONT_NAME_KEYS, fresh_subset_tag, subset_tag

    renamed: dict[str, str] = {}
    mine: set[str] = set()
    seen: set[int] = set()
    for font in _fonts(writer, start, seen):
        for part in [font, *(d.get_object() for d in font.get("/DescendantFonts", []))]:
            descriptor = part.get("/FontDescriptor")
            for obj in [part, descriptor.get_object() if descriptor is not None else None]:
                if not isinstance(obj, DictionaryObject):
                    continue
                for key in FONT_NAME_KEYS:
                    name = obj.get(key)
                    tag = subset_tag(str(name)) if name is not None else None
                    if tag is None:
                        continue
                    if tag in taken and tag not in mine:
                        if tag not in renamed:
                            renamed[tag] = fresh_subset_tag(tag, taken | mine)
                            mine.add(renamed[tag])
                        obj[NameObject(key)] = NameObject(f"/{renamed[tag]}+{str(name)[8:]}")
                    else:
                        mine.add(tag)
    taken |= mine


def _fonts(writer: PdfWriter, start: int, seen: set[int]) -> list[Any]:
    """Every font dictionary the pages from ``start`` on use, forms' fonts included, once each."""
    found: list[Any] = []

    def walk(resources: Any) -> None:
        if resources is None:
            return
        resources = resources.get_object()
        for ref in resources.get("/Font", {}).values():
            font = ref.get_object()
            if id(font) not in seen:
                seen.add(id(font))
                found.append(font)
        for ref in resources.get("/XObject", {}).values():
            xobject = ref.get_object()
            if id(xobject) not in seen:
                seen.add(id(xobject))
                walk(xobject.get("/Resources"))

    for page in writer.pages[start:]:
        walk(page.get("/Resources"))
    return found


if __name__ == "__main__":
    raise SystemExit(main())
