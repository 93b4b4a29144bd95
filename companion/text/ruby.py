"""Ruby (furigana) and emphasis dots written as Japanese writers write them on the writing sites
and in Aozora Bunko texts, turned into HTML ruby.

- ``｜親字《ルビ》`` (or the ASCII ``|``): the reading over the text from the bar to ``《``;
- ``漢字《かんじ》``: with no bar, the reading over the run of kanji just before ``《``;
- ``《《傍点》》``: emphasis dots (傍点) beside each character, ruby inside them kept;
- ``｜《`` (or ``|《``): a literal ``《``, the bar dropped, for a ``《`` that opens nothing.

Anything else is left as written: an empty reading or base, an unclosed ``《``, a base that
crosses a line or is longer than MAX_BASE characters, a reading longer than MAX_READING, a run of
more than MAX_BASE kanji. The
text as stored is never changed (the Markdown export and the backup keep what was typed); only
what shows it turns the notation into ruby. The scan is one regular expression whose every
alternative is bounded or anchored at the start of a run of kanji, so its time is linear.
"""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup
from markupsafe import escape as markup_escape

MAX_BASE = 50  # characters under one reading; writing sites allow 10 to 20
MAX_READING = 100  # characters of one reading (or of one run of emphasis dots)
# The characters that take a reading without a bar: kanji (CJK ideographs, their extensions and
# compatibility forms) and the marks that stand in a run of them: 々 〆 〇 ヶ ヵ.
KANJI = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff々〆〇ヶヵ"
NOTATION = re.compile(
    rf"(?P<escape>[|｜]《)"
    rf"|《《(?P<dots>(?:[^《》\n]|《[^《》\n]{{1,{MAX_READING}}}》){{1,{MAX_READING}}}?)》》"
    rf"|[|｜](?P<base>[^|｜《》\n]{{1,{MAX_BASE}}})《(?P<reading>[^《》\n]{{1,{MAX_READING}}})》"
    rf"|(?<![{KANJI}])(?P<kanji>[{KANJI}]{{1,{MAX_BASE}}})《(?P<kanji_reading>[^《》\n]{{1,{MAX_READING}}})》"
)
OPEN_PAREN, CLOSE_PAREN = "（", "）"  # what a reader without ruby shows around the reading


@dataclass(frozen=True)
class Piece:
    """One piece of notation: ``kind`` is ruby, dots or escape; ``written`` the source."""

    kind: str
    written: str
    base: str = ""
    reading: str = ""


def pieces(text: str) -> list[str | Piece]:
    """The text split into plain strings and pieces of notation, in order."""
    out: list[str | Piece] = []
    position = 0
    for match in _matches(text):
        if match.start() > position:
            out.append(text[position : match.start()])
        out.append(_piece(match))
        position = match.end()
    if position < len(text):
        out.append(text[position:])
    return out


def _matches(text: str) -> list[re.Match[str]]:
    return list(NOTATION.finditer(text)) if "《" in text else []


def _piece(match: re.Match[str]) -> Piece:
    written = match.group(0)
    if match.group("escape"):
        return Piece("escape", written)
    if match.group("dots"):
        return Piece("dots", written, match.group("dots"))
    if match.group("base"):
        return Piece("ruby", written, match.group("base"), match.group("reading"))
    return Piece("ruby", written, match.group("kanji"), match.group("kanji_reading"))


def has_notation(text: str) -> bool:
    """Whether ``text`` holds any ruby, emphasis dots or escaped ``《``."""
    return any(isinstance(piece, Piece) for piece in pieces(text))


def ruby_html(base: str, reading: str, escape: Callable[[str], str] = html_lib.escape) -> str:
    """HTML ruby with fallbacks: a reader without ruby shows ``base（reading）``."""
    return (
        f"<ruby>{escape(base)}<rp>{OPEN_PAREN}</rp><rt>{escape(reading)}</rt>"
        f"<rp>{CLOSE_PAREN}</rp></ruby>"
    )


def dots_html(inner: str) -> str:
    """HTML for emphasis dots around ``inner`` (HTML): an ``em`` set as 傍点 in every language."""
    return f'<em class="bouten">{inner}</em>'


def piece_html(piece: Piece, escape: Callable[[str], str] = html_lib.escape) -> str:
    """The HTML one piece of notation shows as, its words through ``escape``."""
    if piece.kind == "escape":
        return "《"
    if piece.kind == "dots":
        return dots_html(to_html(piece.base, escape))
    return ruby_html(piece.base, piece.reading, escape)


def to_html(text: str, escape: Callable[[str], str] = html_lib.escape) -> str:
    """``text`` as HTML: its plain parts and the words of its notation through ``escape``."""
    return "".join(
        piece_html(piece, escape) if isinstance(piece, Piece) else escape(piece)
        for piece in pieces(text)
    )


def _escape_markup(text: str) -> str:
    return str(markup_escape(text))


def shown(value: Any) -> Markup:
    """A plain text (a prompt) for a page or a book: escaped, its ruby notation made ruby.

    Never Markdown: a prompt is shown as its pack wrote it. Every character that is not the
    notation's own tags goes through markupsafe's escape, so a text without notation reads
    byte for byte as ``{{ text }}`` did, and no text can open a tag of its own.
    """
    text = str(value if value is not None else "")
    return Markup(to_html(text, _escape_markup))  # noqa: S704 - every word escaped above


def to_plain(text: str) -> str:
    """``text`` without its notation: the base of each ruby, the dotted words, a bare ``《``."""
    return "".join(
        (_plain_piece(piece)) if isinstance(piece, Piece) else piece for piece in pieces(text)
    )


def _plain_piece(piece: Piece) -> str:
    if piece.kind == "escape":
        return "《"
    return to_plain(piece.base) if piece.kind == "dots" else piece.base
