"""The only way a book may load anything: files under static/ and data: URIs, nothing else.

WeasyPrint asks its URL fetcher for every stylesheet, font and image a document names. The book's
HTML names only our stylesheet and fonts, and user Markdown is cleaned by nh3 (no images), but the
fetcher is the guarantee: whatever a text says, rendering never reaches the network or a file
outside ``static/``.
"""

from __future__ import annotations

import logging
import mimetypes
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit
from urllib.request import DataHandler, Request, url2pathname

from weasyprint.urls import URLFetcher, URLFetcherResponse

log = logging.getLogger("companion.export")
SUFFIXES = {".css", ".ttf", ".otf", ".woff", ".woff2", ".svg", ".png"}
MAX_DATA_URI = 2 * 1024 * 1024


class FetchRefusedError(ValueError):
    """A URL the book may not load."""


class StaticFetcher(URLFetcher):  # type: ignore[misc]
    """Serve files under ``root`` (by file: URL) and data: URIs; refuse every other URL."""

    def __init__(self, root: Path, **kwargs: Any) -> None:
        super().__init__(allowed_protocols=("file", "data"), **kwargs)
        self.root = root.resolve()
        self.refused: list[str] = []

    def fetch(self, url: str, headers: Any = None) -> URLFetcherResponse:
        """The resource at ``url``; FetchRefusedError for anything but static files and data."""
        scheme = url.split(":", 1)[0].lower() if ":" in url else ""
        if scheme == "data":
            return self._data(url)
        if scheme == "file":
            return self._file(url)
        raise self._refuse(url, "only files under static/ and data: URIs are loaded")

    def _data(self, url: str) -> URLFetcherResponse:
        if len(url) > MAX_DATA_URI:
            raise self._refuse(url, "data: URI too large")
        response = DataHandler().data_open(Request(url))
        content_type = response.headers.get("Content-Type", "application/octet-stream")
        return URLFetcherResponse(url, response.read(), {"Content-Type": content_type})

    def _file(self, url: str) -> URLFetcherResponse:
        parts = urlsplit(url)
        if parts.netloc not in ("", "localhost"):
            raise self._refuse(url, "a file: URL on another host")
        path = Path(url2pathname(unquote(parts.path))).resolve()
        if not path.is_relative_to(self.root) or not path.is_file():
            raise self._refuse(url, "a file outside static/")
        if path.suffix.lower() not in SUFFIXES:
            raise self._refuse(url, "not a stylesheet, font or picture")
        content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return URLFetcherResponse(path.as_uri(), path.read_bytes(), {"Content-Type": content_type})

    def _refuse(self, url: str, reason: str) -> FetchRefusedError:
        shown = url if len(url) < 200 else url[:200] + "…"
        self.refused.append(shown)
        log.warning("book rendering refused to load %s: %s", shown, reason)
        return FetchRefusedError(f"refused to load {shown!r}: {reason}")
