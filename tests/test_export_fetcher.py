"""The book's URL fetcher: static files and data: URIs, nothing else, whatever a text says."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from flask import Flask

from companion.base.paths import CHECKOUT as ROOT
from companion.export.book import book_html, render_book
from companion.export.fetcher import FetchRefusedError, StaticFetcher
from companion.legacy import AnswerPrompt, ChoosePrompt, DrawCard, State, start, step
from companion.samples import load_sample, sample_setup

STATIC = ROOT / "static"


@pytest.fixture
def fetcher() -> StaticFetcher:
    return StaticFetcher(STATIC)


@pytest.fixture
def server() -> Iterator[tuple[str, list[str]]]:
    """A local HTTP server that records every request it gets."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server API
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "text/css")
            self.end_headers()
            self.wfile.write(b"body { color: red }")

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}", hits
    finally:
        httpd.shutdown()


def test_static_fonts_and_stylesheets_are_served(fetcher: StaticFetcher) -> None:
    font = fetcher.fetch((STATIC / "fonts" / "ipaexm.ttf").as_uri())
    assert font.read(4) == b"\x00\x01\x00\x00"
    css = fetcher.fetch((STATIC / "css" / "book-fonts.css").as_uri())
    assert b"@font-face" in css.read()


def test_data_uris_are_served(fetcher: StaticFetcher) -> None:
    response = fetcher.fetch("data:text/plain;base64,aGVsbG8=")
    assert response.read() == b"hello"


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/cover.png",
        "https://example.com/font.woff2",
        "ftp://example.com/x.css",
        "file:///etc/passwd",
        "file://otherhost" + str(STATIC / "css" / "book.css"),
        (STATIC / "css").as_uri() + "/../../companion/__init__.py",
        (STATIC / "js" / "play.js").as_uri(),
        (STATIC / "fonts" / "missing.ttf").as_uri(),
        "javascript:alert(1)",
        "//example.com/protocol-relative.css",
    ],
)
def test_everything_else_is_refused(fetcher: StaticFetcher, url: str) -> None:
    with pytest.raises(FetchRefusedError):
        fetcher.fetch(url)
    assert fetcher.refused


def test_a_symlink_out_of_static_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "static"
    root.mkdir()
    secret = tmp_path / "secret.css"
    secret.write_text("body {}")
    (root / "link.css").symlink_to(secret)
    with pytest.raises(FetchRefusedError):
        StaticFetcher(root).fetch((root / "link.css").as_uri())


def test_rendering_never_reaches_out(server: tuple[str, list[str]]) -> None:
    base, hits = server
    html = f"""<!doctype html><html lang="en"><head>
      <link rel="stylesheet" href="{base}/remote.css">
      <link rel="stylesheet" href="css/book.css">
      <style>@import url("{base}/imported.css"); @font-face {{ font-family: X; src: url("{base}/x.ttf"); }}
      body {{ background: url("{base}/bg.png"); font-family: X; }}</style></head>
      <body><p>Text <img src="{base}/photo.png"> <img src="file:///etc/hostname">
      <object data="{base}/o.svg"></object><a href="{base}/link">a link</a></p></body></html>"""
    pdf = render_book(html, STATIC)
    assert pdf.startswith(b"%PDF")
    assert hits == []
    # The same page with WeasyPrint's own fetcher does reach the server: the test can fail.
    from weasyprint import HTML

    HTML(string=html, base_url=STATIC.as_uri() + "/").write_pdf()
    assert "/remote.css" in hits and "/photo.png" in hits


def test_user_markdown_images_and_links_are_not_fetched(
    app: Flask, server: tuple[str, list[str]]
) -> None:
    base, hits = server
    sample = load_sample("en")
    state: State = start(sample_setup(sample))[0]
    answer = f"![a picture]({base}/img.png) and <img src='{base}/raw.png'> and [a link]({base}/l)"
    for command in (DrawCard(0, "AH"), ChoosePrompt(0, 0), AnswerPrompt(0, answer)):
        state, _ = step(state, command)
    with app.app_context():
        html = book_html(state, "annotated", "b6")
    assert "<img" not in html and f'href="{base}/l"' in html
    render_book(html, STATIC)
    assert hits == []
