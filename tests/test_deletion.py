"""Deleting whole chronicles and card tables: from the command line (by id, by age, by last
activity) and from the host's page (with the typed name and the CSRF token), on either backend.
Every event, draft, link, export job and book of the stream goes; nothing of any other."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlite_utils import Database

from companion.export import jobs
from companion.ops import deletion
from companion.store import capabilities, drafts
from companion.store.db import connect
from companion.streams import matches
from companion.streams.demo import create_demo

TABLES = ("events", "capabilities", "drafts", "exports", "streams")


@pytest.fixture
def db(app: Flask) -> Database:
    return connect(app.config["DATABASE"])


def rows_of(db: Database, stream_id: str) -> dict[str, int]:
    counts = {}
    for table in TABLES:
        column = "id" if table == "streams" else "stream_id"
        query = f"SELECT count(*) FROM {table} WHERE {column} = ?"
        counts[table] = int(db.execute(query, [stream_id]).fetchone()[0])
    return counts


def kept_for(app: Flask, db: Database) -> tuple[str, str, Path]:
    """A chronicle with a draft, three links and a made book; its host link; the book's file."""
    created = create_demo(db, "en")
    drafts.save(db, created.id, 3, "narration", "half a sentence")
    capabilities.issue(db, created.id, "seat", 0)
    exports = Path(app.config["EXPORTS_DIR"])
    exports.mkdir(parents=True, exist_ok=True)
    job, _ = jobs.request_book(db, exports, created.id, 181, "story", "a5")
    claimed = jobs.claim_next(db, pid=1, limit=1, owner="here-1-1")
    assert claimed is not None
    (exports / job.filename).write_bytes(b"%PDF")
    jobs.finish(db, claimed, exports)
    return created.id, created.host_token, exports / job.filename


def a_table(db: Database) -> tuple[str, str]:
    seats = [matches.Seat("Ann"), matches.Seat("Bo", "heuristic"), matches.Seat("Cy", "heuristic")]
    return matches.create(db, "traitors-flame", seats, "hotseat", "en", 5, title="Friday table")


def test_deleting_a_stream_removes_everything_kept_for_it_and_nothing_else(
    app: Flask, db: Database
) -> None:
    stream, _host, book = kept_for(app, db)
    other, _other_host, other_book = kept_for(app, db)
    before = rows_of(db, other)
    found = deletion.find(db, stream, ["legacy"])
    assert found is not None and deletion.find(db, stream, ["traitors-flame"]) is None
    preview = deletion.inventory(db, found, book.parent)
    assert rows_of(db, stream)["events"] == preview.count("events") == found.events
    assert (preview.count("drafts"), preview.count("capabilities")) == (1, 3)
    assert (preview.count("exports"), preview.files) == (1, 1)
    removed = deletion.delete(db, found, book.parent)
    assert removed.rows == preview.rows and removed.files == 1
    assert rows_of(db, stream) == dict.fromkeys(TABLES, 0) and not book.exists()
    assert rows_of(db, other) == before and other_book.exists()
    assert "events" in removed.summary() and "1 book files" in removed.summary()


def test_a_table_added_later_that_names_the_stream_is_emptied_too(app: Flask, db: Database) -> None:
    stream, _host, book = kept_for(app, db)
    db.execute("CREATE TABLE reveals (stream_id TEXT NOT NULL, seat INTEGER)")
    db.execute("INSERT INTO reveals VALUES (?, 1)", [stream])
    found = deletion.find(db, stream, ["legacy"])
    assert found is not None
    assert deletion.delete(db, found, book.parent).count("reveals") == 1
    assert db.execute("SELECT count(*) FROM reveals").fetchone()[0] == 0


def test_ages_are_read_in_minutes_hours_days_and_weeks() -> None:
    assert deletion.parse_age("90d") == timedelta(days=90)
    assert deletion.parse_age(" 12h") == timedelta(hours=12)
    assert deletion.parse_age("2w") == timedelta(weeks=2)
    for bad in ("90", "d", "-1d", "1y", "9" * 20 + "d"):
        with pytest.raises(ValueError):
            deletion.parse_age(bad)


def age(db: Database, stream: str, created_days: int, updated_days: int) -> None:
    now = datetime.now(UTC)
    stamps = [
        (now - timedelta(days=d)).isoformat(timespec="milliseconds")
        for d in (created_days, updated_days)
    ]
    db.execute("UPDATE streams SET created = ?, updated = ? WHERE id = ?", [*stamps, stream])


