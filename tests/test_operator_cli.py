"""`companion` is the operator's command: its own help, grouped, `-h`, and texts the docs match.

Flask's developer commands (`run`, `shell`, `routes`) and options (`--app`, `--env-file`,
`--debug`) are not in it; `flask --app companion.app …` still reaches them.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from companion.app import main
from companion.ops.cli import SECTIONS

ROOT = Path(__file__).resolve().parent.parent
FLASK = str(Path(sys.executable).parent / "flask")


def _help(*args: str) -> str:
    result = CliRunner().invoke(main, [*args])
    assert result.exit_code == 0, result.output
    return result.output


def test_dash_h_is_help_for_the_group_and_every_command() -> None:
    assert _help("-h") == _help("--help")
    for name in main.commands:
        assert _help(name, "-h") == _help(name, "--help")


def test_the_help_lists_every_command_once_under_its_heading() -> None:
    text = _help("--help")
    for heading, names in SECTIONS:
        assert f"\n{heading}:\n" in text
        for name in names:
            assert re.search(rf"^  {re.escape(name)} ", text, re.M), name
    listed = [n for _h, names in SECTIONS for n in names]
    assert sorted(listed) == sorted(main.commands), "a command under no heading, or a stray one"
    assert "Other commands" not in text


@pytest.mark.parametrize("developer", ["--app", "--env-file", "--debug", "run", "shell", "routes"])
def test_flasks_developer_commands_and_options_are_not_the_operators(developer: str) -> None:
    assert not re.search(rf"^  {developer}\b", _help("--help"), re.M)
    assert developer.strip("-") not in main.commands


def test_the_developer_commands_stay_reachable_through_flask() -> None:
    done = subprocess.run([FLASK, "--app", "companion.app", "routes"], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)  # fmt: skip
    assert done.returncode == 0 and "main.healthz" in done.stdout, done.stderr


def _readme_rows() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## The `companion` command", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| `companion ")]


def _command(words: list[str]) -> click.Command:
    command: click.Command = main
    for word in words:
        if not isinstance(command, click.Group) or word not in command.commands:
            break
        command = command.commands[word]
    return command


def test_every_command_is_in_the_readme_table() -> None:
    rows = "\n".join(_readme_rows())
    for name in main.commands:
        assert f"`companion {name}" in rows or f"· `companion {name}" in rows, name


def test_every_option_the_readme_names_is_one_its_command_takes() -> None:
    for row in _readme_rows():
        for cell in re.findall(r"`companion ([^`]+)`", row.split(" | ")[0]):
            words = cell.split()
            command = _command([w for w in words if re.fullmatch(r"[a-z-]+", w)][:2])
            taken = {opt for p in command.params for opt in getattr(p, "opts", [])}
            taken |= {"--help", "-h"}
            for option in re.findall(r"(?<![\w-])--?[a-z][a-z-]*", cell):
                assert option in taken or option == "--version", f"{cell}: {option}"


def test_every_option_of_every_command_is_in_the_docs() -> None:
    docs = "\n".join(p.read_text() for p in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")])

    def walk(command: click.Command, path: str) -> None:
        for param in command.params:
            opts = [o for o in getattr(param, "opts", []) if o not in ("--help", "-h")]
            if isinstance(param, click.Option) and opts:  # its long or its short name
                assert any(o in docs for o in opts), f"{path} {opts} is in no doc"
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {name}")

    walk(main, "companion")
