"""The prompt pack file format: a small front-matter header, then one ``## <card>`` section per card.

A pack is Markdown so that anyone can write one in a text editor::

    ---
    name: standard
    language: en
    title: The standard pack
    ---

    ## AH
    - The Pioneer leaves home for the first time. What is the last thing they see?
    - A second prompt, which may continue
      on indented lines.

``parse_pack`` reads a whole file and either returns a ``Pack`` or raises one ``PackError``
listing every problem found, each with its line number and card. See ``docs/prompt-packs.md``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from companion.base.languages import LANGUAGES
from companion.text import ruby
from companion.text.input_text import first_refused

SUITS = ("H", "D", "C", "S")
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
CARDS = tuple(rank + suit for suit in SUITS for rank in RANKS)
HEADER_KEYS = ("name", "language", "title", "author", "licence", "description")
KEY_ALIASES = {"license": "licence", "lang": "language"}
MAX_BYTES = 200 * 1024
MAX_PROMPT_CHARS = 500
MAX_HEADER_CHARS = 300
MIN_PROMPTS = 1
MAX_PROMPTS = 4

_NAME = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?")
_HEADER_LINE = re.compile(r"([A-Za-z_-]+)\s*:\s*(.*)")
_COMMENT = re.compile(r"<!--.*-->")
_FENCE = "---"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a pack file."""

    code: str
    message: str
    line: int | None = None
    card: str | None = None

    def __str__(self) -> str:
        where = [f"line {self.line}"] if self.line is not None else []
        where += [f"card {self.card}"] if self.card else []
        return ", ".join(where) + ": " + self.message if where else self.message


class PackError(ValueError):
    """A pack file that cannot be used; ``problems`` lists every fault found."""

    def __init__(self, problems: Iterable[Problem], source: str = "<upload>") -> None:
        self.problems = tuple(sorted(problems, key=lambda p: p.line or 0))
        self.source = source
        super().__init__("\n".join(str(problem) for problem in self.problems))

    def lines(self) -> list[str]:
        """Every problem as ``SOURCE:LINE: card XX: message``, the usual compiler form."""
        return [_located(self.source, problem) for problem in self.problems]


def _located(source: str, problem: Problem) -> str:
    line = f":{problem.line}" if problem.line is not None else ""
    card = f" card {problem.card}:" if problem.card else ""
    return f"{source}{line}:{card} {problem.message}"


@dataclass(frozen=True)
class Pack:
    """A valid prompt pack in one language; ``prompts`` holds all 52 cards in canonical order."""

    name: str
    language: str
    title: str
    author: str
    licence: str
    description: str
    prompts: Mapping[str, tuple[str, ...]] = field(hash=False)

    def prompt_count(self) -> int:
        """How many prompts the pack holds across all cards."""
        return sum(len(texts) for texts in self.prompts.values())


@dataclass
class _Section:
    card: str
    line: int
    prompts: list[tuple[int, list[str]]] = field(default_factory=list)


@dataclass
class _Reader:
    problems: list[Problem] = field(default_factory=list)
    header: dict[str, tuple[int, str]] = field(default_factory=dict)
    sections: list[_Section] = field(default_factory=list)
    current: _Section | None = None
    swallowing: bool = False

    def fail(self, code: str, message: str, line: int | None, card: str | None = None) -> None:
        self.problems.append(Problem(code, message, line, card))


def parse_pack_bytes(data: bytes, source: str = "<upload>", reserved: Iterable[str] = ()) -> Pack:
    """Parse an uploaded or on-disk pack file given as bytes, which must be UTF-8."""
    _check_size(len(data), source)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        message = (
            f"the file is not UTF-8 text (invalid byte at offset {exc.start}); save it as UTF-8"
        )
        raise PackError([Problem("not-utf8", message, line)], source) from exc
    return parse_pack(text, source, reserved)


def parse_pack(text: str, source: str = "<upload>", reserved: Iterable[str] = ()) -> Pack:
    """Parse a pack file; raise ``PackError`` listing every problem. ``reserved``: names refused."""
    _check_size(len(text.encode("utf-8", "surrogatepass")), source)
    lines = text.removeprefix("\ufeff").splitlines()
    if not any(line.strip() for line in lines):
        raise PackError([Problem("empty-file", "the file is empty", 1)], source)
    reader = _Reader()
    for number, line in enumerate(lines, 1):
        refused = first_refused(line)
        if refused is not None:
            message = f"the line holds U+{refused[0]:04X}, which is not text (a control character"
            reader.fail("bad-character", message + " or a noncharacter); remove it", number)
    body_start = _read_header(lines, reader)
    _read_body(lines, body_start, reader)
    if body_start > 0:
        _check_header(reader, body_start, frozenset(reserved))
    prompts = _check_cards(reader, len(lines))
    if reader.problems:
        raise PackError(reader.problems, source)
    return _build_pack(reader.header, prompts)


