"""The last passes a book's HTML goes through before it is typeset: what a careful typesetter does
by hand, done on the text between the tags.

- ``printable``: characters no book format can hold or print (C0 and C1 controls, DEL,
  U+FFFE/U+FFFF, lone surrogates), stored before the app refused them at input, are dropped or
  replaced.
- Japanese headings, titles and short lines break only between phrases (BudouX gives the phrase
  boundaries; each phrase is kept whole with ``white-space: nowrap``), and no paragraph leaves one
  or two characters alone on its last line (its last phrase is kept whole with the one before).
- Japanese emphasis is 傍点 (a sesame dot beside each character), never slanted: Chromium draws
  ``text-emphasis`` itself; for WeasyPrint, which has no such property, each character of an
  ``<em>`` is wrapped so the stylesheet can set its dot.
- Ruby (furigana, ``companion.text.ruby``) is left whole by every pass. Chromium and e-readers
  lay ``<ruby>`` out themselves; WeasyPrint does not, so for it each ruby becomes an inline
  block of two lines, the reading centred over its base, that never breaks and sits in the
  leading (``book.css``). Emphasis dots written as 《《傍点》》 are 傍点 in every language.
- English quotes, apostrophes, dashes and ellipses are made typographic, never inside code.
- A variation selector inside an emoji ZWJ sequence is dropped: the monochrome emoji face draws
  the same glyph without it, and WeasyPrint then writes the whole sequence into the PDF's text.
"""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from companion.base import languages

CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff]")
SURROGATES = re.compile("[\ud800-\udfff]")
ZWJ_SELECTOR = re.compile("(?<=\u200d.)\ufe0f|\ufe0f(?=\u200d)")
# Tags whose content is never retouched, skipped whole; and the HTML tokens.
TOKENS = re.compile(
    r"(<!--.*?-->|<(svg|head|style|script|code|pre|ruby)\b.*?</\2\s*>|<[^>]*>)", re.S | re.I
)
# The ruby ``companion.text.ruby`` writes (its base and reading escaped, so free of tags).
RUBY = re.compile(r"<ruby>([^<]*)<rp>[^<]*</rp><rt>([^<]*)</rt><rp>[^<]*</rp></ruby>")
VOID = {"br", "hr", "img", "meta", "link", "wbr", "input", "source", "col"}
BLOCKS = {"p", "li", "dd", "dt", "figcaption", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6"}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "figcaption"}
# Short lines of the book, set phrase by phrase (by class).
SHORT = {
    "book-title", "cover-people", "cover-concept", "cover-edition", "chapter-sub", "meta",
    "label", "mark-name", "mark-number", "keystone-name", "keystone-description", "fate",
    "lede", "payment-title", "outcome-line", "roll-note", "prompt", "toc", "tokens",
    "correction", "front-title", "front-people", "front-ages", "back-label", "back-marks",
    "back-told", "cover-facts",
}  # fmt: skip
NUMBER_RANGE = re.compile(r"(?<![\w-])(\d+)-(\d+)(?![\w-])")
MAX_PHRASE = 10  # characters: a longer phrase may break, so no line can overflow
ASCII_SPACE = " \t\n\r\f\v"
MIN_TAIL = 4  # characters a last line keeps at least (「る。」 alone is what this prevents)
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\U00020000-\U0003ffff]")


def printable(text: str) -> str:
    """``text`` without the characters no book can hold: C0 and C1 controls (tab and line
    breaks kept), DEL and U+FFFE/U+FFFF dropped, lone surrogates replaced by U+FFFD."""
    return SURROGATES.sub("\ufffd", CONTROLS.sub("", text))


def printable_data(value: Any) -> Any:
    """JSON-like data (dicts, lists, strings) with every string made ``printable``."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable_data(key): printable_data(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [printable_data(item) for item in value]
    return value


def isolate(name: object) -> str:
    """A name a person gave, isolated for bidirectional text (FSI … PDI) when it could reorder
    the book's own words around it (``companion.text.bidi``, the one rule for pages and books)."""
    from companion.text.bidi import isolate as bidi_isolate

    return bidi_isolate(str(name or ""))


