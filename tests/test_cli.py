"""The companion command: simulate, demo, cardgame simulate, init-db."""

from __future__ import annotations

import json
import re

from flask import Flask
from flask.testing import FlaskCliRunner

from companion.store.db import connect
from companion.streams import chronicles


def test_simulate_json_has_the_promised_keys(runner: FlaskCliRunner) -> None:
    result = runner.invoke(args=["simulate", "--games", "300", "--seed", "5", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    for key in (
        "games",
        "mean_marks",
        "marks_histogram",
        "p_full_legacy",
        "mean_rounds",
        "mean_checks",
        "sacrifices",
        "seconds",
        "games_per_second",
    ):
        assert key in report
    assert set(report["marks_histogram"]) == {str(n) for n in range(9)}
    assert sum(report["marks_histogram"].values()) == 300
    assert report["sacrifices"] == {"resource": 0, "attachment": 0, "creed": 0}


def test_simulate_is_repeatable_with_a_seed(runner: FlaskCliRunner) -> None:
    runs = [
        json.loads(
            runner.invoke(
                args=[
                    "simulate",
                    "--games",
                    "100",
                    "--seed",
                    "9",
                    "--policy",
                    "always",
                    "--keystones",
                    "2,1,0",
                    "--json",
                ]
            ).output
        )
        for _ in range(2)
    ]
    assert runs[0]["marks_histogram"] == runs[1]["marks_histogram"]
    assert runs[0]["sacrifices"]["creed"] == 0 and runs[0]["sacrifices"]["resource"] > 0


def test_simulate_table_and_bad_keystones(runner: FlaskCliRunner) -> None:
    table = runner.invoke(args=["simulate", "--games", "50", "--seed", "1"])
    assert table.exit_code == 0 and "mean marks" in table.output
    bad = runner.invoke(args=["simulate", "--keystones", "3,3"])
    assert bad.exit_code != 0 and "three counts" in bad.output


def test_demo_loads_the_sample_life(runner: FlaskCliRunner, app: Flask) -> None:
    result = runner.invoke(args=["demo", "--lang", "ja"])
    assert result.exit_code == 0, result.output
    sid = re.search(r"chronicle ([0-9a-f]+)", result.output).group(1)  # type: ignore[union-attr]
    assert re.search(r"http://\S+/c/\S+/", result.output)
    state = chronicles.load(connect(app.config["DATABASE"]), sid).state
    assert state.ended and state.epilogue is not None and state.setup.language == "ja"


def test_cardgame_simulate_reports_json(runner: FlaskCliRunner) -> None:
    for game, players in (("traitors-flame", 3), ("age-of-summoners", 2)):
        result = runner.invoke(
            args=[
                "cardgame",
                "simulate",
                game,
                "--games",
                "4",
                "--players",
                str(players),
                "--bots",
                "random,heuristic",
                "--json",
            ]
        )
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["games"] == 4


def test_cardgame_simulate_passes_options_and_workers(runner: FlaskCliRunner) -> None:
    args = ["cardgame", "simulate", "age-of-summoners", "--games", "4", "--players", "3"]
    result = runner.invoke(args=[*args, "--workers", "2", "--option", "catch_up=false", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["games"] == 4 and report["options"] == {"catch_up": False}
    bad = runner.invoke(args=[*args, "--option", "catch_up"])
    assert bad.exit_code != 0 and "KEY=VALUE" in bad.output
    other = runner.invoke(args=["cardgame", "simulate", "traitors-flame", "--option", "a=1"])
    assert other.exit_code != 0 and "not available" in other.output


def test_cardgame_simulate_refuses_bad_input(runner: FlaskCliRunner) -> None:
    assert runner.invoke(args=["cardgame", "simulate", "chess"]).exit_code != 0
    too_many = runner.invoke(args=["cardgame", "simulate", "age-of-summoners", "--players", "6"])
    assert too_many.exit_code != 0
    assert "Age of Summoners takes 2 to 4 players" in too_many.output  # named in English
    assert (
        runner.invoke(args=["cardgame", "simulate", "traitors-flame", "--bots", "genius"]).exit_code
        != 0
    )


def test_init_db_is_idempotent(runner: FlaskCliRunner) -> None:
    for _ in range(2):
        result = runner.invoke(args=["init-db"])
        assert result.exit_code == 0 and "Database ready" in result.output