def _check_size(size: int, source: str) -> None:
    if size > MAX_BYTES:
        message = f"the file is {size} bytes; a pack may be at most {MAX_BYTES} bytes (200 KB)"
        raise PackError([Problem("too-large", message)], source)


def _read_header(lines: list[str], reader: _Reader) -> int:
    """Read the front matter into ``reader.header``; return the index where the body starts."""
    first = next(i for i, line in enumerate(lines) if line.strip())
    if lines[first].strip() != _FENCE:
        message = "the file must start with a header between two '---' lines (name, language, ...)"
        reader.fail("missing-header", message, first + 1)
        return 0
    for index in range(first + 1, len(lines)):
        if lines[index].strip() == _FENCE:
            return index + 1
        if lines[index].startswith(("#", "- ")):
            break
        _read_header_line(lines[index], index + 1, reader)
    else:
        index = len(lines)
    message = "the header opened here is not closed by a '---' line before the cards"
    reader.fail("unclosed-header", message, first + 1)
    return index


def _read_header_line(text: str, line: int, reader: _Reader) -> None:
    if not text.strip() or _COMMENT.fullmatch(text.strip()):
        return
    match = _HEADER_LINE.fullmatch(text.strip())
    if match is None:
        reader.fail("bad-header-line", f"header line {text.strip()!r} is not 'key: value'", line)
        return
    key = KEY_ALIASES.get(match[1].lower(), match[1].lower())
    if key not in HEADER_KEYS:
        known = ", ".join(HEADER_KEYS)
        reader.fail("unknown-header-key", f"unknown header key {match[1]!r}; known: {known}", line)
    elif key in reader.header:
        first = reader.header[key][0]
        reader.fail(
            "duplicate-header-key", f"header key {key!r} already given on line {first}", line
        )
    else:
        reader.header[key] = (line, match[2].strip())


def _read_body(lines: list[str], start: int, reader: _Reader) -> None:
    for index in range(start, len(lines)):
        text = lines[index]
        if text.strip() and not _COMMENT.fullmatch(text.strip()):
            _read_body_line(text, index + 1, reader)


def _read_body_line(text: str, line: int, reader: _Reader) -> None:
    stripped = text.strip()
    if text.startswith("#"):
        _open_section(stripped, line, reader)
    elif reader.swallowing:
        return
    elif reader.current is None:
        message = "text outside a card section; start a section with '## <card>' first"
        reader.fail("outside-card", message, line)
    elif not text[0].isspace() and (stripped == "-" or stripped.startswith("- ")):
        reader.current.prompts.append((line, [stripped[1:].strip()]))
    elif text[0].isspace() and reader.current.prompts:
        reader.current.prompts[-1][1].append(stripped)
    else:
        message = "a card section holds '- ' prompts, each continued on indented lines if needed"
        reader.fail("stray-text", message, line, reader.current.card)


def _open_section(stripped: str, line: int, reader: _Reader) -> None:
    reader.current, reader.swallowing = None, True
    if not stripped.startswith("## "):
        message = f"unexpected heading {stripped!r}; a card section starts with '## ' and a card"
        reader.fail("bad-heading", message, line)
        return
    card = stripped[3:].strip().upper()
    earlier = next((s for s in reader.sections if s.card == card), None)
    if card not in CARDS:
        message = (
            f"unknown card code {stripped[3:].strip()!r}; use A, 2-10, J, Q or K and H, D, C or S"
        )
        reader.fail("unknown-card", message, line)
    elif earlier is not None:
        message = f"duplicate card: it already has a section on line {earlier.line}"
        reader.fail("duplicate-card", message, line, card)
    else:
        reader.current, reader.swallowing = _Section(card, line), False
        reader.sections.append(reader.current)


