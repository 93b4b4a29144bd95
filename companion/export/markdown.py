"""The story as one Markdown file, readable in any editor, in the chronicle's language.

The players' texts are Markdown already and go in as written (their top headings demoted, as the
story page does), except that raw HTML is escaped, images are left as their text (a viewer would
load an image's address as the file is opened: the story page shows none either), and each text
is closed off (an open code fence closed), so one text can neither run code in a viewer, nor
call out to another site, nor swallow the next; names and other plain fields are escaped. Needs a
Flask app context for the translations.

A file depends only on the chronicle's log at its version and the edition, so ``markdown_file``
keeps the latest ones in a cache bounded in bytes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import cmarkgfm
from flask_babel import force_locale, ngettext
from flask_babel import gettext as _

from companion.text import ruby
from companion.text.bytecache import ByteLRU
from companion.text.terms import card_name, kind_name, stage_name, suit_name, suit_symbol
from companion.text.wording import join_list

from ..legacy import KeystoneState, Roll, State, Text, TurningPoint
from ..legacy.model import Payment
from .contents import Contents, contents
from .typeset import printable

_SPECIAL = re.compile(r"([\\`*_\[\]<>#|~])")
_HEADING = re.compile(r"^(#{1,2})(?=\s|$)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}(?=[^`]*$)|~{3,})")
_CODE_SPAN = re.compile(r"(?<![`\\])(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_SENTINEL = "\n\n# end-of-text\n"
_ASCII_SPACES = re.compile(r"[ \t\r\n\f\v]+")
_BLANK_LINES = re.compile(r"\A(?:[ \t]*(?:\r\n|\r|\n))+")
# An image begins with ``![``; with its bracket escaped it is read as the text it is.
_IMAGE = re.compile(r"!(?=\[)")
# Made files by stream, version and edition. A sample life's file is about 40 KB; the largest
# legal one a few megabytes.
CACHE = ByteLRU(8 * 1024 * 1024)  # with every other cache, under 64 MiB a process (README)


def markdown_file(stream_id: str, version: int, state: State, edition: str) -> str:
    """``story_markdown`` of the chronicle ``stream_id`` at ``version``, made once per edition."""
    key = (stream_id, version, edition)
    text: str | None = CACHE.get(key)
    if text is None:
        text = story_markdown(state, edition)
        CACHE.put(key, text)
    return text


def story_markdown(state: State, edition: str = "annotated") -> str:
    """The whole story of ``state`` as Markdown (the annotated edition unless told otherwise)."""
    book = contents(state, edition)
    with force_locale(book.language):
        blocks = [*_cover(book)]
        for chapter in book.chapters:
            blocks.append(f"## {suit_symbol(chapter.stage.suit)} {stage_name(chapter.stage.index)}")
            sub = _("ages %(age)s", age=chapter.stage.age)
            blocks.append(f"*{suit_name(chapter.stage.suit)} · {sub}*")
            for tp in chapter.turning_points:
                blocks.extend(turning_point_blocks(book, tp))
        blocks.extend(_back_matter(book))
    # Characters no file should hold, stored before the app refused them, are left out.
    return printable("\n\n".join(block for block in blocks if block) + "\n")


def escape(text: str) -> str:
    """A plain text (a name, a player) with Markdown's special characters escaped."""
    # Runs of ASCII white space become one space; a full-width space (U+3000) is a character.
    return _special(_ASCII_SPACES.sub(" ", printable(text)).strip(" "))


def _special(text: str) -> str:
    return _SPECIAL.sub(r"\\\1", text)


def escape_notation(text: str) -> str:
    """A plain text that may hold ruby notation (a prompt), escaped as ``escape`` does except
    for the notation's own bars: the file keeps ``|親字《ルビ》`` as written, and the vault can
    make it ruby (``\\|`` would leave a backslash before the ruby's tag)."""
    text = _ASCII_SPACES.sub(" ", printable(text)).strip(" ")
    return "".join(
        _escape_piece(piece) if isinstance(piece, ruby.Piece) else _words(piece)
        for piece in ruby.pieces(text)
    )


def _escape_piece(piece: ruby.Piece) -> str:
    if piece.kind == "escape":
        return piece.written  # a bar before 《: the bar is the notation's, not a table's
    if piece.kind == "dots":
        return f"《《{escape_notation(piece.base)}》》"
    bar = piece.written[0] if piece.written[0] in "|｜" else ""
    return f"{bar}{_words(piece.base)}《{_words(piece.reading)}》"


def _words(text: str) -> str:
    # ``&lt;`` rather than ``\<``: the vault makes ruby of the notation and escapes each ``<``
    # then, which would turn ``\<`` into a shown ``&lt;``.
    return _special(text.replace("<", "&lt;"))


