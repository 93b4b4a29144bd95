"""Attacks reproduced against the real server: `companion serve` (gunicorn, two workers).

`served` is one server shared by every attack test that needs no special settings; tests that
need their own settings start a `Server` of their own with `env`.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from server_client import Browser, Server


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One `companion serve` for the attack tests, rate limits off, on a fresh database."""
    folder = tmp_path_factory.mktemp("served")
    server = Server(folder / "served.sqlite3").start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def browser(served: Server) -> Browser:
    return Browser(served.url)
