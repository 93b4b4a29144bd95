"""Proof through the real server: racing devices lose nothing and double nothing; a kill -9 loses
no acknowledged command and leaves the database intact."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from racing import create_chronicle, race, race_at_one_version, start_clients
from server_client import Server, request
from waiting import wait_until

pytestmark = pytest.mark.slow


@pytest.fixture
def server(tmp_path: Path):  # type: ignore[no-untyped-def]
    running = Server(tmp_path / "proof.sqlite3").start()
    yield running
    running.stop()


def events_of(database: Path, token_version: int = 0) -> list[tuple[int, str, str]]:
    with sqlite3.connect(database) as db:
        return db.execute("SELECT seq, type, data FROM events ORDER BY stream_id, seq").fetchall()


def test_eight_racing_clients_lose_nothing_and_double_no_roll(server: Server) -> None:
    token, start = create_chronicle(server.port)
    # Eight commands at one version at once, round after round (dice rolls among them): one is
    # stored, the seven others are refused as stale, however fast the server answers.
    rounds = race_at_one_version([server.port], token, clients=8, rounds=30)
    for answers in rounds:
        assert sorted(answer.status or 0 for answer in answers) == [200] + [409] * 7, answers
    log = race([server.port], token, clients=8, commands=200)
    commands = [answer for answer in log if answer.kind == "command"]
    assert len(commands) == 1600 and len(log) == 1600, [a for a in log if a.kind != "command"][:3]
    refused = [answer for answer in commands if answer.status not in (200, 409)]
    assert not refused, refused[:3]
    accepted = [answer for answer in [*sum(rounds, []), *commands] if answer.accepted]
    versions = sorted(answer.new_version for answer in accepted)
    assert len(versions) == len(set(versions)), "two commands got the same version"
    assert all(answer.new_version == answer.sent_version + 1 for answer in accepted)
    events = events_of(server.database)
    assert [seq for seq, _t, _d in events] == list(range(1, len(events) + 1))
    assert len(events) == start + len(accepted)  # 0 lost, 0 extra
    _assert_no_doubled_rolls(server.port, token)


def _assert_no_doubled_rolls(port: int, token: str) -> None:
    status, story = request(port, "GET", f"/api/v1/chronicles/{token}/story")
    assert status == 200
    points = [tp for chapter in story["chapters"] for tp in chapter["turning_points"]]
    assert points
    for tp in points:
        assert len(tp["rolls"]) == len(tp["payments"]) + 1, tp


def test_kill_minus_nine_loses_no_acknowledged_command(server: Server) -> None:
    token, _start = create_chronicle(server.port)
    stop = threading.Event()
    log, threads = start_clients([server.port], token, 4, 10_000, stop)
    wait_until(lambda: sum(answer.accepted for answer in log) > 10, "commands acknowledged")
    server.kill()
    stop.set()
    for t in threads:
        t.join(timeout=300)
    assert not [t for t in threads if t.is_alive()], "a client never stopped"
    with sqlite3.connect(server.database) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    server.start()
    acknowledged = [answer for answer in log if answer.accepted]
    assert len(acknowledged) > 10
    stored = {seq: kind for seq, kind, _data in events_of(server.database)}
    for answer in acknowledged:
        assert answer.command is not None
        version, command_type = answer.new_version, answer.command["type"]
        assert version in stored, f"acknowledged version {version} is missing"
        assert _matches(stored[version], command_type), (version, stored[version], command_type)
    status, state = request(server.port, "GET", f"/api/v1/chronicles/{token}/state")
    assert status == 200 and state["version"] >= max(a.new_version or 0 for a in acknowledged)


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