def demote(text: str) -> str:
    """A player's Markdown with its level-1 and level-2 headings made level 3 and 4."""
    lines, fenced = [], False
    # Only blank lines around the text go: a line may begin with a full-width space (U+3000),
    # the indent of a Japanese paragraph, which ``str.strip`` would take.
    for line in _BLANK_LINES.sub("", text).rstrip(" \t\r\n").splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        lines.append(line if fenced else _HEADING.sub(lambda m: "##" + m.group(1), line))
    return "\n".join(lines)


def player_text(text: str) -> str:
    """A player's Markdown made safe to set among others: headings demoted, raw HTML escaped,
    and closed off so that whatever follows it is read as written."""
    lines, still_open = _escape_html(demote(printable(text)).splitlines())
    if still_open is not None:
        lines.append(still_open)
    closed = "\n".join(lines)
    html = cmarkgfm.markdown_to_html(closed)
    if "<!-- raw HTML omitted -->" in html or "<img" in html:
        # Never happens with the rules above; code shown with a stray escape is the price.
        closed = _IMAGE.sub(r"!\\", "\n".join(lines).replace("<", "&lt;"))
    if not cmarkgfm.markdown_to_html(closed + _SENTINEL).endswith("<h1>end-of-text</h1>\n"):
        closed = quote(closed)  # a block quote always ends at the blank line after it
    return closed


def _escape_html(lines: list[str]) -> tuple[list[str], str | None]:
    """``<`` escaped outside fenced code and code spans; the fence still open at the end, if any,
    is returned as the line that closes it."""
    return _outside_code(lines, _plain)


def _outside_code(lines: list[str], change: Callable[[str], str]) -> tuple[list[str], str | None]:
    """``lines`` with ``change`` made to their text outside fenced code and code spans; the
    fence still open at the end, if any, as the line that closes it."""
    out: list[str] = []
    fence: str | None = None
    for line in lines:
        if fence is not None:
            stripped = line.strip()
            if len(line) - len(line.lstrip(" ")) < 4 and stripped and set(stripped) == {fence[0]}:
                fence = None if len(stripped) >= len(fence) else fence
            out.append(line)
            continue
        opening = _FENCE_OPEN.match(line)
        if opening:
            fence = opening.group(1)
            out.append(line)
            continue
        out.append(_outside_code_spans(line, change))
    return out, fence


def _outside_code_spans(line: str, change: Callable[[str], str]) -> str:
    pieces, start = [], 0
    for span in _CODE_SPAN.finditer(line):
        pieces.append(change(line[start : span.start()]))
        pieces.append(span.group(0))
        start = span.end()
    pieces.append(change(line[start:]))
    return "".join(pieces)


def ruby_as_html(markdown: str) -> str:
    """Markdown whose ruby notation (``companion.text.ruby``), outside code, is written as HTML
    ruby, which Obsidian and other Markdown viewers show as ruby."""
    if "《" not in markdown:
        return markdown
    lines, _open = _outside_code(markdown.split("\n"), _ruby_in_markdown)
    return "\n".join(lines)


def _ruby_in_markdown(text: str) -> str:
    # Markdown stays Markdown around and inside the ruby (its entities, its ``&lt;`` for a
    # typed ``<``); only a ``<`` that could open a tag is escaped.
    return ruby.to_html(text, lambda words: words.replace("<", "&lt;"))


def _plain(text: str) -> str:
    """Text outside code: no raw HTML, and every image left as its text."""
    return _IMAGE.sub(r"!\\", text.replace("<", "&lt;"))


def quote(text: str) -> str:
    """Markdown set inside a block quote."""
    return "\n".join(f"> {line}".rstrip(" \t") for line in text.splitlines())


def _cover(book: Contents) -> Iterator[str]:
    setup = book.state.setup
    yield f"# {escape(_('The life of %(name)s', name=setup.pioneer))}"
    if setup.people:
        yield f"*{escape(setup.people)}*"
    if setup.concept:
        yield player_text(setup.concept)
    facts = [
        f"- {labelled_value(_('Ages'), book.age_span)}",
        f"- {labelled_value(_('Legacy marks'), str(len(book.marks)))}",
        *(f"  - ◆ {escape(mark.name.value)}" for mark in book.marks),
        f"- {labelled_value(_('Told by'), escape(join_list(setup.players)))}",
    ]
    yield "\n".join(facts)


