"""Exports within bounds, in the browser and the API: a chronicle's share of the queue, the
exports' rate limit per link and per address, the Markdown file made once per version, and the
sentences each refusal says."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import make_app
from flask import Flask
from flask.testing import FlaskClient

from companion.export import keeper, markdown
from companion.legacy import ReviseText
from companion.store.db import connect
from companion.streams import chronicles
from companion.streams.demo import create_demo


@pytest.fixture
def spawned(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    found: list[Any] = []
    monkeypatch.setattr(keeper, "ensure_for_app", found.append)  # no worker: books stay queued
    return found


@pytest.fixture
def demo(app: Flask) -> chronicles.Created:
    return create_demo(connect(app.config["DATABASE"]), "en")


def ask(client: FlaskClient, token: str, paper: str, edition: str = "story") -> Any:
    return client.post(f"/c/{token}/export/pdf?lang=en", data={"edition": edition, "paper": paper})


def test_past_its_share_a_chronicle_is_told_to_wait_on_the_page_and_in_the_api(
    app: Flask, client: FlaskClient, demo: chronicles.Created, spawned: list[Any]
) -> None:
    app.config["EXPORT_QUEUE_PER_STREAM"] = 2
    reader = demo.reader_token
    assert [ask(client, reader, paper).status_code for paper in ("a5", "a4")] == [302, 302]
    assert ask(client, reader, "a5").status_code == 302  # the same book: the same job
    refused = ask(client, reader, "b6")
    page = refused.get_data(as_text=True)
    assert refused.status_code == 429 and "already has 2 books waiting" in page
    assert f'href="/c/{reader}/story#exports"' in page  # back to where the form was
    body = {"format": "epub", "edition": "story"}
    api = client.post(f"/api/v1/chronicles/{reader}/exports?lang=en", json=body)
    assert api.status_code == 429 and api.get_json()["code"] == "export-queue-full"
    assert "already has 2 books waiting" in api.get_json()["error"]
    other = create_demo(connect(app.config["DATABASE"]), "en")
    assert ask(client, other.reader_token, "b6").status_code == 302  # its own share


def test_the_share_is_a_setting_that_is_checked_when_the_app_starts(tmp_path: Any) -> None:
    with pytest.raises(ValueError, match="EXPORT_QUEUE_PER_STREAM"):
        make_app(tmp_path, EXPORT_QUEUE_PER_STREAM=1)


def test_exports_are_counted_per_link_and_per_address(tmp_path: Any) -> None:
    app = make_app(tmp_path, RATELIMIT_ENABLED=True, RATELIMIT_EXPORT=3, PROXY_HOPS=1)
    db = connect(app.config["DATABASE"])
    first, second = create_demo(db, "en"), create_demo(db, "en")
    client = app.test_client()

    def markdown_from(address: str, token: str) -> int:
        headers = {"X-Forwarded-For": address}
        return client.get(f"/c/{token}/export.md?lang=en", headers=headers).status_code

    # One address: three exports, then no more, whichever link it uses.
    assert [markdown_from("198.51.100.1", first.reader_token) for _ in range(3)] == [200] * 3
    refused = client.get(
        f"/c/{second.reader_token}/export.md?lang=en", headers={"X-Forwarded-For": "198.51.100.1"}
    )
    assert refused.status_code == 429 and "too many exports" in refused.get_data(as_text=True)
    assert int(refused.headers["Retry-After"]) > 0
    # One link from many addresses: three exports, then no more, from any address.
    addresses = [f"203.0.113.{n}" for n in range(1, 5)]
    assert [markdown_from(a, second.host_token) for a in addresses] == [200, 200, 200, 429]
    api = client.post(
        f"/api/v1/chronicles/{second.host_token}/exports",
        json={"format": "md"},
        headers={"X-Forwarded-For": "203.0.113.9"},
    )
    assert api.status_code == 429 and api.get_json()["code"] == "rate-limited"
    assert "too many exports" in api.get_json()["error"]
    # A book's progress is never counted: the page polls it every second.
    assert client.get(f"/c/{first.host_token}/version").status_code == 200


def test_the_markdown_file_is_made_once_per_version_and_edition(
    app: Flask, client: FlaskClient, demo: chronicles.Created, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[str] = []
    real = markdown.story_markdown

    def counted(state: Any, edition: str = "annotated") -> str:
        made.append(edition)
        return real(state, edition)

    monkeypatch.setattr(markdown, "story_markdown", counted)
    markdown.CACHE.clear()
    reader, host = demo.reader_token, demo.host_token
    once = client.get(f"/c/{reader}/export.md").data
    assert client.get(f"/c/{host}/export.md").data == once and made == ["annotated"]
    api = client.post(f"/api/v1/chronicles/{reader}/exports", json={"format": "md"})
    assert api.get_json()["content"].encode() == once and made == ["annotated"]
    client.get(f"/c/{reader}/export.md?edition=story")
    assert made == ["annotated", "story"]
    db = connect(app.config["DATABASE"])
    chronicle = chronicles.load(db, demo.id)
    answer = chronicle.state.story[0].answer
    assert answer is not None
    chronicles.execute(db, chronicle, [ReviseText(0, answer.seq, "answer", "A new answer.")])
    newer = client.get(f"/c/{reader}/export.md").data
    assert made == ["annotated", "story", "annotated"] and b"A new answer." in newer
    assert 0 < markdown.CACHE.nbytes <= markdown.CACHE.max_bytes


@pytest.mark.parametrize(
    "path",
    [
        "/c/{t}/book/v9223372036854775808-story-a5.pdf",
        "/c/{t}/book/v9223372036854775807-story-a5.pdf",
        "/c/{t}/book/v0-story-a5.pdf",
        "/c/{t}/book/v99999999999999999999999999999999-story-a5-epub.epub",
        "/c/{t}/book/v1-story-a5-cover-99999999999999999999999.pdf",
        "/c/{t}/text/9223372036854775808/answer",
        "/c/{t}/export/9223372036854775808.json",
        "/api/v1/chronicles/{t}/exports/9223372036854775808/file",
    ],
)
def test_numbers_no_column_holds_answer_404(
    client: FlaskClient, demo: chronicles.Created, path: str
) -> None:
    assert client.get(path.format(t=demo.host_token)).status_code == 404
