"""`companion check` replays every stream from its first event and names the damaged ones;
`backup --verify` does the same on its scratch copy; the other commands answer a damaged stream
with a sentence. Runs on SQLite, and on PostgreSQL in scripts/test's second lane."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskCliRunner

from companion.app import main
from companion.store.db import get_db
from companion.streams import chronicles, matches


def _stream_ids(runner: FlaskCliRunner, app: Flask) -> tuple[str, str]:
    """A chronicle (the sample life) and a card table, in the app's store."""
    demo = runner.invoke(main, ["demo", "--lang", "en"])
    assert demo.exit_code == 0, demo.output
    chronicle = demo.output.split("chronicle ", 1)[1].split()[0]
    seats = [matches.Seat("Ann"), matches.Seat("Bo", "heuristic"), matches.Seat("Cy", "heuristic")]
    with app.app_context():
        table, _host = matches.create(get_db(), "traitors-flame", seats, "hotseat", "en", 5)
    return chronicle, table


def _sql(app: Flask, statement: str, *parameters: object) -> None:
    with app.app_context():
        get_db().execute(statement, list(parameters))


def test_a_sound_store_replays_whole(app: Flask, runner: FlaskCliRunner) -> None:
    _stream_ids(runner, app)
    result = runner.invoke(main, ["check"])
    assert result.exit_code == 0, result.output
    assert "Checked 2 streams" in result.output and "every one replays" in result.output
    report = json.loads(runner.invoke(main, ["check", "--json"]).output)
    assert report["streams"] == 2 and report["events"] > 20 and report["damaged"] == []


def test_an_unreadable_event_is_named_with_its_stream(app: Flask, runner: FlaskCliRunner) -> None:
    chronicle, table = _stream_ids(runner, app)
    _sql(app, "UPDATE events SET data = ? WHERE stream_id = ? AND seq = 3", "{not json", chronicle)
    result = runner.invoke(main, ["check"])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"Damaged: chronicle {chronicle}" in result.output and "event 3 " in result.output
    assert table not in result.output and "1 damaged" in result.output


def test_a_missing_event_and_a_table_that_does_not_replay_are_named(
    app: Flask, runner: FlaskCliRunner
) -> None:
    chronicle, table = _stream_ids(runner, app)
    _sql(app, "DELETE FROM events WHERE stream_id = ? AND seq = 2", chronicle)
    _sql(app, "UPDATE events SET data = ? WHERE stream_id = ? AND seq = 1", '{"a": 1}', table)
    report = json.loads(runner.invoke(main, ["check", "--json"]).output)
    found = {d["stream_id"]: d["problem"] for d in report["damaged"]}
    assert set(found) == {chronicle, table}
    assert "missing: 2" in found[chronicle]


def test_a_chronicle_whose_events_break_the_rules_does_not_replay(
    app: Flask, runner: FlaskCliRunner
) -> None:
    chronicle, _table = _stream_ids(runner, app)
    _sql(app, "UPDATE events SET data = ? WHERE stream_id = ? AND seq = 4", '{"x": 1}', chronicle)
    report = json.loads(runner.invoke(main, ["check", "--json"]).output)
    (damage,) = report["damaged"]
    assert damage["stream_id"] == chronicle and "do not replay" in damage["problem"]


@pytest.mark.parametrize(
    "command", [["chronicles", "show"], ["export", "--format", "md", "-o", "-"]]
)
def test_the_cli_answers_a_damaged_chronicle_with_a_sentence(
    app: Flask, runner: FlaskCliRunner, command: list[str]
) -> None:
    chronicle, _table = _stream_ids(runner, app)
    _sql(app, "UPDATE events SET data = ? WHERE stream_id = ? AND seq = 3", "{not json", chronicle)
    args = [*command[:2], chronicle, *command[2:]] if command[0] == "chronicles" else [
        command[0], chronicle, *command[1:]]  # fmt: skip
    chronicles.CACHE.clear()  # as a fresh `companion` process finds it
    result = runner.invoke(main, args)
    assert result.exit_code == 1, (result.output, result.exception)
    assert "Traceback" not in result.output
    assert f"The chronicle {chronicle} is damaged: its event 3 is not readable" in result.output
    assert "companion check" in result.output


@pytest.mark.sqlite_only
def test_backup_verify_replays_the_copy_and_refuses_a_damaged_stream(
    app: Flask, runner: FlaskCliRunner, tmp_path: Path
) -> None:
    chronicle, _table = _stream_ids(runner, app)
    good = tmp_path / "good.zip"
    assert runner.invoke(main, ["backup", str(good)]).exit_code == 0
    assert "is a good backup" in runner.invoke(main, ["backup", "--verify", str(good)]).output
    _sql(app, "UPDATE events SET data = ? WHERE stream_id = ? AND seq = 3", "{not json", chronicle)
    bad = tmp_path / "bad.zip"
    assert runner.invoke(main, ["backup", str(bad)]).exit_code == 0  # rows all there
    result = runner.invoke(main, ["backup", "--verify", str(bad)])
    assert result.exit_code == 1 and "is a good backup" not in result.output
    assert f"damaged chronicle {chronicle}" in result.output and "event 3" in result.output


def test_info_answers_in_json_with_what_runs_on_the_store(
    app: Flask, runner: FlaskCliRunner
) -> None:
    import os

    from companion.base import __version__
    from companion.store import pg

    with app.app_context():
        get_db().execute("SELECT 1")  # a connection this process holds, as a server's would
        result = runner.invoke(main, ["info", "--json"])
    assert result.exit_code == 0, result.output
    facts = json.loads(result.output)
    assert facts["companion"] == __version__
    assert facts["schema"]["applied"] == facts["schema"]["known"]
    if pg.is_url(app.config["DATABASE"]):
        mine = [c for c in facts["connected"] if c["pid"] == os.getpid()]
        assert mine and mine[0]["role"] == "command"
        # Other tests' servers and supervisors may still be connected to the shared cluster:
        # the lines are there with a count; what they count is checked on facts of our own below.
        text = runner.invoke(main, ["info"]).output
        assert re.search(r"^servers: +\d+( \(.+\))?$", text, re.MULTILINE), text
        assert re.search(r"^supervisors: +\d+( \(.+\))?$", text, re.MULTILINE), text
    else:
        assert facts["server"] == "not running" and facts["versions"]["sqlite"]


def test_info_counts_the_servers_and_supervisors_connected_by_machine() -> None:
    from companion.ops.admin import _running_rows

    connected = [
        {"role": "server", "machine": "web-2", "pid": 11},
        {"role": "server", "machine": "web-1", "pid": 12},
        {"role": "server", "machine": "web-1", "pid": 13},
        {"role": "command", "machine": "web-1", "pid": 14},
    ]
    assert _running_rows({"connected": connected}) == [
        ("servers", "3 (web-1, web-2)"),
        ("supervisors", "0"),
    ]
    assert _running_rows({"server": "not running"}) == [("server", "not running")]