def test_the_command_line_lists_shows_and_deletes_by_id_age_and_activity(
    app: Flask, db: Database
) -> None:
    runner = app.test_cli_runner()
    old, _h, _b = kept_for(app, db)
    idle, _h2, _b2 = kept_for(app, db)
    fresh, _h3, _b3 = kept_for(app, db)
    table, _t = a_table(db)
    age(db, old, 200, 1)  # made long ago, played yesterday
    age(db, idle, 30, 30)  # made a month ago, untouched since
    listed = runner.invoke(args=["chronicles", "list"])
    assert listed.exit_code == 0 and [old, idle, fresh] == re.findall(
        r"^(\w+)", listed.output, re.M
    )
    assert table not in listed.output and table in runner.invoke(args=["tables", "list"]).output
    assert (
        runner.invoke(args=["chronicles", "list", "--older-than", "90d"]).output.split()[0] == old
    )
    assert runner.invoke(args=["chronicles", "list", "--idle-for", "7d"]).output.split()[0] == idle
    shown = runner.invoke(args=["chronicles", "show", fresh])
    assert shown.exit_code == 0 and "1 drafts" in shown.output and "3 links" in shown.output
    exported = runner.invoke(args=["chronicles", "export", fresh, "--format", "md"])
    assert exported.exit_code == 0 and exported.output.startswith("# ")

    asked = runner.invoke(args=["chronicles", "delete", "--older-than", "90d"], input="n\n")
    assert asked.exit_code != 0 and rows_of(db, old)["streams"] == 1  # said no: nothing goes
    done = runner.invoke(args=["chronicles", "delete", "--idle-for", "7d", "--yes"])
    assert done.exit_code == 0 and f"Deleted {idle}" in done.output and "3 links" in done.output
    assert rows_of(db, idle)["streams"] == 0 and rows_of(db, old)["streams"] == 1
    by_id = runner.invoke(args=["chronicles", "delete", old, fresh], input="y\n")
    assert (
        by_id.exit_code == 0 and rows_of(db, old)["streams"] == rows_of(db, fresh)["streams"] == 0
    )
    assert (
        "No chronicle to delete"
        in runner.invoke(args=["chronicles", "delete", "--idle-for", "1d"]).output
    )
    unknown = runner.invoke(args=["chronicles", "delete", table, "--yes"])
    assert unknown.exit_code != 0 and "No chronicle has the id" in unknown.output
    assert rows_of(db, table)["streams"] == 1  # a table is no chronicle
    gone = runner.invoke(args=["tables", "delete", table, "--yes"])
    assert gone.exit_code == 0 and rows_of(db, table) == dict.fromkeys(TABLES, 0)
    assert runner.invoke(args=["chronicles", "delete"]).exit_code != 0  # nothing named


def test_the_host_deletes_a_chronicle_by_typing_the_pioneers_name(
    app: Flask, client: FlaskClient, db: Database
) -> None:
    stream, host, book = kept_for(app, db)
    created = create_demo(db, "en")
    name = "Akane"  # the Pioneer of the English sample life, as of every demo
    page = client.get(f"/c/{host}/delete?lang=en")
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and "Links: 3" in text and "Books: 1" in text
    assert "type the Pioneer&#39;s name" in text and f"<bdi>{name}" in text
    assert f'href="/c/{host}/delete"' in client.get(f"/c/{host}/links?lang=en").get_data(
        as_text=True
    )
    before = rows_of(db, stream)
    assert client.get(f"/c/{created.reader_token}/delete").status_code == 404
    assert client.post(f"/c/{created.reader_token}/delete", data={"name": name}).status_code == 404
    wrong = client.post(f"/c/{host}/delete?lang=en", data={"name": "Someone else"})
    assert wrong.status_code == 303 and wrong.headers["Location"] == f"/c/{host}/delete"
    assert "nothing was deleted" in client.get(wrong.headers["Location"]).get_data(as_text=True)
    assert rows_of(db, stream) == before
    done = client.post(f"/c/{host}/delete?lang=en", data={"name": f"  {name.lower()} "})
    assert done.status_code == 302 and done.headers["Location"] == "/"
    said = client.get("/?lang=en").get_data(as_text=True)
    assert "is deleted from this server" in said and "3 links" in said and "1 books" in said
    assert rows_of(db, stream) == dict.fromkeys(TABLES, 0) and not book.exists()
    assert client.get(f"/c/{host}/").status_code == 404
    assert rows_of(db, created.id)["streams"] == 1


def test_the_host_deletes_a_table_by_typing_its_name(client: FlaskClient, db: Database) -> None:
    table, host = a_table(db)
    page = client.get(f"/t/{host}/delete?lang=en").get_data(as_text=True)
    assert "type the table&#39;s name" in page and "<bdi>Friday table" in page
    assert f'href="/t/{host}/delete"' in client.get(f"/t/{host}/links?lang=en").get_data(
        as_text=True
    )
    assert client.post(f"/t/{host}/delete", data={"name": "Friday"}).status_code == 303
    spectator = capabilities.issue(db, table, "reader")
    assert client.post(f"/t/{spectator}/delete", data={"name": "Friday table"}).status_code == 404
    done = client.post(f"/t/{host}/delete", data={"name": "Friday table"})
    assert done.status_code == 302 and rows_of(db, table) == dict.fromkeys(TABLES, 0)


def test_a_deletion_without_the_forms_token_deletes_nothing(csrf_app: Flask) -> None:
    db = connect(csrf_app.config["DATABASE"])
    created = create_demo(db, "en")
    client = csrf_app.test_client()
    refused = client.post(f"/c/{created.host_token}/delete", data={"name": "Akane"})
    assert refused.status_code == 303 and rows_of(db, created.id)["streams"] == 1
    page = client.get(f"/c/{created.host_token}/delete").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert token is not None
    form: dict[str, Any] = {"name": "Akane", "csrf_token": token.group(1)}
    assert client.post(f"/c/{created.host_token}/delete", data=form).status_code == 302
    assert rows_of(db, created.id)["streams"] == 0
