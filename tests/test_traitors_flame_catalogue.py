"""Every Traitor's Flame word reaches the catalogue under the game's context, and has Japanese.

The messages are read as ``pybabel extract`` reads them (``scripts/i18n``): a call whose context
or message is not a literal string never reaches the catalogue, and one without the context
``traitors-flame`` lands beside the shell's words, where the board never looks for it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_file
from babel.messages.frontend import parse_keywords
from babel.messages.pofile import read_po

from companion.cardgames.traitors_flame import refusals

ROOT = Path(__file__).resolve().parent.parent
CONTEXT = "traitors-flame"
# The keywords scripts/i18n gives pybabel extract.
KEYWORDS = {
    **DEFAULT_KEYWORDS,
    **parse_keywords(
        [
            "_l",
            "N_",
            "lazy_gettext",
            "lazy_pgettext:1c,2",
            "MatchSetupError",
        ]
    ),
}
BOARD = "companion/web/boards/traitors_flame"
SOURCES = [
    *sorted((ROOT / BOARD).glob("*.py")),
    *sorted((ROOT / "templates/tables/traitors-flame").glob("*.html")),
]
Message = tuple[str, str | tuple[str, ...], str | None]  # (where, msgid(s), msgctxt)


def extracted(path: Path) -> list[Message]:
    """The messages ``pybabel extract`` finds in one file."""
    method = "jinja2.ext:babel_extract" if path.suffix == ".html" else "python"
    where = path.relative_to(ROOT).as_posix()
    with path.open("rb") as source:
        found = extract_from_file(method, source.name, keywords=KEYWORDS)
        return [(f"{where}:{line}", message, context) for line, message, _, context in found]


def board_messages() -> list[Message]:
    return [m for path in SOURCES for m in extracted(path)]


def japanese() -> dict[tuple[str | None, str], object]:
    po = ROOT / "companion/translations/ja/LC_MESSAGES/messages.po"
    with po.open("rb") as handle:
        catalog = read_po(handle)
    return {
        (m.context, m.id[0] if isinstance(m.id, tuple) else m.id): m.string for m in catalog if m.id
    }


def test_the_board_marks_many_messages() -> None:
    assert len(board_messages()) > 100  # the check below could not pass on an empty list


@pytest.mark.parametrize("where", ["log.py", "labels.py", "model.py", "pictures.py", ".html"])
def test_every_file_of_the_board_files_its_words(where: str) -> None:
    assert any(w.split(":")[0].endswith(where) for w, _, _ in board_messages())


def test_every_board_message_has_the_games_context() -> None:
    lost = [(where, msgid) for where, msgid, context in board_messages() if context != CONTEXT]
    assert lost == []


def test_every_board_message_has_japanese() -> None:
    ja = japanese()
    missing = []
    for where, msgid, context in board_messages():
        key = msgid[0] if isinstance(msgid, tuple) else msgid
        string = ja.get((context, key))
        if not string or (isinstance(string, tuple) and not all(string)):
            missing.append((where, key))
    assert missing == []


def raised_templates() -> list[ast.expr]:
    """The template of every ``CardGameRuleError`` the engine raises (its code comes first)."""
    found = []
    for path in (ROOT / "companion/cardgames/traitors_flame").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "CardGameRuleError":
                found.append(node.args[1])
    return found


def test_every_refusal_of_the_engine_is_filed_under_the_games_context() -> None:
    """The engine raises only the templates of its refusals module, which files each one under
    the game's context, and every one of them reads in Japanese there."""
    raised = raised_templates()
    assert len(raised) >= 10
    named = [a.attr for a in raised if isinstance(a, ast.Attribute) and a.value.id == "refusals"]  # type: ignore[attr-defined]
    assert len(named) == len(raised)
    path = ROOT / "companion/cardgames/traitors_flame/refusals.py"
    filed = {(m, c) for _, m, c in extracted(path)}
    assert {getattr(refusals, name) for name in named} <= {m for m, c in filed if c == CONTEXT}
    ja = japanese()
    assert [m for m, c in filed if not ja.get((c, m))] == []