def _check_header(reader: _Reader, body_start: int, reserved: frozenset[str]) -> None:
    for key in ("name", "language"):
        if not reader.header.get(key, (0, ""))[1]:
            line = reader.header.get(key, (body_start, ""))[0]
            reader.fail(f"missing-{key}", f"the header needs a '{key}:' with a value", line)
    if "name" in reader.header:
        _check_name(*reader.header["name"], reader, reserved)
    if reader.header.get("language", (0, ""))[1]:
        line, language = reader.header["language"]
        if language not in LANGUAGES:
            offered = " or ".join(repr(code) for code in LANGUAGES)
            message = f"unsupported language {language!r}; a pack is in {offered}"
            reader.fail("unsupported-language", message, line)
    for key, (line, value) in reader.header.items():
        if len(value) > MAX_HEADER_CHARS:
            message = f"the {key} is {len(value)} characters; the limit is {MAX_HEADER_CHARS}"
            reader.fail("header-too-long", message, line)


def _check_name(line: int, name: str, reader: _Reader, reserved: frozenset[str]) -> None:
    if name and not _NAME.fullmatch(name):
        message = f"bad pack name {name!r}: use 1 to 40 of a-z, 0-9 and '-', not at either end"
        reader.fail("bad-name", message, line)
    elif name in reserved:
        message = f"the name {name!r} belongs to a shipped pack; choose another name"
        reader.fail("reserved-name", message, line)


def _check_cards(reader: _Reader, last_line: int) -> dict[str, tuple[str, ...]]:
    seen: dict[str, tuple[str, int]] = {}
    for section in reader.sections:
        _check_count(section, reader)
        for line, parts in section.prompts:
            _check_prompt(section.card, line, "\n".join(parts), seen, reader)
    missing = [card for card in CARDS if card not in {s.card for s in reader.sections}]
    if missing:
        message = f"{len(missing)} missing cards: {', '.join(missing)}; every card needs a section"
        reader.fail("missing-cards", message, max(last_line, 1))
    texts = {s.card: tuple("\n".join(parts) for _, parts in s.prompts) for s in reader.sections}
    return {card: texts[card] for card in CARDS if card in texts}


def _check_count(section: _Section, reader: _Reader) -> None:
    count = len(section.prompts)
    if count < MIN_PROMPTS:
        message = f"no prompts; a card takes {MIN_PROMPTS} to {MAX_PROMPTS}"
        reader.fail("no-prompts", message, section.line, section.card)
    elif count > MAX_PROMPTS:
        message = f"{count} prompts; a card takes {MIN_PROMPTS} to {MAX_PROMPTS}"
        reader.fail("too-many-prompts", message, section.line, section.card)


def _check_prompt(
    card: str, line: int, text: str, seen: dict[str, tuple[str, int]], reader: _Reader
) -> None:
    key = normalise_prompt(text)
    if not text.strip():
        reader.fail("empty-prompt", "empty prompt: write the question after '- '", line, card)
    elif len(text) > MAX_PROMPT_CHARS:
        message = f"prompt is {len(text)} characters long; the limit is {MAX_PROMPT_CHARS}"
        reader.fail("prompt-too-long", message, line, card)
    elif key in seen:
        other, other_line = seen[key]
        message = f"duplicate prompt: the same as card {other}'s on line {other_line}"
        reader.fail("duplicate-prompt", message, line, card)
    else:
        seen[key] = (card, line)


def valid_name(name: str) -> bool:
    """Whether ``name`` is a pack name: 1 to 40 of a-z, 0-9 and '-', not at either end."""
    return _NAME.fullmatch(name) is not None


def normalise_prompt(text: str) -> str:
    """The prompt as a reader sees it (ruby readings left out: ``companion.text.ruby``) reduced
    to its letters and digits, case- and width-folded, for duplicate checks."""
    folded = unicodedata.normalize("NFKC", ruby.to_plain(text)).casefold()
    return re.sub(r"[\W_]+", "", folded)


def _build_pack(header: dict[str, tuple[int, str]], prompts: dict[str, tuple[str, ...]]) -> Pack:
    value = {key: header[key][1] if key in header else "" for key in HEADER_KEYS}
    return Pack(
        name=value["name"],
        language=value["language"],
        title=value["title"] or value["name"],
        author=value["author"],
        licence=value["licence"],
        description=value["description"],
        prompts=prompts,
    )


def pack_to_text(pack: Pack) -> str:
    """The canonical file text of ``pack``; ``parse_pack`` reads it back to an equal pack."""
    header = [f"{key}: {getattr(pack, key)}" for key in HEADER_KEYS if getattr(pack, key)]
    out = [_FENCE, *header, _FENCE]
    for card in CARDS:
        out += ["", f"## {card}"]
        for prompt in pack.prompts.get(card, ()):
            first, *rest = prompt.split("\n")
            out += [f"- {first}", *(f"  {more}" for more in rest)]
    return "\n".join(out) + "\n"
