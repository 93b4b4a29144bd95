"""One chronicle grown by a flood of long corrections can't cost the whole server.

Against `companion serve` with small limits (so a few dozen corrections reach them): a text
takes only so many corrections, a chronicle only so many a minute, and a full chronicle takes
no more; meanwhile another chronicle's polls are answered, and the full chronicle's own backup
imports again.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from server_client import SETUP, Browser, Server, next_command, request

LONG = "灯" * 20_000  # the longest text a chronicle takes: 60,000 bytes of UTF-8
LIMITS = {
    "COMPANION_CHRONICLE_MAX_BYTES": str(1024 * 1024),
    "COMPANION_CORRECTIONS_PER_TEXT": "4",
    "COMPANION_CORRECTIONS_PER_MINUTE": "24",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("growth")
    running = Server(folder / "growth.sqlite3", env=LIMITS).start()
    try:
        yield running
    finally:
        running.stop()


def _chronicle(server: Server, texts: int) -> tuple[str, dict[str, Any]]:
    """A chronicle made and played through the API until it holds ``texts`` texts: its host
    token and state (the app rolls the dice, so how many commands that takes varies)."""
    status, body = request(server.port, "POST", "/api/v1/chronicles", SETUP)
    assert status == 201, body
    token, state = body["host_token"], body["state"]
    rng = random.Random(9)
    for _ in range(300):
        if len(_texts(state)) >= texts:
            return token, state
        status, state = _send(server, token, state["version"], next_command(state, rng))
        assert status == 200, state
    raise AssertionError(f"the chronicle never held {texts} texts")


def _send(server: Server, token: str, version: int, command: dict[str, Any]) -> tuple[int, Any]:
    body = {"version": version, "command": command}
    return request(server.port, "POST", f"/api/v1/chronicles/{token}/commands", body)


def _texts(state: Any) -> list[dict[str, Any]]:
    """Every text the state shows, with what a correction needs (seq, field)."""
    found: list[dict[str, Any]] = []
    if isinstance(state, dict):
        if {"text", "seq", "field"} <= state.keys():
            found.append(state)
        for value in state.values():
            found += _texts(value)
    elif isinstance(state, list):
        for value in state:
            found += _texts(value)
    unique = {(t["seq"], t["field"]): t for t in found}
    return list(unique.values())


def _correct(server: Server, token: str, state: Any, text: dict[str, Any], value: str) -> Any:
    command = {
        "type": "revise-text",
        "target_seq": text["seq"],
        "field": text["field"],
        "text": value,
    }
    return _send(server, token, state["version"], command)


def _poll_all_along(server: Server, token: str, stop: threading.Event, seen: list[int]) -> None:
    while not stop.is_set():
        status, _body = request(server.port, "GET", f"/c/{token}/version", timeout=60)
        seen.append(status)
        stop.wait(0.05)


def test_a_flood_of_long_corrections_stops_at_the_limits_and_the_backup_imports(
    server: Server,
) -> None:
    bystander, _ = _chronicle(server, 0)
    stop, polls = threading.Event(), []
    poller = threading.Thread(target=_poll_all_along, args=(server, bystander, stop, polls))
    poller.start()
    try:
        host, state = _chronicle(server, 12)
        texts = _texts(state)
        # One text takes four corrections, then is refused: its history keeps every version.
        for n in range(4):
            status, state = _correct(server, host, state, texts[0], f"{LONG[:100]} {n}")
            assert status == 200, state
        status, refused = _correct(server, host, state, texts[0], "Once more.")
        assert status == 409, "a fifth correction of one text was kept"
        assert refused["code"] == "text-corrected-enough", refused
        # Long corrections of the other texts fill the chronicle (1 MiB), then it takes no more.
        full = None
        for n in range(40):
            status, answer = _correct(server, host, state, texts[1 + n // 4], LONG)
            if status != 200:
                full = (status, answer)
                break
            state = answer
        assert full is not None and full[0] == 409, full
        assert full[1]["code"] == "chronicle-full" and "MB" in full[1]["error"]
        assert request(server.port, "GET", f"/c/{host}/story")[0] == 200
    finally:
        stop.set()
        poller.join(timeout=120)
    assert polls and all(status == 200 for status in polls), polls
    # The full chronicle's own backup imports again, whole.
    browser = Browser(server.url)
    backup = browser.get(f"/c/{host}/export.json")
    assert backup.status_code == 200
    imported = browser.post(
        "/import",
        data={"csrf_token": browser.csrf("/")},
        files={"backup": ("full.json", backup.content, "application/json")},
    )
    assert imported.status_code == 302, imported.text[-800:]
    copy = imported.headers["Location"].split("/c/")[1].split("/")[0]
    status, copied = request(server.port, "GET", f"/api/v1/chronicles/{copy}/state")
    assert status == 200 and copied["version"] == state["version"]
    assert json.dumps(_texts(copied), sort_keys=True) == json.dumps(_texts(state), sort_keys=True)


def test_corrections_faster_than_the_limit_a_minute_are_refused(server: Server) -> None:
    host, state = _chronicle(server, 7)
    texts = _texts(state)
    answers = []
    for n in range(25):
        status, answer = _correct(server, host, state, texts[n // 4], f"Quick fix {n}.")
        answers.append((status, answer.get("code") if status != 200 else None))
        if status == 200:
            state = answer
    assert answers[:24] == [(200, None)] * 24
    assert answers[24] == (429, "corrections-too-fast")
