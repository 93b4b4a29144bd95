"""The life as an Obsidian vault: a zip of Markdown notes linked by ``[[wikilinks]]``.

One note per turning point, its facts in YAML front matter (``FIELDS``); one note per stage and an
index, linked in reading order; the epilogue; the Pioneer's keystones and their fates; the timeline
as an SVG attachment. Notes are named so that sorting them by name is reading order. Every text
goes in as the Markdown export sets it (raw HTML escaped, headings demoted), with ``[[`` escaped so
that a player's text never makes a link of its own. In the chronicle's language; needs a Flask
app context for the translations.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass

from flask_babel import force_locale
from flask_babel import gettext as _

from companion.text.bidi import strip_controls
from companion.text.story import life_timeline
from companion.text.terms import card_name, kind_name, stage_name, suit_symbol

from ..legacy import State, TurningPoint
from .contents import Contents, contents
from .markdown import escape, fate, player_text, ruby_as_html, turning_point_blocks
from .typeset import printable

# The front matter of a turning point's note, in this order.
FIELDS = (
    "stage", "round", "turn", "card", "prompt", "dice", "result", "keystones_lost", "marks",
    "players", "tags",
)  # fmt: skip
UNSAFE_NAME = re.compile(r'[\x00-\x1f\\/:*?"<>|#^\[\]]+')
# A note's or the folder's name, in UTF-8 bytes: file systems hold 255 a name (ext4, APFS, a
# zip's unpacker writing to them), and a note's name still takes ".md".
NAME_BYTES = 200
NAME_CHARACTERS = 80  # enough for any title a reader scans in a file list
STAMP = (1980, 1, 1, 0, 0, 0)  # every file's date in the zip, so the same life gives the same bytes
ATTACHMENT = "timeline.svg"


@dataclass(frozen=True)
class Note:
    """One note of the vault: its name (without ``.md``) and its Markdown."""

    name: str
    text: str


def make_vault(state: State, edition: str = "annotated") -> bytes:
    """The vault as a zip: a folder holding the notes and the timeline picture."""
    book = contents(state, edition)
    with force_locale(book.language):
        folder = note_name(_("The life of %(name)s", name=state.setup.pioneer))
        notes = vault_notes(book)
        svg = str(life_timeline(state, [stage_name(i) for i in range(4)], folder))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for note in notes:
            _add(archive, f"{folder}/{note.name}.md", note.text)
        _add(archive, f"{folder}/attachments/{ATTACHMENT}", svg)
    return out.getvalue()


def _add(archive: zipfile.ZipFile, name: str, text: str) -> None:
    info = zipfile.ZipInfo(name, STAMP)
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, printable(text).encode("utf-8"))


def note_name(text: str) -> str:
    """A note's file name: no character a file system or a wikilink cannot hold, no
    bidirectional control (a file list shows a name alone, where no isolate can hold one), and
    at most NAME_BYTES bytes of UTF-8, cut between two characters."""
    name = " ".join(UNSAFE_NAME.sub(" ", strip_controls(printable(text))).split())
    cut = name[:NAME_CHARACTERS].encode("utf-8")[:NAME_BYTES].decode("utf-8", "ignore")
    return cut.strip(" .") or "note"


def vault_notes(book: Contents) -> list[Note]:
    """Every note in reading order: index, then each stage and its turning points, the
    epilogue and the keystones."""
    state = book.state
    stages = [
        note_name(f"{n:02d} {stage_name(c.stage.index)}") for n, c in enumerate(book.chapters, 1)
    ]
    points = {
        tp.seq: note_name(f"{n:02d}.{i:02d} {card_name(tp.card)}")
        for n, chapter in enumerate(book.chapters, 1)
        for i, tp in enumerate(chapter.turning_points, 1)
    }
    index = note_name(f"00 {_('Contents')}")
    epilogue = note_name(f"{len(stages) + 1:02d} {_('Epilogue')}") if state.epilogue else None
    keystones = note_name(f"{len(stages) + 2:02d} {_('Keystones')}")
    order = [index]
    for chapter, stage in zip(book.chapters, stages, strict=True):
        order += [stage, *(points[tp.seq] for tp in chapter.turning_points)]
    order += [name for name in (epilogue, keystones) if name]
    notes = [Note(index, _index(book, stages, epilogue, keystones))]
    for chapter, stage in zip(book.chapters, stages, strict=True):
        notes.append(
            Note(stage, _stage(chapter, [points[tp.seq] for tp in chapter.turning_points]))
        )
        for tp in chapter.turning_points:
            notes.append(Note(points[tp.seq], _point(book, tp, stage)))
    if epilogue and state.epilogue is not None:
        notes.append(Note(epilogue, f"# {_('Epilogue')}\n\n{_own(state.epilogue.value)}\n"))
    notes.append(Note(keystones, _keystones(book, points)))
    return [Note(n.name, n.text + _footer(order, n.name, index)) for n in notes]


def link(name: str, shown: str | None = None) -> str:
    """A wikilink to a note, shown as ``shown`` if given."""
    return f"[[{name}|{_link_text(shown)}]]" if shown else f"[[{name}]]"


def _link_text(text: str | None) -> str:
    return re.sub(r"[\[\]|]", " ", text or "")


def _own(markdown: str) -> str:
    """A player's Markdown as the exports set it, unable to make a wikilink or an embed."""
    return ruby_as_html(player_text(markdown).replace("[[", "\\[\\["))


def _footer(order: Sequence[str], name: str, index: str) -> str:
    """Links to the note before and after this one, and back to the index."""
    position = order.index(name)
    parts = []
    if position > 0:
        parts.append(f"← {link(order[position - 1])}")
    if name != index:
        parts.append(link(index))
    if position + 1 < len(order):
        parts.append(f"{link(order[position + 1])} →")
    return "\n---\n\n" + " · ".join(parts) + "\n"


