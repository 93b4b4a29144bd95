"""Every ``companion`` command line the documents show is one the command takes: its commands
and subcommands exist, its options are that command's, and a choice it names is one offered.
The documents point to ``companion COMMAND -h`` for the full lists rather than copy them."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from companion.app import main

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
INLINE = re.compile(r"`companion( [^`]+)?`")
BLOCK_LINE = re.compile(r"^(?:\$ )?companion( .+)?$", re.M)


def command_lines(text: str) -> list[str]:
    """The ``companion ...`` command lines of a Markdown text, inline or in a code block."""
    text = text.replace("\\|", "|")
    lines = [m.group(1) or "" for m in INLINE.finditer(text)]
    for block in re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S):
        lines += [m.group(1) or "" for m in BLOCK_LINE.finditer(block)]
    return [line.split("#")[0].strip() for line in lines]


def _placeholder(word: str) -> bool:
    return not word.strip("[]…,.") or word.strip("[]…,.").replace("-", "").isupper()


def _options(command: click.Command) -> dict[str, click.Parameter | None]:
    named: dict[str, click.Parameter | None] = {
        o: p for p in command.params for o in [*p.opts, *p.secondary_opts]
    }
    named.update(dict.fromkeys(("-h", "--help")))  # every command's (``ops.cli``)
    return named


def wrong(line: str) -> list[str]:
    """What in ``companion LINE`` the command does not take (with ``a|b`` commands, an option
    belongs to one of them at least)."""
    found: list[str] = []
    commands: list[click.Command] = [main]
    words = line.split()
    for i, raw in enumerate(words):
        word = raw.strip("[]`,")
        after_option = i > 0 and words[i - 1].strip("[").startswith("-")
        if not word or word in ("·", "|", "…") or not commands:
            continue
        if word.startswith("-"):
            name = word.split("=")[0].rstrip("…")
            having = [c for c in commands if name in _options(c)]
            if not having:
                found.append(f"{commands[0].name} has no {name}")
            for command in having:
                choice = getattr(_options(command)[name], "type", None)
                if isinstance(choice, click.Choice) and i + 1 < len(words):
                    values = words[i + 1].strip("[]`,").split("|")
                    found += [
                        f"{command.name} {name} has no choice {value}"
                        for value in values
                        if not _placeholder(value) and value not in choice.choices
                    ]
            continue
        if all(isinstance(c, click.Group) for c in commands) and not after_option:
            if _placeholder(word):
                commands = []  # `companion COMMAND -h`: any command
                continue
            subs: list[click.Command] = []
            for command in commands:
                assert isinstance(command, click.Group)
                for name in word.split("|"):
                    if name in command.commands:
                        subs.append(command.commands[name])
                    else:
                        found.append(f"{command.name} has no command {name}")
            commands = subs
    return found


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_every_command_line_in_the_documents_is_one_the_command_takes(document: Path) -> None:
    lines = command_lines(document.read_text(encoding="utf-8"))
    assert [(line, w) for line in lines for w in wrong(line)] == []


def test_the_check_sees_a_command_an_option_and_a_choice_that_are_not_there() -> None:
    assert wrong("tables show ID") == ["tables has no command show"]
    assert wrong("export CHRONICLE --colour red") == ["export has no --colour"]
    assert wrong("export CHRONICLE --format pdf|docx -o FILE") == [
        "export --format has no choice docx"
    ]
    assert wrong("chronicles list|show|delete [--older-than 90d]") == []