@dataclass(frozen=True)
class Passes:
    """Which passes a book's HTML gets."""

    japanese: bool
    phrases: bool = True
    kenten: bool = False  # WeasyPrint's 傍点, drawn by the stylesheet on wrapped characters
    smart: bool = False  # English punctuation
    weasyprint: bool = False  # ruby as inline blocks, 《《傍点》》 wrapped in any language


def passes_for(language: str, *, phrases: bool = True, kenten: bool = False) -> Passes:
    """The passes for a book in ``language``: phrases and 傍点 where lines break between any two
    characters (Japanese), typographic punctuation where they break between words (English)."""
    by_character = languages.about(language).wrap == "characters"
    return Passes(
        by_character,
        phrases=phrases,
        kenten=kenten and by_character,
        smart=not by_character,
        weasyprint=kenten,
    )


def finish(html: str, passes: Passes) -> str:
    """The book's HTML after every pass it needs."""
    html = ZWJ_SELECTOR.sub("", printable(html))
    if (passes.phrases and passes.japanese) or passes.kenten or passes.smart or passes.weasyprint:
        html = _Walker(passes).run(html)
    return RUBY.sub(_ruby_box, html) if passes.weasyprint and "<ruby>" in html else html


def _ruby_box(match: re.Match[str]) -> str:
    """A ruby as WeasyPrint can set it: the reading's line over the base's, in one inline block."""
    base, reading = match.group(1), match.group(2)
    return (
        f'<span class="ruby"><span class="rt">{reading}</span><span class="rb">{base}</span></span>'
    )


@cache
def _parser() -> Any:
    import budoux

    return budoux.load_default_japanese_parser()


def phrases(text: str) -> list[str]:
    """The phrases of a Japanese text (BudouX), whitespace kept with the phrase before it."""
    if not JAPANESE.search(text):
        return [text]
    return [p for p in _parser().parse(text) if p]


class _Walker:
    def __init__(self, passes: Passes) -> None:
        self.passes = passes
        self.out: list[str] = []
        self.stack: list[tuple[str, bool]] = []  # (tag, short line)
        self.dots: list[int] = []  # the depths of the open emphasis dots (《《傍点》》)
        self.block_text: list[int] = []  # indexes in out of the current block's last text
        self.previous = " "  # the last character written, for quotes across tags

    def run(self, html: str) -> str:
        for index, token in enumerate(TOKENS.split(html)):
            if token is None or token == "":
                continue
            if index % 3 == 0:
                self._text(token)
            elif index % 3 == 1:
                self._tag(token)
        return "".join(self.out)

    def _tag(self, token: str) -> None:
        self.out.append(token)
        match = re.match(r"<(/?)([a-zA-Z0-9]+)", token)
        if not match or token.startswith("<!--") or not re.match(r"<[a-zA-Z/]", token):
            return
        closing, name = match.group(1), match.group(2).lower()
        if name in ("svg", "head", "style", "script", "code", "pre", "ruby"):
            self.previous = "x"
            return
        if name in VOID or token.endswith("/>"):
            if name == "br":
                self.previous = " "
            return
        if closing:
            self._close(name)
            return
        classes = (
            set(re.findall(r'class="([^"]*)"', token)[0].split()) if "class=" in token else set()
        )
        short = (
            name in HEADINGS or bool(classes & SHORT) or (bool(self.stack) and self.stack[-1][1])
        )
        self.stack.append((name, short))
        if name == "em" and "bouten" in classes:
            self.dots.append(len(self.stack))
        if name in BLOCKS:
            self.block_text.append(-1)
            self.previous = " "

    def _close(self, name: str) -> None:
        while self.stack:
            opened, _short = self.stack.pop()
            if opened == name:
                break
        while self.dots and self.dots[-1] > len(self.stack):
            self.dots.pop()
        if name in BLOCKS and self.block_text:
            last = self.block_text.pop()
            if last >= 0 and self.passes.japanese and self.passes.phrases:
                self.out[last] = _keep_tail(self.out[last])
            self.previous = " "

    def _text(self, token: str) -> None:
        text = html_lib.unescape(token)
        if not text.strip():
            self.out.append(token)
            return
        passes = self.passes
        if passes.smart:
            text = smart_punctuation(text, self.previous)
        self.previous = text[-1]
        short = bool(self.stack) and self.stack[-1][1]
        emphasis = (passes.kenten and any(tag == "em" for tag, _s in self.stack)) or (
            passes.weasyprint and bool(self.dots)
        )
        pieces = phrases(text) if passes.japanese and passes.phrases and short else [text]
        if short and len(pieces) > 1:
            pieces = _merge_short_tail(pieces)
        wrap: Callable[[str], str] = _kenten if emphasis else _escape
        rendered = "".join(
            f'<span class="ph">{wrap(p)}</span>'
            if short and len(pieces) > 1 and len(p.strip()) <= MAX_PHRASE
            else wrap(p)
            for p in pieces
        )
        self.out.append(rendered)
        if self.block_text and not short and not emphasis:
            self.block_text[-1] = len(self.out) - 1
        elif self.block_text:
            self.block_text[-1] = -1  # already set phrase by phrase


