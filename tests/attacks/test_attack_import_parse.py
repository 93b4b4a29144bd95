"""Imports that are no backup, sent by anyone with no link: they never freeze a worker.

Under gevent a parse holds its whole worker: two bodies of millions of empty objects (under the
import's size) froze both workers for half a minute, every stream they held with them. The
import counts a file's keys and values before it parses anything, and a client whose imports
are refused again and again is refused before its file is read.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_client import Browser, Server

from attacks.probe import answered, during

# 1.2 million empty objects in 3.6 MB: seconds of a worker's CPU and a few hundred megabytes to
# parse and check; the import takes files five times this size.
BOMB = b'{"x":[' + b"{}," * 1_200_000 + b"{}]}"
REFUSED = 2  # this test's refused imports per address and worker


def _post(browser: Browser, data: bytes):  # type: ignore[no-untyped-def]
    return browser.post(
        "/import",
        data={"csrf_token": browser.csrf("/")},
        files={"backup": ("life.json", data, "application/json")},
    )


def test_two_files_of_millions_of_objects_freeze_no_worker(served: Server) -> None:
    browsers = [Browser(served.url) for _ in range(2)]
    for browser in browsers:
        browser.csrf("/")  # a session first: the attack's posts are then all that remains

    def attack(under_way: threading.Event) -> list[int]:
        answers: list[int] = [0, 0]

        def send(n: int) -> None:
            answers[n] = _post(browsers[n], BOMB).status_code

        senders = [threading.Thread(target=send, args=(n,)) for n in range(2)]
        for sender in senders:
            sender.start()
        under_way.set()
        for sender in senders:
            sender.join()
        return answers

    statuses = during(attack, lambda: answered(served.port), probes=5)
    assert statuses == [303, 303]
    page = browsers[0].get("/").text
    assert "more values than the backup of a full chronicle" in page


@pytest.fixture
def budgeted(tmp_path: Path) -> Iterator[Server]:
    env = {
        "COMPANION_RATELIMIT_ENABLED": "true",
        "COMPANION_RATELIMIT_REFUSED": str(REFUSED),
        "COMPANION_SESSION_COOKIE_SECURE": "false",
    }
    server = Server(tmp_path / "budget.sqlite3", env=env).start()
    try:
        yield server
    finally:
        server.stop()


def test_a_client_refused_again_and_again_is_refused_unread(budgeted: Server) -> None:
    """Each worker counts on its own: at most twice the budget is read, whichever worker
    takes each post."""
    browser = Browser(budgeted.url)
    statuses = []
    for _ in range(REFUSED * 5):
        statuses.append(_post(browser, b'{"not": "a backup"}').status_code)
        answered(budgeted.port)
    assert set(statuses) <= {303, 429}, statuses
    assert statuses.count(303) <= 2 * REFUSED, statuses
