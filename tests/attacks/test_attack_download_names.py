"""Downloads of a chronicle with a Japanese title, through gunicorn: every format, every route.

gunicorn refuses a header value outside Latin-1, so the name must travel as RFC 5987
``filename*=UTF-8''…`` beside an ASCII ``filename``; the file must still open.
"""

from __future__ import annotations

import json
import time
from urllib.parse import unquote

import pytest
from server_client import SETUP, Browser, Server, request
from waiting import BOOK_ENDS

TITLES = ["朱音", "灯（あかり）"]


def saved_name(response) -> str:  # type: ignore[no-untyped-def]
    """The file name a browser would save: ``filename*`` (RFC 5987) when given."""
    header = response.headers["Content-Disposition"]
    header.encode("latin-1")
    assert header.startswith("attachment;")
    assert 'filename="' in header
    charset, _lang, quoted = header.split("filename*=", 1)[1].split(";")[0].split("'", 2)
    assert charset.upper() == "UTF-8"
    return unquote(quoted, encoding="utf-8", errors="strict")


def japanese_chronicle(served: Server, title: str) -> str:
    setup = {**SETUP, "pioneer": {**SETUP["pioneer"], "name": title}, "language": "ja"}
    status, body = request(served.port, "POST", "/api/v1/chronicles", setup)
    assert status == 201, body
    return str(body["host_token"])


def finished_book(served: Server, token: str) -> dict[str, object]:
    path = f"/api/v1/chronicles/{token}/exports"
    status, job = request(served.port, "POST", path, {"format": "pdf", "paper": "a5"})
    assert status in (200, 202), job
    deadline = time.monotonic() + BOOK_ENDS
    while job["status"] != "done":
        assert job["status"] != "failed" and time.monotonic() < deadline, job
        time.sleep(0.5)
        status, job = request(served.port, "GET", job["status_url"])
    return job


@pytest.mark.parametrize("title", TITLES)
def test_markdown_and_backup_download_with_their_japanese_names(
    browser: Browser, served: Server, title: str
) -> None:
    token = japanese_chronicle(served, title)
    markdown = browser.get(f"/c/{token}/export.md")
    assert markdown.status_code == 200, markdown.text[-300:]
    assert saved_name(markdown) == f"{title}.md"
    assert title in markdown.content.decode("utf-8")
    backup = browser.get(f"/c/{token}/export.json")
    assert backup.status_code == 200
    assert saved_name(backup) == f"{title}.json"
    assert json.loads(backup.content)["chronicle"]["title"] == title


def test_the_book_downloads_with_its_japanese_name(browser: Browser, served: Server) -> None:
    title = TITLES[1]
    token = japanese_chronicle(served, title)
    job = finished_book(served, token)
    expected = f"{title}-{job['edition']}-a5.pdf"
    from_api = browser.get(str(job["file_url"]))
    assert from_api.status_code == 200
    assert saved_name(from_api) == expected
    assert from_api.content.startswith(b"%PDF")
    page = browser.get(f"/c/{token}/book/v{job['version']}-{job['edition']}-a5.pdf")
    assert page.status_code == 200
    assert saved_name(page) == expected
    assert page.content == from_api.content


def test_a_pack_downloads_with_its_name(browser: Browser) -> None:
    response = browser.get("/packs/standard/ja/download")
    assert response.status_code == 200
    assert saved_name(response) == "standard.ja.md"
    assert response.content.decode("utf-8").strip()


@pytest.mark.parametrize(
    ("name", "fallback"),
    [
        ("朱音.md", "download.md"),
        ('Élodie "x";y.json', "Elodie-x-y.json"),
        ("灯（あかり）-story-a5.pdf", "story-a5.pdf"),
        ("standard.ja.md", "standard.ja.md"),
    ],
)
def test_every_download_header_is_latin1_with_an_ascii_fallback(name: str, fallback: str) -> None:
    from companion.web.shell.downloads import content_disposition

    header = content_disposition(name)
    header.encode("ascii")
    assert f'filename="{fallback}"' in header
    assert unquote(header.split("filename*=UTF-8''", 1)[1]) == name
