"""``simulate``: whole lives played through decide and evolve, and their figures."""

from __future__ import annotations

import math

import pytest

from companion.legacy import STAGES, p_success
from companion.legacy.simulate import format_table, simulate

GAMES = 2000


def test_without_sacrifices_the_mean_is_near_3_22_marks_and_none_near_1_6_percent() -> None:
    rounds = [float(p_success(stage.dice) ** 3) for stage in STAGES]
    mean = 3 * sum(rounds)
    spread = math.sqrt(3 * sum(p * (1 - p) for p in rounds))
    none = math.prod((1 - p) ** 3 for p in rounds)
    result = simulate(GAMES, seed=11, policy="never")
    # Four standard errors: a correct engine misses each about once in 15,000 seeds.
    assert abs(result["mean_marks"] - mean) < 4 * spread / math.sqrt(GAMES)
    assert abs(result["p_no_marks"] - none) < 4 * math.sqrt(none * (1 - none) / GAMES)
    assert round(mean, 2) == 3.22 and round(none * 100, 1) == 1.6
    assert result["mean_rounds"] == pytest.approx(12, abs=0.01)
    assert result["sacrifices"] == {"resource": 0, "attachment": 0, "creed": 0}


def test_the_result_has_the_documented_figures() -> None:
    result = simulate(50, seed=1, players=2, keystones=(1, 2, 0), policy="always")
    assert result["games"] == 50
    assert list(result["marks_histogram"]) == [str(n) for n in range(9)]
    assert sum(result["marks_histogram"].values()) == 50
    assert (
        result["mean_marks"]
        == sum(int(marks) * count for marks, count in result["marks_histogram"].items()) / 50
    )
    assert result["p_full_legacy"] == result["marks_histogram"]["8"] / 50
    assert result["mean_checks"] >= result["mean_rounds"] > 0
    assert result["seconds"] > 0 and result["games_per_second"] > 0
    assert (result["players"], result["keystones"], result["policy"]) == (2, [1, 2, 0], "always")


def test_always_sacrifices_every_keystone_in_order_and_builds_more_marks() -> None:
    never = simulate(300, seed=5, policy="never")
    always = simulate(300, seed=5, policy="always")
    assert always["mean_marks"] > never["mean_marks"] + 2
    assert always["mean_sacrifices"]["resource"] >= always["mean_sacrifices"]["attachment"]
    assert always["mean_sacrifices"]["attachment"] >= always["mean_sacrifices"]["creed"]
    assert always["mean_sacrifices"]["resource"] == pytest.approx(3, abs=0.05)


def test_a_seed_gives_the_same_lives() -> None:
    first = simulate(100, seed=42, policy="always")
    second = simulate(100, seed=42, policy="always")
    for key in ("mean_marks", "marks_histogram", "mean_checks", "sacrifices"):
        assert first[key] == second[key]


def test_progress_is_reported_up_to_the_last_game() -> None:
    calls: list[tuple[int, int]] = []
    simulate(250, seed=3, progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (250, 250)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)
    assert 50 <= len(calls) <= 130


def test_an_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="policy"):
        simulate(1, seed=1, policy="sometimes")


def test_the_table_is_readable_text() -> None:
    table = format_table(simulate(20, seed=2))
    lines = table.splitlines()
    assert lines[0].split() == ["games", "20"]
    assert any(line.startswith("mean marks") for line in lines)
    assert any(line.startswith("8 marks") for line in lines)
