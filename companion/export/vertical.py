"""The vertical (縦書き) book: Japanese set top to bottom, pages turning right to left.

WeasyPrint cannot lay out vertical text, so this edition is printed by headless Chromium (Debian's
``chromium``) through Playwright's ``page.pdf``. The browser runs with JavaScript off and may load
nothing but the book's own page and files under ``static/``; every other request is aborted.
After printing, pypdf marks the PDF as read right to left (``/ViewerPreferences /Direction /R2L``)
and gives it its title and authors.
"""

from __future__ import annotations

import io
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask_babel import force_locale
from flask_babel import gettext as _

from ..legacy import State
from ..web.wording import join_list
from .contents import EditionError

CHROMIUM_PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
INSTALL_COMMAND = "sudo apt-get install -y chromium"
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
SKIPPED = re.compile(r"(<svg\b.*?</svg>|<head>.*?</head>|<[^>]*>)", re.S)

Progress = Callable[[float, str], None]


class ChromiumMissingError(EditionError):
    """The vertical edition needs Chromium, and it is not installed."""


def chromium_path() -> str | None:
    """Where Chromium is installed, or None."""
    for path in CHROMIUM_PATHS:
        if Path(path).is_file():
            return path
    found = shutil.which("chromium")
    return found


def vertical_html(state: State, edition: str, paper: str) -> str:
    """The vertical book as HTML: the ordinary book's text with upright short numbers."""
    from .book import book_html  # WeasyPrint's module: loaded only when a book is made

    if state.setup.language != "ja":
        raise EditionError("the vertical edition is for Japanese chronicles only")
    return tate_chu_yoko(book_html(state, edition, paper, vertical=True))


def tate_chu_yoko(html: str) -> str:
    """Wrap short numbers in the text (never in tags, the head or pictures) for 縦中横."""
    parts = SKIPPED.split(html)
    for index in range(0, len(parts), 2):  # the even parts are text between tags
        parts[index] = SHORT_NUMBER.sub(r'<span class="tcy">\1</span>', parts[index])
    return "".join(parts)


def render_vertical(
    html: str, static: Path, title: str, author: str, progress: Progress | None = None
) -> bytes:
    """Print ``html`` with Chromium, then mark the PDF as read right to left."""
    report = progress or (lambda _p, _s: None)
    executable = chromium_path()
    if executable is None:
        raise ChromiumMissingError(f"Chromium is not installed: {INSTALL_COMMAND}")
    with tempfile.TemporaryDirectory(prefix="vertical-") as folder:
        page_file = Path(folder) / "book.html"
        base = f'<base href="{static.resolve().as_uri()}/">'
        page_file.write_text(html.replace("<head>", "<head>" + base, 1), encoding="utf-8")
        report(10, "starting")
        pdf = _print(executable, page_file, static.resolve(), report)
    report(90, "writing")
    return right_to_left(pdf, title, author)


def _print(executable: str, page_file: Path, static: Path, report: Progress) -> bytes:
    from playwright.sync_api import sync_playwright

    allowed = (page_file.as_uri(), static.as_uri() + "/")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=LAUNCH_ARGS)
        try:
            context = browser.new_context(java_script_enabled=False, offline=True)
            page = context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            page.route("**/*", lambda route: _only_local(route, allowed))
            report(25, "layout")
            page.goto(page_file.as_uri(), wait_until="load")
            report(55, "layout")
            pdf: bytes = page.pdf(
                prefer_css_page_size=True, print_background=True, outline=True, tagged=True
            )
        finally:
            browser.close()
    return pdf


def _only_local(route: Any, allowed: tuple[str, str]) -> None:
    url = route.request.url
    if url == allowed[0] or (url.startswith(allowed[1]) and ".." not in url):
        route.continue_()
    else:
        route.abort()


def right_to_left(pdf: bytes, title: str, author: str) -> bytes:
    """The PDF with pages turning right to left, two-page spreads and the book's metadata."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import DictionaryObject, NameObject

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf)))
    preferences = DictionaryObject({NameObject("/Direction"): NameObject("/R2L")})
    writer._root_object[NameObject("/ViewerPreferences")] = preferences
    writer._root_object[NameObject("/PageLayout")] = NameObject("/TwoPageRight")
    writer.add_metadata({"/Title": title, "/Author": author, "/Creator": "Ijinsho companion"})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def make_vertical(
    state: State, edition: str, paper: str, static: Path, progress: Progress | None = None
) -> bytes:
    """The vertical PDF book of a Japanese chronicle."""
    html = vertical_html(state, edition, paper)
    setup = state.setup
    with force_locale(setup.language):
        title = _("The life of %(name)s", name=setup.pioneer)
        authors = join_list(setup.players)
    return render_vertical(html, static, title, authors, progress)
