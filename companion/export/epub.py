"""The EPUB 3 book: a file per stage, the contents, the timeline as SVG, for phones and e-readers.

Made with ebooklib. Every character is drawn by a face the book embeds (``epub_fonts.py``):
IPAex subsets for Japanese, the Libertine files for Latin, Greek and Cyrillic, Nanum Myeongjo
for Hangul, Noto Emoji and DejaVu Sans subsets for emoji and symbols, each licence beside its
face; the timeline's words are drawn as outlines (``outlines.py``), since a picture cannot use
the book's fonts. A Japanese book may be vertical: ``writing-mode: vertical-rl`` and a spine
read right to left.
"""

from __future__ import annotations

import io
import uuid
from pathlib import Path
from typing import Any

from flask import render_template
from flask_babel import force_locale
from flask_babel import gettext as _

from companion.base.languages import writes_vertically
from companion.text.story import life_timeline
from companion.text.terms import stage_name

from ..legacy import State
from .book import told_by
from .contents import Contents, EditionError, contents
from .epub_fonts import BookFonts, epub_fonts
from .outlines import outlined
from .typeset import finish, isolate, passes_for, printable
from .vertical import tate_chu_yoko

NAMESPACE = uuid.UUID("6f1c0d55-1f4e-4b0e-9d8a-7a7f2b0c4e11")


def make_epub(
    state: State, edition: str, static: Path, vertical: bool = False, date: str = "", key: str = ""
) -> bytes:
    """The EPUB of ``state``; ``key`` (stream and version) makes its identifier stable."""
    from ebooklib import epub

    book = contents(state, edition)
    if vertical and not writes_vertically(book.language):
        raise EditionError("the vertical edition is for Japanese chronicles only")
    with force_locale(book.language):
        document = _document(book, static, vertical, date, key)
    out = io.BytesIO()
    epub.write_epub(out, document, {"epub3_pages": False})
    return out.getvalue()


def _document(book: Contents, static: Path, vertical: bool, date: str, key: str) -> object:
    from ebooklib import epub

    setup = book.state.setup
    document = epub.EpubBook()
    document.set_identifier(f"urn:uuid:{uuid.uuid5(NAMESPACE, f'{key}/{book.edition}')}")
    document.set_title(printable(_("The life of %(name)s", name=isolate(setup.pioneer))))
    document.set_language(book.language)
    for seat, player in enumerate(setup.players):
        document.add_author(printable(player), uid=f"creator-{seat}")
    if date:
        document.add_metadata("DC", "date", date)
    document.add_metadata("DC", "publisher", "Ijinsho companion")
    parts = _parts(book, vertical, None)
    _accessibility(document, any("<ruby>" in part.content for part in parts))
    if vertical:
        # What a reader that reads no stylesheet first (Kindle's, some stores') is told.
        mode = {"name": "primary-writing-mode", "content": "vertical-rl"}
        document.add_metadata("OPF", "primary-writing-mode", "", mode)
    from .epub_cover import cover_image

    document.set_cover("cover.jpg", cover_image(book, book.state, static), create_page=False)
    css = _css(static, vertical)
    contents_title = _("Contents")
    shown = [part.content for part in parts]
    shown.append(_contents_page(contents_title, parts))
    fonts = epub_fonts(static, css, shown, book.language)
    style = epub.EpubItem("style", "style/book.css", "text/css", fonts.stylesheet(css).encode())
    document.add_item(style)
    for part in parts:
        part.add_item(style)
        document.add_item(part)
    _add_fonts(document, fonts)
    labels = [stage_name(i) for i in range(4)]
    svg = outlined(printable(str(life_timeline(book.state, labels, ""))), static, book.language)
    document.add_item(
        epub.EpubItem("timeline-svg", "timeline.svg", "image/svg+xml", svg.encode("utf-8"))
    )
    document.toc = [epub.Link(part.file_name, part.title, part.id) for part in parts]
    document.add_item(epub.EpubNcx())
    nav = epub.EpubNav(title=contents_title)
    nav.add_item(style)
    document.add_item(nav)
    document.spine = [parts[0], "nav", *parts[1:]]
    if vertical:
        document.set_direction("rtl")
    return document