def turning_point_blocks(book: Contents, tp: TurningPoint) -> Iterator[str]:
    """A turning point\'s Markdown blocks: its card as a heading, then what was told."""
    player = book.state.setup.players[tp.seat]
    yield f"### {escape(card_name(tp.card))}"
    yield f"*{_('Round %(r)d, turn %(t)d', r=tp.round, t=tp.turn)} · {escape(player)}*"
    if tp.question is not None:
        yield _labelled(_("Our own question"), tp.question)
    elif tp.prompt:
        yield quote(escape_notation(tp.prompt))
    yield _text(tp.answer)
    if book.features.mechanics:
        yield from _mechanics(book, tp)
    else:
        if tp.withdrawn:
            yield f"*{taken_back(len(tp.withdrawn))}*"
        # The story edition tells each sacrifice's two answers as prose.
        for pay in tp.payments:
            if pay.kind == "sacrifice":
                yield _text(pay.why)
                yield _text(pay.outcome)
    for loss in tp.losses:
        if book.features.mechanics:
            yield f"**{escape(_loss_title(book.keystones[loss.keystone]))}**"
        yield _text(loss.narration)
    if book.features.mechanics and tp.outcome:
        yield f"**{_outcome(tp.outcome)}**"
    yield _text(tp.narration)
    mark = book.mark_of(tp)
    if mark is not None:
        heading = labelled_value(_("Legacy mark %(n)d", n=mark.number), escape(mark.name.value))
        title = f"◆ **{heading}**"
        description = player_text(mark.description.value)
        yield quote(title + ("\n\n" + description if description else ""))


def _mechanics(book: Contents, tp: TurningPoint) -> Iterator[str]:
    yield _labelled(_("On success"), tp.stakes_success)
    yield _labelled(_("On failure"), tp.stakes_failure)
    for taken_back in tp.withdrawn:
        yield f"~~{_roll(taken_back)}~~ *({_('Taken back: this roll was withdrawn and rolled again.')})*"
    for index, roll in enumerate(tp.rolls):
        yield _roll(roll)
        if index < len(tp.payments):
            yield from _payment(book, tp.payments[index])


def _roll(roll: Roll) -> str:
    label = _("Reroll") if roll.reroll else _("Roll")
    result = _("success") if roll.success else _("failure")
    faces = " · ".join(str(face) for face in roll.faces)
    return f"{labelled_value(f'*{label}*', faces)} — {result}"


def labelled_value(label: str, value: str) -> str:
    """A label and its value, with the colon of the reader's language (：in Japanese)."""
    return str(_("%(label)s: %(value)s", label=label, value=value))


def taken_back(count: int) -> str:
    """The story edition's note that rolls were withdrawn here (their dice are not shown)."""
    return str(
        ngettext(
            "A roll was taken back here and rolled again.",
            "%(num)d rolls were taken back here and rolled again.",
            count,
        )
    )


def _payment(book: Contents, pay: Payment) -> Iterator[str]:
    if pay.kind != "sacrifice" or pay.keystone is None:
        yield f"**{_('A reroll token was spent.')}**"
        return
    keystone = book.keystones[pay.keystone]
    name, kind = keystone.keystone.name, kind_name(keystone.kind)
    yield f"**{escape(_('Sacrificed: %(name)s (%(kind)s)', name=name, kind=kind))}**"
    yield _labelled(_("Why was this sacrifice necessary?"), pay.why)
    yield _labelled(_("What came of it?"), pay.outcome)


def _back_matter(book: Contents) -> Iterator[str]:
    state = book.state
    if state.epilogue is not None:
        yield f"## {_('Epilogue')}"
        yield _text(state.epilogue)
    yield f"## {_('Appendix: the keystones and their fates')}"
    for kind in book.kinds:
        yield f"### {kind_name(kind, plural=True)}"
        yield "\n".join(_fate(k) for k in book.keystones_of(kind)) or f"- {_('none')}"
    if book.features.mechanics:
        count = len(state.tokens)
        yield ngettext(
            "%(num)d reroll token left unspent.", "%(num)d reroll tokens left unspent.", count
        )


def _fate(keystone: KeystoneState) -> str:
    line = f"- **{escape(keystone.keystone.name)}**"
    if keystone.keystone.description:
        line += f" — {escape(keystone.keystone.description)}"
    return f"{line} — *{fate(keystone)}*"


def fate(keystone: KeystoneState) -> str:
    """What became of a keystone, in words."""
    if keystone.status == "kept" or keystone.stage is None:
        return str(_("kept to the end"))
    stage, number = stage_name(keystone.stage), keystone.round
    if keystone.status == "sacrificed":
        return str(_("sacrificed in %(stage)s, round %(r)d", stage=stage, r=number))
    return str(_("lost in %(stage)s, round %(r)d", stage=stage, r=number))


def _loss_title(keystone: KeystoneState) -> str:
    return str(
        _(
            "Lost in the story: %(name)s (%(kind)s) — one reroll token gained",
            name=keystone.keystone.name,
            kind=kind_name(keystone.kind),
        )
    )


def _outcome(outcome: str) -> str:
    if outcome == "mark":
        return str(_("Success — a legacy mark is built."))
    return str(_("Success.") if outcome == "success" else _("Failure: the round ends."))


def _labelled(label: str, text: Text | None) -> str:
    body = _text(text)
    return f"*{label}*\n\n{body}" if body else ""


def _text(text: Text | None) -> str:
    return player_text(text.value) if text is not None and text.value.strip() else ""
