"""The vertical (縦書き) book: Japanese set top to bottom, pages turning right to left.

WeasyPrint cannot lay out vertical text, so this edition is printed by headless Chromium (Debian's
``chromium``) through Playwright's ``page.pdf``. The page's own scripts are off, and the browser
may load nothing but the book's own page and files under ``static/``; every other request is
aborted. The book's page is loaded once and printed with placeholders in the contents as wide as
any page number; the page of each heading is read back from that PDF, the numbers are written
into the contents of the page already loaded, everything after the contents taken out of it, and
only that front matter (the title page and the contents) is printed again, its pages put in place
of the first ones (``render_vertical``). The PDF is then marked as read right to left
(``/ViewerPreferences /Direction /R2L``) and given its title and authors in an incremental update.
"""

from __future__ import annotations

import contextvars
import io
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask_babel import force_locale
from flask_babel import gettext as _

from companion.base.languages import writes_vertically
from companion.text.wording import join_list

from ..legacy import State
from .contents import EditionError
from .typeset import printable

if TYPE_CHECKING:
    from pypdf import PdfReader

    from .pdf_update import Update

CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
INSTALL_COMMAND = "sudo apt-get install -y chromium"
# Playwright (with its own Node driver, 165 MB) drives Chromium: an extra, not a dependency.
EXTRA_COMMAND = "pip install 'ijinsho-companion[vertical]'"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TIMEOUT_MS = 120_000
# One or two digits stand upright in the column; longer numbers lie on their side as in print.
SHORT_NUMBER = re.compile(r"(?<![0-9０-９.,])([0-9]{1,2}|[!?]{2})(?![0-9０-９.,])")
NUMBER_RANGE = re.compile(r"(?<![0-9.,-])([0-9]{1,3})-([0-9]{1,3})(?![0-9.,-])")
SKIPPED = re.compile(r"(<svg\b.*?</svg>|<head>.*?</head>|<[^>]*>)", re.S)
# A character with what joins it into one glyph: variation selectors (emoji and ideographic),
# skin tones, tags (flags), the keycap, and zero-width joiners with the next character. Set
# upright as one: in a column of mixed orientation Chromium splits the text where a character's
# own orientation changes, and the joiner's is sideways, so 👩‍👩‍👧 became three heads.
_JOINED = "\ufe00-\ufe0f\u20e3\U0001f3fb-\U0001f3ff\U000e0020-\U000e007f\U000e0100-\U000e01ef"
SEQUENCE = re.compile(
    f"[^\\s<>{_JOINED}\u200d][{_JOINED}]*(?:\u200d[^\\s<>{_JOINED}\u200d][{_JOINED}]*)+"
    f"|[^\\s<>{_JOINED}\u200d][{_JOINED}]+"
)
TATE = re.compile(f"({SEQUENCE.pattern})|{SHORT_NUMBER.pattern}")

Progress = Callable[[float, str], None]
KANJI_DIGITS = "〇一二三四五六七八九"
# Anchors the contents may list, each held by a number as wide as a book's widest until known.
PLACEHOLDERS = {
    name: "〇〇〇"
    for name in (*(f"stage-{i}" for i in range(4)), "epilogue", "timeline", "keystones")
}


class ChromiumMissingError(EditionError):
    """The vertical edition needs Chromium, and it is not installed."""


def playwright_installed() -> bool:
    """Whether Playwright, which drives Chromium, is installed (the ``vertical`` extra)."""
    import importlib.util

    return importlib.util.find_spec("playwright") is not None


def ready() -> bool:
    """Whether the vertical PDF can be made here: Chromium and Playwright both installed."""
    return chromium_path() is not None and playwright_installed()


def install_command() -> str:
    """What the host runs to make the vertical PDF possible here (empty when it is)."""
    needed = [] if playwright_installed() else [EXTRA_COMMAND]
    if chromium_path() is None:
        needed.append(INSTALL_COMMAND)
    return " && ".join(needed)


def chromium_path() -> str | None:
    """Where Chromium is installed, or None."""
    for path in CHROMIUM_PATHS:
        if Path(path).is_file():
            return path
    found = shutil.which("chromium")
    return found


def vertical_html(
    state: State, edition: str, paper: str, toc_pages: Mapping[str, str] | None = None
) -> str:
    """The vertical book as HTML: the ordinary book's text with upright short numbers.

    ``toc_pages`` are the contents' page numbers by anchor; without them every entry holds a
    placeholder as wide as the widest number, so that the front matter printed again with the
    numbers lays out the same pages.
    """
    from .book import book_html  # WeasyPrint's module: loaded only when a book is made

    check_japanese(state)
    pages = PLACEHOLDERS if toc_pages is None else toc_pages
    return tate_chu_yoko(book_html(state, edition, paper, vertical=True, toc_pages=pages))


def check_japanese(state: State) -> None:
    """Refuse a chronicle not told in Japanese: the vertical edition is for Japanese alone."""
    if not writes_vertically(state.setup.language):
        raise EditionError("the vertical edition is for Japanese chronicles only")