SUMMARY = (
    "A novel-length story told at a table. Its text is in reading order with headings for each"
    " part and a table of contents; the one picture, the timeline of the life, has a text"
    " alternative and its words are also in the text. No sound, video or animation."
)


def _accessibility(document: Any, ruby: bool) -> None:
    """EPUB Accessibility 1.1 metadata (schema.org), true of every book this module makes."""
    meta = [
        ("schema:accessMode", "textual"),
        ("schema:accessMode", "visual"),
        ("schema:accessModeSufficient", "textual"),
        ("schema:accessibilityFeature", "structuralNavigation"),
        ("schema:accessibilityFeature", "tableOfContents"),
        ("schema:accessibilityFeature", "readingOrder"),
        ("schema:accessibilityFeature", "alternativeText"),
        ("schema:accessibilityFeature", "displayTransformability"),
        *([("schema:accessibilityFeature", "rubyAnnotations")] if ruby else []),
        ("schema:accessibilityHazard", "none"),
        ("schema:accessibilitySummary", SUMMARY),
        ("dcterms:conformsTo", "EPUB Accessibility 1.1 - WCAG 2.1 Level AA"),
        ("a11y:certifiedBy", "Ijinsho companion"),
    ]
    for name, value in meta:
        document.add_metadata("OPF", name.replace(":", "-"), value, {"property": name})


def _css(static: Path, vertical: bool) -> str:
    css = (static / "css" / "epub.css").read_text(encoding="utf-8")
    if vertical:
        css += (static / "css" / "epub-vertical.css").read_text(encoding="utf-8")
    return css


def _contents_page(title: str, parts: list[Any]) -> str:
    """The contents page as ebooklib writes it (its title, then a link per part), for the
    characters it shows."""
    from markupsafe import escape

    links = "".join(f"<li><a>{escape(part.title)}</a></li>" for part in parts)
    return f"<nav><h2>{escape(title)}</h2><ol>{links}</ol></nav>"


def _add_fonts(document: object, fonts: BookFonts) -> None:
    from ebooklib import epub

    from .epub_fonts import FACES

    for key, data in fonts.faces.items():
        face = FACES[key]
        item = epub.EpubItem(f"font-{key}", f"fonts/{face.name}", face.media_type, data)
        document.add_item(item)  # type: ignore[attr-defined]
    for name, text in fonts.licences.items():
        item = epub.EpubItem(f"licence-{name.lower()[8:-4]}", f"fonts/{name}", "text/plain", text)
        document.add_item(item)  # type: ignore[attr-defined]


def _parts(book: Contents, vertical: bool, style: object | None) -> list[Any]:  # EpubHtml
    """The XHTML files in reading order: title page, stages, epilogue, timeline, appendix."""
    named: list[tuple[str, str, dict[str, object]]] = [
        ("title", printable(book.state.setup.pioneer), {})
    ]
    for chapter in book.chapters:
        named.append(
            (f"stage-{chapter.stage.index}", stage_name(chapter.stage.index), {"chapter": chapter})
        )
    if book.state.epilogue:
        named.append(("epilogue", _("Epilogue"), {}))
    named.append(("timeline", _("The life at a glance"), {}))
    named.append(("keystones", _("Appendix: the keystones and their fates"), {}))
    return [_part(book, name, title, extra, vertical, style) for name, title, extra in named]


def _part(
    book: Contents,
    name: str,
    title: str,
    extra: dict[str, object],
    vertical: bool,
    style: object | None,
) -> object:
    from ebooklib import epub

    part = name.split("-")[0] if name.startswith("stage-") else name
    html = render_template(
        "book/epub_part.html",
        part="chapter" if part == "stage" else part,
        book=book,
        state=book.state,
        setup=book.state.setup,
        dice_as_text=True,
        isolate=isolate,
        told_by=told_by(book.state),
        **extra,
    )
    html = finish(html, passes_for(book.language, phrases=False))
    if vertical:
        html = tate_chu_yoko(html)
    item = epub.EpubHtml(title=title, file_name=f"{name}.xhtml", lang=book.language, uid=name)
    item.content = html
    if style is not None:
        item.add_item(style)
    return item
