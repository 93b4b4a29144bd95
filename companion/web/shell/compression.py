"""Text answers compressed for the clients that accept it, in front of everything else.

A table on a LAN has no proxy to compress for it, so the app does: HTML, CSS, JavaScript,
JSON, SVG, the manifest and the live feed (server-sent events), with brotli for a client that offers it
(browsers do over HTTPS) and gzip otherwise. An answer whose length is known and at most
``BUFFERED`` is compressed whole and sent with its new length; a longer one, and one sent as it
is made (the live feed), is compressed as it goes, each piece flushed as it is written so an
event is never held back. A proxy in front finds the answer compressed and passes it on.

Not compressed: answers under ``SMALLEST`` bytes, ranges, HEAD, pictures and fonts (compressed
already), anything marked ``no-transform`` or already encoded. Every answer of a compressible
type says ``Vary: Accept-Encoding``, compressed or not, so no cache hands one client's
encoding to another; a compressed answer's ETag is made weak (its bytes are not the file's).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import brotli
from flask import Flask
from werkzeug.datastructures import Headers
from werkzeug.http import parse_accept_header

GZIP_LEVEL = 6
# Measured on the pages (bench/bench_bytes.py): 5 is about as fast as gzip's 6 and 10-20%
# smaller; the higher qualities cost several times the time for a few per cent more.
BROTLI_QUALITY = 5
SMALLEST = 512  # bytes: below this the headers cost more than compression saves
BUFFERED = 1024 * 1024  # bytes compressed whole; longer answers are compressed as they go
TYPES = frozenset(
    {
        "text/html",
        "text/css",
        "text/plain",
        "text/markdown",
        "text/javascript",
        "text/event-stream",
        "text/csv",
        "application/javascript",
        "application/json",
        "application/manifest+json",
        "application/problem+json",
        "application/xml",
        "image/svg+xml",
    }
)
StartResponse = Callable[..., Any]


def chosen_coding(accept_encoding: str) -> str | None:
    """The coding to send a client that sent ``accept_encoding``: ``br``, ``gzip`` or None."""
    if not accept_encoding:
        return None
    accepted = parse_accept_header(accept_encoding)
    for coding in ("br", "gzip"):
        if accepted.quality(coding) > 0:
            return coding
    return None


class Encoder:
    """One answer's compressor, fed piece by piece."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        if coding == "br":
            self._br = brotli.Compressor(quality=BROTLI_QUALITY)
        else:
            self._gz = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 31)  # 31: a gzip wrapper

    def piece(self, data: bytes) -> bytes:
        """``data`` compressed and flushed, so the client can read it now."""
        if self.coding == "br":
            return bytes(self._br.process(data)) + bytes(self._br.flush())
        return self._gz.compress(data) + self._gz.flush(zlib.Z_SYNC_FLUSH)

    def end(self) -> bytes:
        """What closes the compressed stream."""
        if self.coding == "br":
            return bytes(self._br.finish())
        return self._gz.flush(zlib.Z_FINISH)

    def whole(self, data: bytes) -> bytes:
        """``data`` compressed in one go."""
        if self.coding == "br":
            return bytes(brotli.compress(data, quality=BROTLI_QUALITY))
        return self._gz.compress(data) + self._gz.flush(zlib.Z_FINISH)


def compressible(status: str, headers: Headers) -> bool:
    """Whether an answer of this status and these headers is of a kind worth compressing."""
    kind = headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
    if kind not in TYPES:
        return False
    if status[:3] in ("204", "206", "304") or "Content-Encoding" in headers:
        return False
    return "no-transform" not in headers.get("Cache-Control", "")


def _vary(headers: Headers) -> None:
    present = [v.strip().lower() for v in headers.get("Vary", "").split(",") if v.strip()]
    if "accept-encoding" not in present and "*" not in present:
        headers["Vary"] = ", ".join(
            [*(v for v in [headers.get("Vary", "")] if v), "Accept-Encoding"]
        )


def _weaken(headers: Headers) -> None:
    etag = headers.get("ETag")
    if etag and not etag.startswith("W/"):
        headers["ETag"] = "W/" + etag


class Compress:
    """WSGI middleware: compress what ``app`` answers for a client that accepts it."""

    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Any:
        coding = chosen_coding(environ.get("HTTP_ACCEPT_ENCODING", ""))
        if environ.get("REQUEST_METHOD") == "HEAD" or "HTTP_RANGE" in environ:
            coding = None
        started: dict[str, Any] = {}
        written: list[bytes] = []

        def capture(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            if exc_info is not None and started.get("sent"):
                raise exc_info[1].with_traceback(exc_info[2])
            started.update(status=status, headers=headers, exc_info=exc_info)
            return written.append  # the old write(): kept in order before the body

        body = self.app(environ, capture)
        chunks = iter(body)
        first: list[bytes] = []
        if not started:  # an app that starts its answer only once its body is read
            try:
                first.append(next(chunks))
            except StopIteration:
                pass
        headers = Headers(started["headers"])
        status = started["status"]
        if not compressible(status, headers):
            return self._pass(start_response, started, written + first, chunks, body)
        _vary(headers)
        length = headers.get("Content-Length")
        small = length is not None and length.isdigit() and int(length) < SMALLEST
        if coding is None or small:
            started["headers"] = headers.to_wsgi_list()
            return self._pass(start_response, started, written + first, chunks, body)
        encoder = Encoder(coding)
        headers["Content-Encoding"] = coding
        _weaken(headers)
        if length is not None and length.isdigit() and int(length) <= BUFFERED:
            try:
                data = b"".join([*written, *first, *chunks])
            finally:
                _close(body)
            if len(data) < SMALLEST:  # the length said more than came: send it as it is
                del headers["Content-Encoding"]
                packed = data
            else:
                packed = encoder.whole(data)
            headers["Content-Length"] = str(len(packed))
            start_response(status, headers.to_wsgi_list(), started["exc_info"])
            return [packed]
        headers.pop("Content-Length", None)
        start_response(status, headers.to_wsgi_list(), started["exc_info"])
        return _streamed(encoder, [*written, *first], chunks, body)

    @staticmethod
    def _pass(
        start_response: StartResponse,
        started: dict[str, Any],
        before: list[bytes],
        chunks: Iterator[bytes],
        body: Iterable[bytes],
    ) -> Any:
        start_response(started["status"], started["headers"], started["exc_info"])
        if not before:
            return body
        return _chained(before, chunks, body)


def _chained(
    before: list[bytes], chunks: Iterator[bytes], body: Iterable[bytes]
) -> Iterator[bytes]:
    try:
        yield from before
        yield from chunks
    finally:
        _close(body)


def _streamed(
    encoder: Encoder, before: list[bytes], chunks: Iterator[bytes], body: Iterable[bytes]
) -> Iterator[bytes]:
    """The body compressed as it comes, each piece flushed (an event is never held back)."""
    try:
        for data in before:
            if data:
                yield encoder.piece(data)
        for data in chunks:
            if data:
                yield encoder.piece(data)
        yield encoder.end()
    finally:
        _close(body)


def _close(body: Iterable[bytes]) -> None:
    close = getattr(body, "close", None)
    if close is not None:
        close()


def init_app(app: Flask) -> None:
    """Compress every answer of ``app`` for the clients that accept it (outermost, as
    ``app.front``: the internal requests live feeds make of ``app.wsgi_app`` never are)."""
    inner = getattr(app, "front", None) or (lambda environ, start: app.wsgi_app(environ, start))
    app.front = Compress(inner)  # type: ignore[attr-defined]