def tate_chu_yoko(html: str) -> str:
    """Wrap short numbers in the text (never in tags, the head or pictures) for 縦中横, and
    each sequence of joined characters (``SEQUENCE``) so it is set upright as one glyph."""
    parts = SKIPPED.split(html)
    for index in range(0, len(parts), 2):  # the even parts are text between tags
        # A range of numbers (ages 20-32) takes the wave dash that runs down the column.
        text = NUMBER_RANGE.sub("\\1〜\\2", parts[index])
        parts[index] = TATE.sub(_tate, text)
    return "".join(parts)


def _tate(found: re.Match[str]) -> str:
    if found.group(1):
        return f'<span class="upright">{found.group(1)}</span>'
    return f'<span class="tcy">{found.group(2)}</span>'


def kanji_number(number: int) -> str:
    """A page number in kanji digits, as a vertical book's contents print it: 148 is 一四八."""
    return "".join(KANJI_DIGITS[int(digit)] for digit in str(number))


def heading_pages(pdf: bytes | PdfReader) -> dict[str, int]:
    """The page (from 1) of each anchor the PDF's links point to."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(pdf)) if isinstance(pdf, bytes) else pdf
    pages = {
        str(name).lstrip("/"): reader.get_destination_page_number(dest)
        for name, dest in reader.named_destinations.items()
    }
    return {name: page + 1 for name, page in pages.items() if page is not None}


def render_vertical(
    html_for: Callable[[Mapping[str, str] | None], str],
    static: Path,
    title: str,
    author: str,
    progress: Progress | None = None,
) -> bytes:
    """Print the book with Chromium, then mark the PDF as read right to left.

    Chromium cannot number the contents (``target-counter``), so the book is printed once with
    placeholders, the page of each heading read back from the PDF, and the front matter alone
    printed again with those numbers, from the page already loaded; ``html_for(numbers)`` makes
    the HTML (numbers None: placeholders), once unless the numbers moved the layout.
    """
    report = progress or (lambda _p, _s: None)
    executable = chromium_path()
    if executable is None or not playwright_installed():
        raise ChromiumMissingError(
            "The vertical PDF is printed by Chromium through Playwright, which are not both"
            f" installed here: {install_command()}"
        )
    with tempfile.TemporaryDirectory(prefix="vertical-") as folder:
        page_file = Path(folder) / "book.html"
        base = f'<base href="{static.resolve().as_uri()}/">'

        def write(toc_pages: Mapping[str, str] | None) -> None:
            html = html_for(toc_pages)
            page_file.write_text(html.replace("<head>", "<head>" + base, 1), encoding="utf-8")

        report(10, "starting")
        # The browser starts on its own thread while this one makes the book's HTML, and
        # closes while this one writes the PDF.
        written: Future[None] = Future()
        printed: Future[tuple[Update, bytes | None]] = Future()
        with ThreadPoolExecutor(1) as pool:
            printing = pool.submit(
                contextvars.copy_context().run,
                lambda: _print(
                    executable, page_file, static.resolve(), write, report, written, printed
                ),
            )
            try:
                write(None)
                written.set_result(None)
            except BaseException as err:
                written.set_exception(err)
            book, front = printed.result()
            report(90, "writing")
            pdf = right_to_left(book, title, author, front)
            printing.result()
    return pdf


PDF_OPTIONS: dict[str, Any] = {
    "prefer_css_page_size": True,
    "print_background": True,
    "outline": True,
    "tagged": True,
}


def _print(
    executable: str,
    page_file: Path,
    static: Path,
    write: Callable[[Mapping[str, str] | None], None],
    report: Progress,
    written: Future[None],
    printed: Future[tuple[Update, bytes | None]],
) -> None:
    """Set ``printed`` to the whole book with placeholders (its HTML written, once ``written``,
    by the caller's thread while the browser starts), read for its update, and its front matter
    with the page numbers (None if the book is the same either way); then close the browser.

    Playwright's sync API runs on a thread of its own, with the caller's context (app, locale):
    it refuses a thread whose asyncio loop runs (an async server, or a test that also drives a
    browser)."""
    from playwright.sync_api import sync_playwright

    from .pdf_update import Update

    forbidden = _forbidden(page_file, static)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable, args=LAUNCH_ARGS)
            try:
                context = browser.new_context(java_script_enabled=False, offline=True)
                page = context.new_page()
                page.set_default_timeout(TIMEOUT_MS)
                page.route(forbidden, lambda route: route.abort())
                report(20, "layout")
                written.result()
                _open(page, page_file)
                book = Update(page.pdf(**PDF_OPTIONS))
                anchors = heading_pages(book.reader)
                numbers = {k: kanji_number(v) for k, v in anchors.items()}
                report(75, "layout")
                # The same page, its fonts loaded: the numbers written in, the body taken out.
                page.evaluate(FRONT_MATTER, numbers)
                front: bytes = page.pdf(**PDF_OPTIONS)
                if len(front_pages(anchors)) == page_count(front):
                    printed.set_result((book, front))
                else:
                    # The numbers moved the layout (they never should): print it all again.
                    write(numbers)
                    _open(page, page_file)
                    printed.set_result((Update(page.pdf(**PDF_OPTIONS)), None))
            finally:
                browser.close()
    except BaseException as err:
        if not printed.done():
            printed.set_exception(err)
        raise


# Lay the page out, so that every face its text needs is asked for, and wait until all are
# loaded: a face the first layout did not need (emoji on page 40) would print as nothing.
FONTS_LOADED = "() => { document.body.getBoundingClientRect(); return document.fonts.ready.then(() => document.fonts.status) }"  # noqa: E501
# The contents' numbers (by the anchor each entry links to) written in, as ``vertical_html``
# writes them, and all that follows the contents taken out: the title page and the contents
# alone, laid out as they are in the whole book. (Playwright's own script: the page's stay off.)
FRONT_MATTER = """numbers => {
  for (const span of document.querySelectorAll(".toc-page")) {
    const name = span.closest("a").getAttribute("href").slice(1);
    span.textContent = Object.hasOwn(numbers, name) ? numbers[name] : "";
  }
  const contents = document.querySelector("nav.toc");
  while (contents.nextSibling) contents.nextSibling.remove();
}"""


def _open(page: Any, page_file: Path) -> None:
    """Load the book's page and every font it uses (the page's own scripts stay off)."""
    page.goto(page_file.as_uri(), wait_until="load")
    page.evaluate(FONTS_LOADED)


def front_pages(anchors: Mapping[str, int]) -> range:
    """The pages before the body, from the page of each anchor: the title page and the
    contents (from 0)."""
    body = [page for name, page in anchors.items() if name in PLACEHOLDERS]
    return range(min(body) - 1 if body else 0)


def page_count(pdf: bytes) -> int:
    """How many pages a PDF has."""
    from pypdf import PdfReader

    return len(PdfReader(io.BytesIO(pdf)).pages)


def _forbidden(page_file: Path, static: Path) -> re.Pattern[str]:
    """Every address but the book's page and the files under ``static`` (none with ``..``).

    Playwright matches a route's pattern in its driver, so the requests allowed (the page, its
    stylesheets and fonts) go on without waiting for this process; only the others are aborted
    here."""
    page, folder = re.escape(page_file.as_uri()), re.escape(static.as_uri() + "/")
    return re.compile(rf"^(?!{page}$)(?!{folder}(?!.*\.\.))")


def right_to_left(
    pdf: bytes | Update, title: str, author: str, front: bytes | None = None
) -> bytes:
    """The PDF with pages turning right to left, two-page spreads and the book's metadata;
    ``front`` (the front matter printed again with the contents' numbers) takes the place of
    the first pages' drawing, each page keeping its links and the outline's destinations.

    Written as an incremental update (``pdf_update``): Chromium's file stays as it is and only
    the catalogue, the metadata and the front pages are appended.
    """
    from pypdf import PdfReader
    from pypdf.generic import DictionaryObject, IndirectObject, NameObject

    from .pdf_update import Update

    update = Update(pdf) if isinstance(pdf, bytes) else pdf
    if front is not None:
        copied: dict[int, IndirectObject] = {}
        front_pages_read = PdfReader(io.BytesIO(front)).pages
        for target, source in zip(update.reader.pages, front_pages_read, strict=False):
            page = DictionaryObject(target)
            for key in ("/Contents", "/Resources"):
                page[NameObject(key)] = update.copy_from(source.raw_get(key), copied)
            assert target.indirect_reference is not None
            update.replace(target.indirect_reference, page)
        update.retag_subsets(copied)
    catalog = update.reader.trailer["/Root"].get_object()
    assert isinstance(catalog, DictionaryObject), catalog
    root = DictionaryObject(catalog)
    preferences = DictionaryObject()
    kept = catalog.get("/ViewerPreferences")  # Chromium's (/DisplayDocTitle) stay
    if kept is not None and isinstance(kept.get_object(), DictionaryObject):
        preferences.update(kept.get_object())
    preferences[NameObject("/Direction")] = NameObject("/R2L")
    root[NameObject("/ViewerPreferences")] = preferences
    root[NameObject("/PageLayout")] = NameObject("/TwoPageRight")
    update.replace(update.reader.trailer.raw_get("/Root"), root)
    info: Mapping[str, Any] = update.reader.metadata or {}
    producer = str(info.get("/Producer", ""))
    entries = {"/Title": title, "/Author": author, "/Creator": "Ijinsho companion"}
    update.set_info(entries | ({"/Producer": producer} if producer else {}))
    return update.write()


def make_vertical(
    state: State, edition: str, paper: str, static: Path, progress: Progress | None = None
) -> bytes:
    """The vertical PDF book of a Japanese chronicle."""
    check_japanese(state)
    setup = state.setup
    with force_locale(setup.language):
        title = printable(_("The life of %(name)s", name=setup.pioneer))
        authors = printable(join_list(setup.players))

    def html_for(toc_pages: Mapping[str, str] | None) -> str:
        return vertical_html(state, edition, paper, toc_pages)

    return render_vertical(html_for, static, title, authors, progress)
