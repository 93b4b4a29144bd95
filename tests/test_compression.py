"""`companion serve` compresses text answers for the clients that accept it: pages, static
text files, JSON and the live feed, each event as it comes."""

from __future__ import annotations

import http.client
import re
import sys
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import brotli
import pytest
from flask.testing import FlaskClient
from server_client import Server

from companion.web.shell.compression import chosen_coding

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import lifegen  # noqa: E402


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str]]:
    database = Path(tmp_path_factory.mktemp("compression")) / "c.sqlite3"
    token = lifegen.full_life(database, chars=4000, checks=6)
    server = Server(database).start()
    try:
        yield server, token
    finally:
        server.stop()


def raw_get(port: int, path: str, headers: dict[str, str]) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers=headers)
    return conn.getresponse()


def test_a_page_is_sent_compressed_and_reads_back_the_same(served: tuple[Server, str]) -> None:
    server, token = served
    plain = raw_get(server.port, f"/c/{token}/story", {})
    body = plain.read()
    assert plain.getheader("Content-Encoding") is None and len(body) > 50_000
    assert "Accept-Encoding" in (plain.getheader("Vary") or "")
    for coding, unpack in (("gzip", lambda b: zlib.decompress(b, 31)), ("br", brotli.decompress)):
        packed = raw_get(server.port, f"/c/{token}/story", {"Accept-Encoding": coding})
        data = packed.read()
        assert packed.getheader("Content-Encoding") == coding
        assert int(packed.getheader("Content-Length") or 0) == len(data)
        assert len(data) < len(body) / 4
        # The page as sent: the same but for the CSRF token, which is this request's own.
        token_free = re.compile(rb'"[\w.-]{60,}"')
        assert token_free.sub(b"", unpack(data)) == token_free.sub(b"", body)


def test_static_text_is_compressed_and_a_304_still_answers(served: tuple[Server, str]) -> None:
    server, _token = served
    first = raw_get(server.port, "/static/css/app.css", {"Accept-Encoding": "gzip, deflate"})
    data = first.read()
    assert first.getheader("Content-Encoding") == "gzip"
    etag = first.getheader("ETag") or ""
    assert etag.startswith("W/"), etag  # its bytes are not the file's
    root = Path(__file__).resolve().parent.parent
    assert zlib.decompress(data, 31) == (root / "static" / "css" / "app.css").read_bytes()
    again = raw_get(
        server.port, "/static/css/app.css", {"Accept-Encoding": "gzip", "If-None-Match": etag}
    )
    assert again.status == 304
    # Pictures are compressed already: sent as they are.
    icon = raw_get(server.port, "/static/icons/icon-512.png", {"Accept-Encoding": "gzip"})
    assert icon.getheader("Content-Encoding") is None and icon.read()[:4] == b"\x89PNG"


def test_each_event_of_a_feed_comes_compressed_as_it_is_sent(
    served: tuple[Server, str],
) -> None:
    server, token = served
    feed = raw_get(server.port, f"/c/{token}/events", {"Accept-Encoding": "gzip"})
    assert feed.status == 200 and feed.getheader("Content-Encoding") == "gzip"
    unpack = zlib.decompressobj(31)
    seen = b""
    deadline = time.monotonic() + 30  # the first event comes at once; a held one would hang
    while b"\n\n" not in seen and time.monotonic() < deadline:
        seen += unpack.decompress(feed.read1(4096))
    assert seen.startswith(b"retry: ") and b'"version"' in seen, seen[:200]
    feed.close()


def test_who_gets_what() -> None:
    assert chosen_coding("gzip, deflate, br, zstd") == "br"
    assert chosen_coding("gzip, deflate") == "gzip"
    assert chosen_coding("br;q=0, gzip") == "gzip"
    assert chosen_coding("*") == "br"
    assert chosen_coding("identity") is None and chosen_coding("") is None
    assert chosen_coding("gzip;q=0") is None


def test_what_is_never_compressed(client: FlaskClient) -> None:
    page = client.get("/?lang=en", headers={"Accept-Encoding": "gzip"})
    assert page.headers["Content-Encoding"] == "gzip"
    head = client.head("/?lang=en", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in head.headers
    ranged = client.get(
        "/static/css/app.css", headers={"Accept-Encoding": "gzip", "Range": "bytes=0-9"}
    )
    assert ranged.status_code == 206 and "Content-Encoding" not in ranged.headers
    assert len(ranged.data) == 10
    small = client.get("/healthz", headers={"Accept-Encoding": "gzip"})  # a few bytes of JSON
    assert "Content-Encoding" not in small.headers
    assert "Accept-Encoding" in small.headers.get("Vary", "")
