"""One list of languages, and no Python that picks its words by comparing to a language code.

A third language should be a catalogue plus data (``companion/base/languages.py``, card names and
rules per language); code that asks ``lang == "ja"`` would need editing for every new language.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from flask import Flask

from companion.base import languages

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "companion"
CODE = "ja"
# Places still choosing words by language: a file or folder prefix, and how many places it
# may hold at most. Age of Summoners is counted in both its engine and its board package, as its
# words move from one to the other. This list only ever shrinks.


def language_tests(source: str) -> list[int]:
    """Lines that compare something to the literal language code, or list codes by hand."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(_is_code(o) or _lists_code(o) for o in operands):
                lines.append(node.lineno)
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)) and _lists_code(node):
            lines.append(node.lineno)
    return sorted(set(lines))


def _is_code(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == CODE


def _lists_code(node: ast.AST) -> bool:
    return isinstance(node, (ast.List, ast.Tuple, ast.Set)) and any(map(_is_code, node.elts))


def found() -> dict[str, list[int]]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = language_tests(path.read_text(encoding="utf-8"))
        if lines:
            out[path.relative_to(ROOT).as_posix()] = lines
    return out


def test_no_module_chooses_words_by_comparing_to_a_language_code() -> None:
    assert found() == {}, "use companion.base.languages or the catalogues instead"


@pytest.mark.parametrize(
    "source",
    [
        'word = "山札" if lang == "ja" else "Deck"',
        'if "ja" != language:\n    pass',
        'ok = language in ("ja", "en")',
        'choices = click.Choice(["ja", "en"])',
    ],
)
def test_the_scan_notices_a_language_branch(source: str) -> None:
    assert language_tests(source) == [1]


def test_data_keyed_by_language_is_not_a_branch() -> None:
    assert language_tests('NAMES = {"ja": "逆臣の炎", "en": "Traitor\'s Flame"}') == []
    assert language_tests("name = NAMES[lang]") == []


def test_one_list_of_languages_everywhere() -> None:
    from companion.legacy import setup
    from companion.packs import format as pack_format
    from companion.samples import LANGUAGES as samples

    assert setup.LANGUAGES is pack_format.LANGUAGES is samples is languages.LANGUAGES
    assert languages.language_name("ja") == "日本語" and languages.language_name("en") == "English"
    assert languages.known("fr") == languages.DEFAULT and languages.known("ja") == "ja"
    definitions = [
        path.relative_to(ROOT).as_posix()
        for path in PACKAGE.rglob("*.py")
        if re.search(r"^LANGUAGES\b.*=", path.read_text(encoding="utf-8"), re.MULTILINE)
    ]
    assert definitions == ["companion/base/languages.py"]


@pytest.mark.parametrize(
    ("key", "ja", "en"),
    [
        ("traitors-flame", "逆臣の炎", "Traitor's Flame"),
        ("age-of-summoners", "エイジ・オブ・サモナーズ", "Age of Summoners"),
    ],
)
def test_a_card_games_name_is_its_boards_word_in_the_current_locale(
    app: Flask, key: str, ja: str, en: str
) -> None:
    from flask_babel import force_locale

    from companion.web.boards import board_for

    with app.test_request_context():
        for lang, name in (("ja", ja), ("en", en), ("fr", en)):
            with force_locale(lang):
                assert board_for(key).name() == name
