"""Proof through the real server: racing devices lose nothing and double nothing; a kill -9 loses
no acknowledged command and leaves the database intact."""

from __future__ import annotations

import random
import sqlite3
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from server_client import SETUP, Server, next_command, request

pytestmark = pytest.mark.slow


@pytest.fixture
def server(tmp_path: Path):  # type: ignore[no-untyped-def]
    running = Server(tmp_path / "proof.sqlite3").start()
    yield running
    running.stop()


def create(port: int) -> tuple[str, int]:
    status, body = request(port, "POST", "/api/v1/chronicles", SETUP)
    assert status == 201, body
    return body["host_token"], body["state"]["version"]


def client_loop(
    port: int,
    token: str,
    commands: int,
    seed: int,
    log: list[tuple[Any, ...]],
    stop: threading.Event,
) -> None:
    """Read the state, send the next command at that version; record every answer."""
    rng = random.Random(seed)
    sent = 0
    while sent < commands and not stop.is_set():
        try:
            status, state = request(port, "GET", f"/api/v1/chronicles/{token}/state")
            if status != 200:
                log.append(("state", status, None, None))
                continue
            command = next_command(state, rng)
            status, body = request(
                port,
                "POST",
                f"/api/v1/chronicles/{token}/commands",
                {"version": state["version"], "command": command},
            )
        except OSError as err:
            log.append(("error", str(err), None, None))
            if stop.is_set():
                return
            continue
        sent += 1
        new_version = body.get("version") if isinstance(body, dict) else None
        log.append(("command", status, state["version"], new_version, command["type"]))
        if status not in (200, 409):
            log.append(("refused", status, command, body))


def run_clients(
    port: int, token: str, clients: int, commands: int, stop: threading.Event
) -> list[tuple[Any, ...]]:
    log: list[tuple[Any, ...]] = []
    threads = [
        threading.Thread(target=client_loop, args=(port, token, commands, seed, log, stop))
        for seed in range(clients)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    return log


def events_of(database: Path, token_version: int = 0) -> list[tuple[int, str, str]]:
    with sqlite3.connect(database) as db:
        return db.execute("SELECT seq, type, data FROM events ORDER BY stream_id, seq").fetchall()


def test_eight_racing_clients_lose_nothing_and_double_no_roll(server: Server) -> None:
    token, start = create(server.port)
    log = run_clients(server.port, token, clients=8, commands=200, stop=threading.Event())
    commands = [entry for entry in log if entry[0] == "command"]
    assert len(commands) == 1600
    statuses = Counter(entry[1] for entry in commands)
    assert set(statuses) <= {200, 409}, [entry for entry in log if entry[0] == "refused"][:3]
    assert statuses[200] > 100 and statuses[409] > 100, statuses  # they really raced
    assert not [entry for entry in log if entry[0] not in ("command", "refused")]
    accepted = sorted(entry[3] for entry in commands if entry[1] == 200)
    assert len(accepted) == len(set(accepted)), "two commands got the same version"
    assert all(entry[3] == entry[2] + 1 for entry in commands if entry[1] == 200)
    events = events_of(server.database)
    assert [seq for seq, _t, _d in events] == list(range(1, len(events) + 1))
    assert len(events) == start + statuses[200]  # 0 lost, 0 extra
    _assert_no_doubled_rolls(server.port, token)


def _assert_no_doubled_rolls(port: int, token: str) -> None:
    status, story = request(port, "GET", f"/api/v1/chronicles/{token}/story")
    assert status == 200
    points = [tp for chapter in story["chapters"] for tp in chapter["turning_points"]]
    assert points
    for tp in points:
        assert len(tp["rolls"]) == len(tp["payments"]) + 1, tp


def test_kill_minus_nine_loses_no_acknowledged_command(server: Server) -> None:
    token, _start = create(server.port)
    stop = threading.Event()
    log: list[tuple[Any, ...]] = []
    threads = [
        threading.Thread(target=client_loop, args=(server.port, token, 10_000, seed, log, stop))
        for seed in range(4)
    ]
    for t in threads:
        t.start()
    time.sleep(3)
    server.kill()
    stop.set()
    for t in threads:
        t.join(timeout=60)
    with sqlite3.connect(server.database) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    server.start()
    acknowledged = [entry for entry in log if entry[0] == "command" and entry[1] == 200]
    assert len(acknowledged) > 10
    stored = {seq: kind for seq, kind, _data in events_of(server.database)}
    for _kind, _status, _base, version, command_type in acknowledged:
        assert version in stored, f"acknowledged version {version} is missing"
        assert _matches(stored[version], command_type), (version, stored[version], command_type)
    status, state = request(server.port, "GET", f"/api/v1/chronicles/{token}/state")
    assert status == 200 and state["version"] >= max(entry[3] for entry in acknowledged)


EVENT_OF = {
    "draw-card": "card-drawn",
    "choose-prompt": "prompt-chosen",
    "answer-prompt": "prompt-answered",
    "declare-stakes": "stakes-declared",
    "roll-dice": "dice-rolled",
    "narrate-success": "success-narrated",
    "build-mark": "mark-built",
    "sacrifice-keystone": "keystone-sacrificed",
    "accept-failure": "failure-accepted",
    "write-epilogue": "epilogue-written",
    "revise-text": "text-revised",
}


def _matches(event_type: str, command_type: str) -> bool:
    return EVENT_OF.get(command_type) == event_type
