"""A roll taken back by an undo stays in every output as a correction: Markdown, backup, PDF."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from legacy_factories import make_setup
from pypdf import PdfReader
from sqlite_utils import Database

from companion.base.paths import CHECKOUT as ROOT
from companion.export.backup import export_backup, import_backup, read_backup
from companion.export.book import book_html, render_document
from companion.export.errors import BackupError
from companion.export.markdown import story_markdown
from companion.legacy import (
    AnswerPrompt,
    ChoosePrompt,
    Command,
    DeclareStakes,
    DrawCard,
    NarrateSuccess,
    RollDice,
    Undo,
)
from companion.store.db import connect, init_db
from companion.streams import chronicles

MISTYPED = (2, 3, 1, 1)
LIFE: list[Command] = [
    DrawCard(0, "3H"),
    ChoosePrompt(0, index=0),
    AnswerPrompt(0, "The keeper rowed out at dusk."),
    DeclareStakes(0, "She reaches the wreck.", "The boat is lost."),
    RollDice(0, MISTYPED),
    Undo(0),
    RollDice(0, (6, 3, 1, 1)),
    NarrateSuccess(0, "She came back at dawn."),
]
TAKEN_BACK = {
    "en": "Taken back: this roll was withdrawn and rolled again.",
    "ja": "取り消し：この判定は取り下げられ、振り直されました。",
}
NOTE = {
    "en": "A roll was taken back here and rolled again.",
    "ja": "ここでは判定を1度取り下げ、振り直しています。",
}


@pytest.fixture
def db(tmp_path: Path) -> Database:
    path = tmp_path / "withdrawn.sqlite3"
    init_db(path)
    return connect(path)


def corrected_life(db: Database, language: str) -> chronicles.Chronicle:
    """A chronicle whose first roll was mistyped, taken back and rolled again."""
    created = chronicles.create(db, make_setup(language=language))
    return chronicles.execute(db, chronicles.load(db, created.id), LIFE)


@pytest.mark.parametrize("language", ["en", "ja"])
def test_markdown_strikes_the_roll_through_or_notes_it(
    app: Flask, db: Database, language: str
) -> None:
    state = corrected_life(db, language).state
    with app.app_context():
        annotated = story_markdown(state, "annotated")
        story = story_markdown(state, "story")
    struck = next(line for line in annotated.splitlines() if line.startswith("~~"))
    assert "2 · 3 · 1 · 1" in struck and TAKEN_BACK[language] in struck
    assert "6 · 3 · 1 · 1" in annotated.split(struck)[1]  # the roll that counts comes after
    assert NOTE[language] in story and "2 · 3 · 1 · 1" not in story


def test_backup_lists_the_withdrawn_roll_and_imports_back_identically(db: Database) -> None:
    original = corrected_life(db, "en")
    text = export_backup(db, original.id)
    document = json.loads(text)
    (point,) = original.state.story
    assert document["withdrawn"] == [
        {
            "turning_point": point.seq,
            "card": "3H",
            "seq": point.withdrawn[0].seq,
            "faces": list(MISTYPED),
            "success": False,
            "reroll": False,
        }
    ]
    copy = import_backup(db, text.encode("utf-8"))
    chronicles.CACHE.clear()
    assert export_backup(db, copy.id) == text
    assert chronicles.load(db, copy.id).state.story[0].withdrawn == point.withdrawn


def edited(text: str, change: Any) -> bytes:
    document = json.loads(text)
    change(document)
    return json.dumps(document).encode("utf-8")


def test_a_version_2_backup_without_the_list_still_imports_but_a_wrong_list_is_refused(
    db: Database,
) -> None:
    text = export_backup(db, corrected_life(db, "en").id)

    def version_2(document: dict[str, Any]) -> None:
        del document["withdrawn"]
        document["format_version"] = 2

    older = read_backup(edited(text, version_2))
    assert older.state.story[0].withdrawn[0].faces == MISTYPED
    with pytest.raises(BackupError) as refused:  # version 2 had no such list
        read_backup(edited(text, lambda d: d.update(format_version=2)))
    assert "withdrawn" in str(refused.value)
    with pytest.raises(BackupError) as refused:
        read_backup(edited(text, lambda d: d["withdrawn"][0].update(faces=[6, 6, 6, 6])))
    assert refused.value.code == "bad-withdrawn"
    assert "withdrawn rolls does not match its events" in str(refused.value)
    with pytest.raises(BackupError) as refused:
        read_backup(edited(text, lambda d: d["withdrawn"][0].update(success=0)))
    assert refused.value.code == "bad-withdrawn"


def pdf_text(app: Flask, html_state: Any, edition: str) -> str:
    with app.app_context():
        html = book_html(html_state, edition, "a5")
    pdf = render_document(html, ROOT / "static").write_pdf()
    reader = PdfReader(io.BytesIO(pdf))
    return "".join(page.extract_text() or "" for page in reader.pages).replace("\n", "")


@pytest.mark.parametrize("language", ["en", "ja"])
def test_both_books_keep_the_correction(app: Flask, db: Database, language: str) -> None:
    state = corrected_life(db, language).state
    annotated = pdf_text(app, state, "annotated")
    story = pdf_text(app, state, "story")
    assert TAKEN_BACK[language] in annotated, annotated[:600]
    assert NOTE[language] in story and TAKEN_BACK[language] not in story, story[:600]
