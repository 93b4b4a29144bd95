"""Exports in the browser: buttons, downloads, a PDF made by a worker process, and import."""

from __future__ import annotations

import io
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from play_helpers import refused_page

from companion.export import jobs, keeper
from companion.export.backup import export_backup
from companion.store import capabilities
from companion.store.db import connect
from companion.streams import chronicles
from companion.streams.demo import create_demo


@pytest.fixture
def demo(app: Flask) -> chronicles.Created:
    return create_demo(connect(app.config["DATABASE"]), "ja")


def count(app: Flask, table: str) -> int:
    db = connect(app.config["DATABASE"])
    return int(db.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


@pytest.mark.parametrize("page", ["story", "end"])
def test_export_buttons_render(client: FlaskClient, demo: chronicles.Created, page: str) -> None:
    html = client.get(f"/c/{demo.host_token}/{page}?lang=en").get_data(as_text=True)
    assert 'id="exports"' in html
    assert f'href="/c/{demo.host_token}/export.md"' in html
    assert f'href="/c/{demo.host_token}/export.json"' in html
    assert f'action="/c/{demo.host_token}/export/pdf"' in html
    assert 'value="annotated"' in html and 'value="story"' in html and 'value="b6"' in html
    assert re.search(r"<script>(?!</script>)", html) is None  # no inline script (CSP)


def test_start_page_has_the_import_form(client: FlaskClient) -> None:
    html = client.get("/?lang=en").get_data(as_text=True)
    assert 'action="/import"' in html and 'enctype="multipart/form-data"' in html
    assert 'type="file"' in html and 'name="backup"' in html


def test_a_read_only_link_may_export(
    app: Flask, client: FlaskClient, demo: chronicles.Created, monkeypatch: pytest.MonkeyPatch
) -> None:
    spawned: list[Any] = []
    monkeypatch.setattr(keeper, "ensure_for_app", spawned.append)
    reader = demo.reader_token
    response = client.post(f"/c/{reader}/export/pdf", data={"edition": "story", "paper": "a5"})
    assert response.status_code == 302 and count(app, "exports") == 1 and len(spawned) == 1
    markdown = client.get(f"/c/{reader}/export.md")
    assert markdown.status_code == 200 and markdown.data.startswith("# 朱音".encode())
    backup = client.get(f"/c/{reader}/export.json")
    assert backup.headers["Content-Type"] == "application/json; charset=utf-8"
    assert json.loads(backup.data)["format"] == "ijinsho-chronicle"
    assert client.get(f"/c/{reader}/story").status_code == 200
    assert 'id="exports"' in client.get(f"/c/{reader}/story").get_data(as_text=True)


def test_unknown_links_and_foreign_jobs_are_404(
    app: Flask, client: FlaskClient, demo: chronicles.Created
) -> None:
    assert client.get("/c/not-a-token/export.json").status_code == 404
    other = create_demo(connect(app.config["DATABASE"]), "en")
    db = connect(app.config["DATABASE"])
    job, _ = jobs.request_book(db, Path(app.config["EXPORTS_DIR"]), other.id, 1, "story", "a5")
    assert client.get(f"/c/{demo.host_token}/export/{job.id}.json").status_code == 404
    assert client.get(f"/c/{other.host_token}/export/{job.id}.json").status_code == 200
    assert client.get(f"/c/{demo.host_token}/book/v1-story-a5.pdf").status_code == 404


# A book of the demo takes seconds; the bound only stops a worker that hangs, however loaded the
# machine is (the time a book takes is measured by bench/bench_pdf.py).
JOB_ENDS = 900


def wait_for(client: FlaskClient, url: str, seconds: float = JOB_ENDS) -> dict[str, Any]:
    """The job's status once it has ended, done or failed, as the story page polls it."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status = client.get(url).get_json()
        if status["status"] in ("done", "failed"):
            return status  # type: ignore[no-any-return]
        time.sleep(0.3)  # polling the job's status, not waiting a fixed time for it
    raise AssertionError(f"the export job never ended (done or failed) in {seconds} s: {status}")


def test_pdf_is_made_by_a_worker_and_then_served_at_once(
    app: Flask, client: FlaskClient, demo: chronicles.Created, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = demo.host_token
    response = client.post(f"/c/{token}/export/pdf", data={"edition": "story", "paper": "b6"})
    assert response.status_code == 302 and response.headers["Location"].endswith("/story#exports")
    page = client.get(f"/c/{token}/story?lang=en").get_data(as_text=True)
    # The book is still being made: the request did not wait for it.
    assert "<progress" in page and "Refresh" in page  # works without JavaScript
    assert "export-download" not in page
    assert re.search(r'src="/static/js/exports\.[0-9a-f]{12}\.js"', page)
    assert client.get(f"/c/{token}/?lang=en").status_code == 200  # the table stays live
    status_url = re.search(r'data-status-url="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    status = wait_for(client, status_url)
    assert status["status"] == "done", status
    book = client.get(status["url"])
    assert book.status_code == 200 and book.headers["Content-Type"] == "application/pdf"
    assert book.data.startswith(b"%PDF") and "attachment" in book.headers["Content-Disposition"]
    book.close()

    spawned: list[Any] = []
    monkeypatch.setattr(keeper, "ensure_for_app", spawned.append)
    rows = count(app, "exports")
    again = client.post(f"/c/{token}/export/pdf", data={"edition": "story", "paper": "b6"})
    assert again.status_code == 302 and again.headers["Location"] == status["url"]
    assert count(app, "exports") == rows and spawned == []
    done_page = client.get(f"/c/{token}/story?lang=en").get_data(as_text=True)
    assert f'href="{status["url"]}"' in done_page and "<progress" not in done_page


def test_a_new_version_needs_a_new_book(
    app: Flask, client: FlaskClient, demo: chronicles.Created, monkeypatch: pytest.MonkeyPatch
) -> None:
    spawned: list[Any] = []
    monkeypatch.setattr(keeper, "ensure_for_app", spawned.append)
    client.post(f"/c/{demo.host_token}/export/pdf", data={"edition": "annotated", "paper": "a5"})
    client.post(f"/c/{demo.host_token}/export/pdf", data={"edition": "annotated", "paper": "a5"})
    assert count(app, "exports") == 1
    db = connect(app.config["DATABASE"])
    chronicle = chronicles.load(db, demo.id)
    epilogue = chronicle.state.epilogue
    assert epilogue is not None
    rewritten = {"epilogue": epilogue.value + "\n\nそして春。", "version": str(chronicle.version)}
    client.post(f"/c/{demo.host_token}/epilogue", data=rewritten)
    client.post(f"/c/{demo.host_token}/export/pdf", data={"edition": "annotated", "paper": "a5"})
    # The book of the older version was still waiting: it is moved on, not made for nobody.
    assert count(app, "exports") == 1 and len(spawned) >= 1
    newer = chronicles.load(db, demo.id).version
    assert [job.version for job in jobs.jobs_for(db, demo.id, newer)] == [newer]
    db.execute("UPDATE exports SET status = 'done'")  # once made, a newer version needs its own
    client.post(f"/c/{demo.host_token}/epilogue", data={"epilogue": "春。", "version": str(newer)})
    client.post(f"/c/{demo.host_token}/export/pdf", data={"edition": "annotated", "paper": "a5"})
    assert count(app, "exports") == 2


def test_bad_pdf_choices_are_refused(
    app: Flask, client: FlaskClient, demo: chronicles.Created
) -> None:
    response = client.post(
        f"/c/{demo.host_token}/export/pdf?lang=en",
        data={"edition": "deluxe", "paper": "a5", "back": "story.end"},
        follow_redirects=True,
    )
    assert "Choose an edition and a paper size" in response.get_data(as_text=True)
    assert response.request.path.endswith("/end")
    assert count(app, "exports") == 0


def csrf_token(client: FlaskClient) -> str:
    html = client.get("/?lang=en").get_data(as_text=True)
    match = re.search(r'action="/import".*?name="csrf_token" value="([^"]+)"', html, re.S)
    assert match
    return match.group(1)


def test_import_by_upload_opens_the_new_chronicle(csrf_app: Flask) -> None:
    db = connect(csrf_app.config["DATABASE"])
    original = create_demo(db, "en")
    text = export_backup(db, original.id)
    client = csrf_app.test_client()
    data = {"csrf_token": csrf_token(client), "backup": (io.BytesIO(text.encode()), "akane.json")}
    response = client.post("/import", data=data, content_type="multipart/form-data")
    assert response.status_code == 302
    token = re.fullmatch(r"/c/([^/]+)/", response.headers["Location"]).group(1)  # type: ignore[union-attr]
    cap = capabilities.resolve(db, token)
    assert cap is not None and cap.role == "host" and cap.stream_id != original.id
    assert export_backup(db, cap.stream_id) == text
    index = client.get("/?lang=en").get_data(as_text=True)
    assert f'href="/c/{token}/"' in index  # remembered in this browser's list


def test_import_without_csrf_token_is_refused(csrf_app: Flask) -> None:
    db = connect(csrf_app.config["DATABASE"])
    text = export_backup(db, create_demo(db, "en").id)
    client = csrf_app.test_client()
    data = {"backup": (io.BytesIO(text.encode()), "akane.json")}
    response = client.post("/import", data=data, content_type="multipart/form-data")
    assert response.status_code == 303  # back to the start page, which says why
    assert "nothing was sent" in client.get(response.headers["Location"]).get_data(as_text=True)
    assert count(csrf_app, "streams") == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x89PNG\r\n\x1a\n", "not UTF-8"),
        (b'{"format": "ijinsho-chronicle", "format_version": 2, "events": "x"', "not JSON"),
        (b'{"format": "other"}', "not an Ijinsh"),
    ],
)
def test_bad_upload_is_refused_with_its_reason(
    app: Flask, client: FlaskClient, content: bytes, message: str
) -> None:
    data = {"backup": (io.BytesIO(content), "life.json")}
    response = client.post("/import?lang=en", data=data, content_type="multipart/form-data")
    assert message in refused_page(client, response)
    assert count(app, "streams") == 0


def test_rules_refusal_is_shown_in_the_readers_language(app: Flask, client: FlaskClient) -> None:
    db = connect(app.config["DATABASE"])
    document = json.loads(export_backup(db, create_demo(db, "ja").id))
    drawn = next(e for e in document["events"] if e["event"]["type"] == "card-drawn")
    drawn["event"]["card"] = "KS"
    data = {"backup": (io.BytesIO(json.dumps(document).encode()), "life.json")}
    response = client.post("/import?lang=en", data=data, content_type="multipart/form-data")
    html = refused_page(client, response)
    assert "Event 2 (card-drawn)" in html and "KS is not among the cards" in html
    assert count(app, "streams") == 1


def test_import_without_a_file_is_refused(client: FlaskClient) -> None:
    response = client.post("/import?lang=en", data={}, content_type="multipart/form-data")
    assert "Choose a backup file" in refused_page(client, response)


def test_backup_of_a_digital_life_in_progress_is_the_hosts_alone(
    app: Flask, client: FlaskClient
) -> None:
    import random

    from companion.legacy import CARDS, Setup, placeholder_keystones

    setup = Setup(
        pioneer="Iori",
        concept="",
        players=("A", "B"),
        oldest=0,
        keystones=placeholder_keystones((1, 1, 1)),
        prompts={card: ("What happens?",) for card in CARDS},
        mode="digital",
    )
    created = chronicles.create(connect(app.config["DATABASE"]), setup, random.Random(1))
    reader = client.get(f"/c/{created.reader_token}/story").get_data(as_text=True)
    assert "export.json" not in reader and "export.md" in reader
    assert client.get(f"/c/{created.reader_token}/export.json").status_code == 404
    assert client.get(f"/c/{created.host_token}/export.json").status_code == 200


def test_a_book_stopped_for_time_says_how_far_it_got(
    app: Flask, client: FlaskClient, demo: chronicles.Created
) -> None:
    db = connect(app.config["DATABASE"])
    exports = Path(app.config["EXPORTS_DIR"])
    version = chronicles.load(db, demo.id).version
    job, _ = jobs.request_book(db, exports, demo.id, version, "annotated", "a5")
    claimed = jobs.claim_next(db, pid=1, limit=1, owner="here-1-1")
    assert claimed is not None and claimed.id == job.id
    jobs.report(db, job.id, 60, "layout", 412)
    url = f"/c/{demo.host_token}/export/{job.id}.json"
    running = client.get(url + "?lang=en").get_json()
    assert running["page"] == 412 and "page 412" in running["message"]
    jobs.fail(db, job.id, f"{jobs.TIME_LIMIT}: stopped after 1350 s")
    stopped = client.get(url + "?lang=en").get_json()
    assert stopped["status"] == "failed" and stopped["page"] == 412
    assert "1350 seconds" in stopped["message"] and "412 pages" in stopped["message"]
    assert "412ページ" in client.get(url + "?lang=ja").get_json()["message"]
