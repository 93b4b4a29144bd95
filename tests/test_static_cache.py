"""Static files are cached as the web expects, pages that read the session stay private: the
headers `companion serve` really sends."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from server_client import Server

from companion.web.shell.static_files import Digests, digest_of, versioned_name

ROOT = Path(__file__).resolve().parent.parent
YEAR = "public, max-age=31536000, immutable"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    served = Server(Path(tmp_path_factory.mktemp("static")) / "static.sqlite3").start()
    try:
        yield served
    finally:
        served.stop()


def test_a_static_file_is_public_for_a_year_and_a_page_stays_private(server: Server) -> None:
    browser = requests.Session()
    page = browser.get(server.url + "/?lang=en", timeout=30)
    assert page.status_code == 200
    assert page.headers["Cache-Control"] == "no-store"  # its form holds this browser's token
    css = re.search(r'href="(/static/css/app\.([0-9a-f]{12})\.css)"', page.text)
    assert css, "the page names its stylesheet by its content"
    assert css.group(2) == digest_of((ROOT / "static" / "css" / "app.css").read_bytes())
    for cookies in ({}, browser.cookies):  # the session cookie a browser sends changes nothing
        static = requests.get(server.url + css.group(1), cookies=cookies, timeout=30)
        assert static.status_code == 200
        assert static.headers["Cache-Control"] == YEAR
        assert "Set-Cookie" not in static.headers
        assert "Cookie" not in static.headers.get("Vary", "")
        assert static.content == (ROOT / "static" / "css" / "app.css").read_bytes()
    # The same page again, reading the session the browser sent: still private.
    again = browser.get(server.url + "/?lang=en", timeout=30)
    assert again.headers["Cache-Control"] == "no-store"


def test_a_plain_name_is_checked_every_time_and_costs_a_304(server: Server) -> None:
    plain = requests.get(server.url + "/static/js/site.js", timeout=30)
    assert plain.status_code == 200 and plain.headers["Cache-Control"] == "no-cache"
    assert "no-store" not in plain.headers["Cache-Control"]
    etag = plain.headers["ETag"]
    unchanged = requests.get(
        server.url + "/static/js/site.js", headers={"If-None-Match": etag}, timeout=30
    )
    assert unchanged.status_code == 304 and not unchanged.content
    # A digest that is not the file's (a page from before an upgrade) gets today's file,
    # never cached for a year.
    stale = requests.get(server.url + "/static/js/site.000000000000.js", timeout=30)
    assert stale.status_code == 200 and stale.headers["Cache-Control"] == "no-cache"
    assert stale.content == plain.content
    assert requests.get(server.url + "/static/js/nothing.js", timeout=30).status_code == 404


def test_an_answer_that_reads_no_session_is_not_private(server: Server) -> None:
    browser = requests.Session()
    browser.get(server.url + "/", timeout=30)  # a browser with a session cookie
    manifest = browser.get(server.url + "/manifest.webmanifest?lang=ja", timeout=30)
    assert manifest.status_code == 200
    assert manifest.headers["Cache-Control"] == "no-cache"


def test_pages_under_a_link_are_never_stored(server: Server) -> None:
    made = requests.post(
        server.url + "/api/v1/chronicles",
        json={
            "pioneer": {"name": "Kaya", "people": "human", "concept": "A cartographer."},
            "players": ["Ali"],
            "oldest": 0,
            "language": "en",
            "mode": "digital",
        },
        timeout=30,
    )
    assert made.status_code == 201, made.text
    token = made.json()["host_token"]
    play = requests.get(f"{server.url}/c/{token}/", timeout=30)
    assert play.status_code == 200 and play.headers["Cache-Control"] == "no-store"


def test_versioned_names_and_digests(tmp_path: Path) -> None:
    assert versioned_name("css/app.css", "0123456789ab") == "css/app.0123456789ab.css"
    assert versioned_name("favicon.svg", "0123456789ab") == "favicon.0123456789ab.svg"
    assert versioned_name("LICENSE", "0123456789ab") == "LICENSE"  # no suffix: as it is
    named = "fonts/a.0123456789ab.woff2"
    assert versioned_name(named, "ba9876543210") == named  # it carries a digest already
    (tmp_path / "a.css").write_bytes(b"body{}")
    digests = Digests(tmp_path)
    assert digests.of("a.css") == digest_of(b"body{}")
    (tmp_path / "a.css").write_bytes(b"body{color:red}")  # another size: worked out again
    assert digests.of("a.css") == digest_of(b"body{color:red}")
    assert digests.of("../a.css") is None and digests.of("missing.css") is None
