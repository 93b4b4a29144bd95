"""The catalogue is whole: every word the code and templates mark reads in every language.

The messages are extracted exactly as ``scripts/i18n`` extracts them (its ``pybabel extract``
line, run here into a temporary file), so a word that extraction cannot see, or that has no
translation yet, fails here instead of showing in English on a Japanese page.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from companion.base.languages import DEFAULT, LANGUAGES

ROOT = Path(__file__).resolve().parent.parent
Key = tuple[str | None, str]


def extract_command(output: Path) -> list[str]:
    """scripts/i18n's extraction, writing to ``output``."""
    line = next(
        line
        for line in (ROOT / "scripts/i18n").read_text().splitlines()
        if line.startswith(".venv/bin/pybabel extract ")
    )
    words = shlex.split(line)
    words[words.index("-o") + 1] = str(output)
    words[0] = str(Path(sys.executable).parent / "pybabel")
    return words


@pytest.fixture(scope="module")
def extracted(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    pot = tmp_path_factory.mktemp("i18n") / "messages.pot"
    subprocess.run(extract_command(pot), cwd=ROOT, check=True, capture_output=True)
    with pot.open("rb") as read:
        return read_po(read)


def key(message: object) -> Key:
    msgid = message.id  # type: ignore[attr-defined]
    return (message.context, msgid if isinstance(msgid, str) else msgid[0])  # type: ignore[attr-defined]


def translated(language: str) -> dict[Key, object]:
    path = ROOT / f"companion/translations/{language}/LC_MESSAGES/messages.po"
    with path.open("rb") as read:
        catalog = read_po(read, locale=language)
    return {key(m): m for m in catalog if m.id}


def test_extraction_finds_the_words_of_every_part(extracted: Catalog) -> None:
    where = {loc.split("/")[0] for m in extracted for loc, _ in m.locations}
    contexts = {m.context for m in extracted}
    assert {"companion", "templates"} <= where
    assert {None, "traitors-flame", "age-of-summoners"} <= contexts
    assert len(extracted) > 1000


@pytest.mark.parametrize("language", [code for code in LANGUAGES if code != DEFAULT])
def test_every_marked_word_has_a_translation(extracted: Catalog, language: str) -> None:
    catalog = translated(language)
    missing = []
    for message in extracted:
        if not message.id:
            continue
        found = catalog.get(key(message))
        strings = () if found is None else found.string  # type: ignore[attr-defined]
        strings = (strings,) if isinstance(strings, str) else strings
        if not strings or not all(strings) or found.fuzzy:  # type: ignore[union-attr]
            missing.append((key(message), message.locations[:1]))
    assert missing == []


@pytest.mark.parametrize("language", [code for code in LANGUAGES if code != DEFAULT])
def test_the_catalogue_holds_no_word_nobody_marks(extracted: Catalog, language: str) -> None:
    """A stale entry is a translation a changed message no longer finds."""
    marked = {key(m) for m in extracted if m.id}
    assert [k for k in translated(language) if k not in marked] == []
