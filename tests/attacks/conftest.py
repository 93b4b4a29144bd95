"""Attacks reproduced against the real server: `companion serve` (gunicorn, two workers).

`served` is one server shared by every attack test that needs no special settings; tests that
need their own settings start a `Server` of their own with `env`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from server_client import Server


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One `companion serve` for the attack tests, rate limits off, on a fresh database."""
    folder = tmp_path_factory.mktemp("served")
    server = Server(folder / "served.sqlite3").start()
    try:
        yield server
    finally:
        server.stop()


class Browser(requests.Session):
    """A browser-like client: keeps cookies and sends the page's CSRF token with its forms."""

    def __init__(self, base: str) -> None:
        super().__init__()
        self.base = base

    def request(self, method, url, *args, **kwargs):  # type: ignore[no-untyped-def, override]
        if url.startswith("/"):
            url = self.base + url
        kwargs.setdefault("allow_redirects", False)
        kwargs.setdefault("timeout", 60)
        response = super().request(method, url, *args, **kwargs)
        for cookie in self.cookies:
            # Browsers send Secure cookies to loopback addresses over plain http; requests
            # does not, so the session (and its CSRF token) would be lost between requests.
            cookie.secure = False
        return response

    def csrf(self, path: str = "/new") -> str:
        """A CSRF token for this browser's session, read from a page with a form."""
        page = self.get(path).text
        match = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page) or re.search(
            r'name="csrf-token" content="([^"]+)"', page
        )
        assert match, f"no CSRF token on {path}"
        return match.group(1)

    def post_form(self, path: str, data: dict[str, str], token_page: str = "/new"):  # type: ignore[no-untyped-def]
        """A form post as the page would send it."""
        return self.post(path, data={"csrf_token": self.csrf(token_page), **data})


@pytest.fixture
def browser(served: Server) -> Browser:
    return Browser(served.url)


def new_database(tmp_path: Path) -> Path:
    """A database path for a server of a test's own."""
    return tmp_path / "own.sqlite3"