def _escape(text: str) -> str:
    return html_lib.escape(text, quote=False)


def _kenten(text: str) -> str:
    """Each character of Japanese emphasis in a span the stylesheet sets a sesame dot beside."""
    import unicodedata

    return "".join(
        _escape(char)
        if char.isspace() or unicodedata.category(char)[0] in "PZ"
        else f'<span class="kt">{_escape(char)}</span>'
        for char in text
    )


def _merge_short_tail(pieces: list[str]) -> list[str]:
    """The last phrase joined to the one before while it is shorter than MIN_TAIL characters."""
    if len(pieces) > 1 and len(pieces[-1].strip()) < MIN_TAIL:
        pieces = [*pieces[:-2], pieces[-2] + pieces[-1]]
    return pieces


def _keep_tail(rendered: str) -> str:
    """A paragraph's last text with its last phrase (at least MIN_TAIL characters) kept whole."""
    text = html_lib.unescape(rendered)
    # Only ASCII white space is the markup's: a full-width space (U+3000) is the writer's, and
    # WeasyPrint drops one left alone in a text of its own at a line's start or end.
    stripped = text.rstrip(ASCII_SPACE)
    if not JAPANESE.search(stripped[-MAX_PHRASE:]) or len(stripped) <= MIN_TAIL:
        return rendered
    window = stripped[-2 * MAX_PHRASE :]
    tail = _merge_short_tail(phrases(window))[-1]
    if len(tail.strip()) > MAX_PHRASE or len(tail) >= len(stripped):
        tail = stripped[-MIN_TAIL:]
    head = stripped[: len(stripped) - len(tail)]
    if not head.strip():  # only the paragraph's opening full-width space: kept with its text
        head, tail = "", head + tail
    return f'{_escape(head)}<span class="ph">{_escape(tail)}</span>{_escape(text[len(stripped) :])}'


def smart_punctuation(text: str, before: str = " ") -> str:
    """Typographic quotes, apostrophes, dashes and ellipses, as CommonMark's smart punctuation."""
    text = text.replace("...", "…").replace("---", "—").replace("--", "–")
    text = NUMBER_RANGE.sub("\\1–\\2", text)  # ages 20-32: an en dash between numbers
    out = []
    for index, char in enumerate(text):
        previous = text[index - 1] if index else before
        opening = previous.isspace() or previous in "([{–—\u2018\u201c/"
        if char == '"':
            out.append("\u201c" if opening else "\u201d")
        elif char == "'":
            out.append(
                "\u2018"
                if opening and index + 1 < len(text) and not text[index + 1].isspace()
                else "\u2019"
            )
        else:
            out.append(char)
    return "".join(out)
