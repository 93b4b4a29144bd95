"""Prompt pack uploads through the real server: nobody replaces anybody's pack, and uploads are capped."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from server_client import Browser, Server

from companion.packs.registry import get_pack, pack_to_text


def pack_text(name: str, marker: str) -> str:
    text = pack_to_text(get_pack("standard", "en")).replace("name: standard", f"name: {name}")
    return text.replace("\n- ", f"\n- {marker} ")


@pytest.fixture(scope="module")
def packs_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("packs")
    env = {
        "COMPANION_PACKS_MAX": "4",
        "COMPANION_PACKS_PER_CLIENT": "2",
        # Plain HTTP on loopback: the test client keeps the session cookie only if not Secure.
        "COMPANION_SESSION_COOKIE_SECURE": "false",
    }
    server = Server(folder / "packs.sqlite3", env=env).start()
    try:
        yield server
    finally:
        server.stop()


def send(browser: Browser, text: str, filename: str = "harbour.en.md"):  # type: ignore[no-untyped-def]
    files = {"pack": (filename, io.BytesIO(text.encode()))}
    return browser.post("/packs/upload", data={"csrf_token": browser.csrf("/packs/")}, files=files)


def test_a_second_harbour_never_replaces_the_first(packs_server: Server) -> None:
    first, second = Browser(packs_server.url), Browser(packs_server.url)
    mine = send(first, pack_text("harbour", "FIRST"))
    theirs = send(second, pack_text("harbour", "SECOND"))
    assert mine.status_code == theirs.status_code == 302
    assert mine.headers["Location"] != theirs.headers["Location"]
    assert "FIRST" in first.get(mine.headers["Location"]).text
    assert "SECOND" in first.get(theirs.headers["Location"]).text
    shadow = send(second, pack_text("standard", "SHADOW"), "standard.en.md")
    assert shadow.status_code == 400
    assert "SHADOW" not in first.get("/packs/standard/en").text


def test_too_many_uploads_get_a_clear_400(packs_server: Server) -> None:
    greedy = Browser(packs_server.url)
    answers = [send(greedy, pack_text(f"p{i}", "X")).status_code for i in range(3)]
    assert answers == [302, 302, 400]
    strangers = [send(Browser(packs_server.url), pack_text(f"s{i}", "X")) for i in range(4)]
    full = strangers[-1]
    assert full.status_code == 400 and "make room" in full.text
    assert "<form" in greedy.get("/new").text
