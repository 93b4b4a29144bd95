"""Age of Summoners matches recorded by earlier releases replay whole, and play on, under the
rules they were dealt with.

The fixtures hold tables played by the releases' own code (``tests/data/record_old_matches.py``
says how they were made): engine version 1 (release 0.1.0: the catch-up chips unless turned
off, faith stopped at 10, only Nightmare asked) and version 2 (the printed set-up, a gain past 10
void, the abilities that move cards asked). Each keeps its stored events exactly as that release
stored them and what its engine said of the last position.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from table_helpers import buttons, page

from companion.cardgames import get_game
from companion.store import capabilities
from companion.store import events as store
from companion.store.db import connect
from companion.streams import matches
from companion.streams.match_replay import replay_record

DATA = Path(__file__).parent / "data"
FIXTURES = {1: "summoners-v1-matches.json", 2: "summoners-v2-matches.json"}


def _tables(version: int) -> list[dict[str, Any]]:
    tables: list[dict[str, Any]] = json.loads((DATA / FIXTURES[version]).read_text("utf-8"))
    assert all(table["engine"] == version for table in tables)
    return tables


def _last(state: dict[str, Any]) -> dict[str, Any]:
    """What the fixture kept of a position, worked out the same way."""
    return {
        "moves": len(state["log"]),
        "vp": [p["vp"] for p in state["seats"]],
        "faith": [p["faith"] for p in state["seats"]],
        "spirits": [sorted(p["spirits"]) for p in state["seats"]],
        "turn_number": state["turn_number"],
        "await": state["await"],
        "result": state["result"],
    }


@pytest.mark.parametrize("version", sorted(FIXTURES))
def test_every_recorded_match_replays_whole_under_its_own_rules(version: int) -> None:
    for table in _tables(version):
        replayed = replay_record(table["events"])
        assert replayed.problem is None and replayed.engine_version == version
        assert replayed.moves == table["last"]["moves"]
        assert _last(dict(replayed.state)) == table["last"]
        assert [dict(h)["result"] for h in replayed.history] == table["earlier"]


def test_the_fixtures_hold_what_differs_between_the_versions() -> None:
    """The recorded matches cover what version 1 did differently: tables whose options do
    not name the chips (dealt with them), a Nightmare asked without naming it, a faith gain
    stopped at 10; and unfinished matches in both versions."""
    v1 = _tables(1)
    options = [t["events"][0]["options"] for t in v1]
    assert {} in options and any(o.get("catch_up") is False for o in options)
    asks = [
        e["action"]
        for t in v1
        for e in t["events"]
        if e["type"] == "action" and e["action"]["type"] == "optional"
    ]
    assert asks and all("kind" not in a for a in asks)
    dealt_with_chips = replay_record(v1[0]["events"]).state
    assert any(e["type"] == "catch-up" for e in dealt_with_chips["events"])
    for version in FIXTURES:
        assert any(t["last"]["result"] is None for t in _tables(version))


def test_todays_rules_would_not_replay_them() -> None:
    """The same records dealt and played under today's rules stop early or end elsewhere:
    the fixtures would catch a replay that quietly used the current version."""
    game = get_game("age-of-summoners")
    differ = 0
    for table in _tables(1) + _tables(2):
        events = [dict(e) for e in table["events"]]
        events[0] = {**events[0], "engine": game.engine_version}
        replayed = replay_record(events)
        differ += replayed.problem is not None or _last(dict(replayed.state)) != table["last"]
    assert differ >= 20


def _store(app: Flask, events: list[dict[str, Any]]) -> str:
    """Put a recorded table in the database as its release stored it; returns a host link."""
    db = connect(app.config["DATABASE"])
    sid = store.create_stream(db, events[0]["key"], [events[0]], title="Age of Summoners")
    version = 1
    for event in events[1:]:
        version = store.append(db, sid, version, [event])
    return capabilities.issue(db, sid, "host")


def test_an_old_table_says_its_version_and_replays_every_move(
    client: FlaskClient, app: Flask
) -> None:
    table = next(t for t in _tables(1) if t["last"]["result"] is not None)
    token = _store(app, table["events"])
    for url in (f"/t/{token}/", f"/t/{token}/replay"):  # the table's language: Japanese
        text = page(client, url)
        assert "ルールのバージョン1で配られました" in text
        assert "続きを遊ぶことはできません" not in text  # the read-only notice
    moves = table["last"]["moves"]
    assert f"{moves}手目／全{moves}手" in page(client, f"/t/{token}/replay")


def test_an_unfinished_old_match_plays_on_under_its_rules(client: FlaskClient, app: Flask) -> None:
    for version in FIXTURES:
        table = next(t for t in _tables(version) if t["last"]["result"] is None)
        token = _store(app, table["events"])
        db = connect(app.config["DATABASE"])
        match = matches.load(db, capabilities.resolve(db, token).stream_id)  # type: ignore[union-attr]
        assert match.read_only is None and match.engine_version == version
        client.post(f"/t/{token}/reveal", data={"seat": str(match.acting_seats()[0])})
        offered = buttons(page(client, f"/t/{token}/"))
        assert offered
        action = random.Random(version).choice(offered)
        posted = client.post(
            f"/t/{token}/act", data={"version": str(match.version), "action": json.dumps(action)}
        )
        assert posted.status_code == 302
        after = matches.load(db, match.id)
        assert after.version > match.version and after.engine_version == version
        assert dict(after.state)["version"] == version
