"""Every export of a chronicle that stored characters no format can hold still works.

The app refuses NUL, other C0 controls, U+FFFE/U+FFFF and lone surrogates at input now, but
chronicles stored before may hold them: each export drops them (or sets U+FFFD for a lone
surrogate) and never fails.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
import yaml
from flask import Flask
from pypdf import PdfReader
from test_export_editions import EPUBCHECK, epubcheck, needs_epubcheck

from companion.base.paths import CHECKOUT as ROOT
from companion.export import editions
from companion.export.backup import export_backup, import_backup
from companion.export.book import book_html, render_book
from companion.store.db import connect
from companion.streams import chronicles
from companion.streams.demo import create_demo

STATIC = ROOT / "static"
BAD = "\x00\x01\x07\x1b\x7f\ufffe\uffff\ud800 \udfff"
NEVER = set("\x00\x01\x07\x1b\ufffe\uffff\ud800\udfff")


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Flask, chronicles.Created]:
    """A sample life whose stored events hold every bad character, in names and texts."""
    from conftest import make_app

    app = make_app(tmp_path_factory.mktemp("stored"))
    db = connect(app.config["DATABASE"])
    created = create_demo(db, "ja")
    for seq, data in db.execute("SELECT seq, data FROM events WHERE stream_id = ?", [created.id]):
        event = json.loads(data)
        if event.get("setup"):
            event["setup"]["pioneer"] += BAD
            event["setup"]["players"][0] += BAD
            event["setup"]["keystones"][0]["name"] += BAD
        for field in ("answer", "narration", "why", "name"):
            if isinstance(event.get(field), str):
                event[field] = f"{BAD}{event[field]}{BAD}"
        # The old rows were written with escapes, as a JSON text holding them can be.
        db.execute(
            "UPDATE events SET data = ? WHERE stream_id = ? AND seq = ?",
            [json.dumps(event, ensure_ascii=True), created.id, seq],
        )
    db.conn.commit()
    chronicles.CACHE.clear()
    state = chronicles.load(db, created.id).state
    assert BAD in state.setup.pioneer and BAD in state.story[0].answer.value  # type: ignore[union-attr]
    return app, created


def clean(text: str) -> None:
    assert not NEVER & set(text), sorted(NEVER & set(text))


def state_of(app: Flask, created: chronicles.Created):  # type: ignore[no-untyped-def]
    return chronicles.load(connect(app.config["DATABASE"]), created.id).state


def test_markdown_and_the_backup(stored: tuple[Flask, chronicles.Created]) -> None:
    app, created = stored
    client = app.test_client()
    markdown = client.get(f"/c/{created.host_token}/export.md")
    assert markdown.status_code == 200
    clean(markdown.data.decode("utf-8"))
    backup = client.get(f"/c/{created.host_token}/export.json")
    assert backup.status_code == 200
    clean(backup.data.decode("utf-8"))
    json.loads(backup.data)
    db = connect(app.config["DATABASE"])
    copy = import_backup(db, backup.data)  # and the backup imports again
    assert export_backup(db, copy.id).count("\ufffd") == backup.data.decode().count("\ufffd")


@pytest.mark.slow
def test_the_books(stored: tuple[Flask, chronicles.Created]) -> None:
    app, created = stored
    state = state_of(app, created)
    with app.app_context():
        html = book_html(state, "annotated", "a5")
        clean(html)
        books = {
            "book": render_book(html, STATIC),
            "print": editions.make(state, "annotated", "a5", "print", STATIC),
            "cover": editions.make(state, "annotated", "a5", "cover-100", STATIC),
            "booklet": editions.make(state, "story", "a5", "booklet", STATIC),
        }
    for name, pdf in books.items():
        text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)
        clean(text)
        assert "朱音" in text, name


def test_the_vault(stored: tuple[Flask, chronicles.Created]) -> None:
    app, created = stored
    with app.app_context():
        data = editions.make(state_of(app, created), "annotated", "a5", "vault", STATIC)
    archive = zipfile.ZipFile(io.BytesIO(data))
    for name in archive.namelist():
        clean(name)
        text = archive.read(name).decode("utf-8")
        clean(text)
        if name.endswith(".md"):
            yaml.safe_load(text.split("---\n")[1])


@pytest.mark.slow
@needs_epubcheck
@pytest.mark.parametrize("layout", ["epub", "epub-vertical"])
def test_the_epubs_pass_epubcheck(
    stored: tuple[Flask, chronicles.Created], tmp_path: Path, layout: str
) -> None:
    app, created = stored
    assert EPUBCHECK.is_file()
    with app.app_context():
        data = editions.make(state_of(app, created), "annotated", "a5", layout, STATIC, key="k")
    report = epubcheck(tmp_path, data)
    assert "ERROR" not in report, report
    archive = zipfile.ZipFile(io.BytesIO(data))
    for name in archive.namelist():
        clean(
            archive.read(name).decode("utf-8", "replace")
            if name.endswith(("html", "opf", "ncx"))
            else ""
        )


@pytest.mark.browser
def test_the_vertical_book(stored: tuple[Flask, chronicles.Created]) -> None:
    from companion.export.vertical import chromium_path

    if chromium_path() is None:
        pytest.skip("Chromium is not installed (scripts/setup --vertical installs it)")
    app, created = stored
    with app.app_context():
        pdf = editions.make(state_of(app, created), "story", "a6", "vertical", STATIC)
    reader = PdfReader(io.BytesIO(pdf))
    clean("".join(page.extract_text() for page in reader.pages))
    clean(str(reader.metadata.get("/Title")) + str(reader.metadata.get("/Author")))