def _index(book: Contents, stages: list[str], epilogue: str | None, keystones: str) -> str:
    setup = book.state.setup
    lines = [
        _front({"players": list(setup.players), "language": book.language, "tags": ["ijinsho"]}),
        f"# {escape(_('The life of %(name)s', name=setup.pioneer))}",
    ]
    if setup.people:
        lines.append(f"*{escape(setup.people)}*")
    if setup.concept:
        lines.append(_own(setup.concept))
    lines.append(f"![[{ATTACHMENT}]]")
    lines.append(f"## {_('Contents')}")
    entries = [f"- {link(s)}" for s in stages]
    entries += [f"- {link(epilogue)}"] if epilogue else []
    entries.append(f"- {link(keystones)}")
    lines.append("\n".join(entries))
    if book.marks:
        lines.append(f"## {_('Legacy marks')}")
        lines.append("\n".join(f"- ◆ {escape(m.name.value)}" for m in book.marks))
    return "\n\n".join(lines) + "\n"


def _stage(chapter: object, names: list[str]) -> str:
    stage = chapter.stage  # type: ignore[attr-defined]
    head = _front({"stage": stage_name(stage.index), "tags": ["ijinsho/stage"]})
    title = f"# {suit_symbol(stage.suit)} {stage_name(stage.index)}"
    sub = f"*{_('ages %(age)s', age=stage.age)}*"
    body = "\n".join(f"{n}. {link(name)}" for n, name in enumerate(names, 1))
    return f"{head}\n\n{title}\n\n{sub}\n\n{body}\n"


def _point(book: Contents, tp: TurningPoint, stage: str) -> str:
    setup = book.state.setup
    facts = {
        "stage": stage_name(tp.stage),
        "round": tp.round,
        "turn": tp.turn,
        "card": card_name(tp.card),
        "prompt": tp.question.value if tp.question is not None else (tp.prompt or ""),
        "dice": [list(roll.faces) for roll in tp.rolls],
        "result": tp.outcome or "open",
        "keystones_lost": _fallen(book, tp),
        "marks": [book.state.marks[tp.mark].name.value] if tp.mark is not None else [],
        "players": [setup.players[tp.seat]],
        "tags": ["ijinsho/turning-point"],
    }
    blocks = list(turning_point_blocks(book, tp))
    title = f"# {escape(card_name(tp.card))}"
    where = link(stage, stage_name(tp.stage))
    # The Markdown export's blocks, its first (the card's heading) made the note's title; the
    # texts inside them are a player's, so no ``[[`` there may start a link.
    # Ruby notation is written as HTML ruby, which Obsidian shows as ruby.
    body = [ruby_as_html(b.replace("[[", "\\[\\[")) for b in blocks[1:] if b]
    return "\n\n".join([_front(facts), title, where, *body]) + "\n"


def _fallen(book: Contents, tp: TurningPoint) -> list[str]:
    ids = [p.keystone for p in tp.payments if p.kind == "sacrifice" and p.keystone is not None]
    ids += [loss.keystone for loss in tp.losses]
    return [book.keystones[i].keystone.name for i in ids]


def _keystones(book: Contents, points: dict[int, str]) -> str:
    lines = [_front({"tags": ["ijinsho/keystones"]}), f"# {_('Keystones')}"]
    where = _where_fallen(book, points)
    for kind in book.kinds:
        lines.append(f"## {kind_name(kind, plural=True)}")
        entries = []
        for keystone in book.keystones_of(kind):
            entry = f"- **{escape(keystone.keystone.name)}**"
            if keystone.keystone.description:
                entry += f" — {escape(keystone.keystone.description)}"
            entry += f" — *{fate(keystone)}*"
            if keystone.id in where:
                entry += f" ({link(where[keystone.id])})"
            entries.append(entry)
        lines.append("\n".join(entries) or f"- {_('none')}")
    return "\n\n".join(lines) + "\n"


def _where_fallen(book: Contents, points: dict[int, str]) -> dict[str, str]:
    fallen: dict[str, str] = {}
    for tp in book.state.turning_points:
        for pay in tp.payments:
            if pay.keystone is not None:
                fallen[pay.keystone] = points[tp.seq]
        for loss in tp.losses:
            fallen[loss.keystone] = points[tp.seq]
    return fallen


def _front(fields: dict[str, object]) -> str:
    """YAML front matter: every string double-quoted and escaped, so any text parses back."""
    return (
        "---\n" + "".join(f"{key}: {yaml_value(value)}\n" for key, value in fields.items()) + "---"
    )


def yaml_value(value: object) -> str:
    """A value as YAML: numbers as they are, strings double-quoted, lists in flow style."""
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list | tuple):
        inner = ", ".join(yaml_value(item) for item in value)
        # "[ [" rather than "[[", which Obsidian would read as a link.
        return f"[ {inner} ]" if inner.startswith("[") else f"[{inner}]"
    return yaml_string(str(value))


ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\x85": "\\N"}
ESCAPES |= {"\u2028": "\\L", "\u2029": "\\P", "\ufeff": "\\uFEFF"}


def yaml_string(text: str) -> str:
    """``text`` as a YAML double-quoted scalar that PyYAML and Obsidian read back exactly."""
    return '"' + "".join(_yaml_char(char) for char in printable(text)) + '"'


def _yaml_char(char: str) -> str:
    if char in ESCAPES:
        return ESCAPES[char]
    code = ord(char)
    printable_yaml = 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD
    if printable_yaml or code >= 0x10000:
        return char
    return f"\\u{code:04X}"
