"""Run one benchmark against two source trees, alternating, and compare the medians.

A bench script calls ``compare(script, child_args, baseline, repeats)``: each repeat runs the
script once with ``--child`` against this tree and once against ``baseline`` (a checkout of
another commit, e.g. ``git worktree add --detach /tmp/base <commit>``), in fresh processes whose
``PYTHONPATH`` puts that tree's ``companion`` first. The child prints one JSON object of rates;
the order alternates every repeat, so a load that comes and goes hits both sides alike.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent


def run_child(script: Path, child_args: list[str], tree: Path) -> dict[str, float]:
    """One run of ``script --child ...`` with ``tree``'s companion package."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    with tempfile.TemporaryDirectory() as cwd:  # no checkout on the path but the one asked for
        done = subprocess.run(
            [sys.executable, str(script), "--child", *child_args],
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode:
        raise RuntimeError(f"{tree}: {done.stderr[-2000:]}")
    rates: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return rates


def compare(script: Path, child_args: list[str], baseline: Path, repeats: int) -> dict[str, Any]:
    """Medians per rate for this tree and ``baseline``, run alternately, and their ratios."""
    runs: dict[str, list[dict[str, float]]] = {"this": [], "baseline": []}
    trees = {"this": HERE, "baseline": baseline.resolve()}
    for r in range(repeats):
        order = ("this", "baseline") if r % 2 == 0 else ("baseline", "this")
        for name in order:
            runs[name].append(run_child(script, child_args, trees[name]))
    keys = runs["this"][0].keys()
    medians = {
        name: {key: statistics.median(run[key] for run in found) for key in keys}
        for name, found in runs.items()
    }
    ratios = {key: medians["this"][key] / medians["baseline"][key] for key in keys}
    return {"medians": medians, "ratios": ratios, "runs": runs}


def report(title: str, result: dict[str, Any], repeats: int) -> str:
    """The comparison as lines of text: each rate's medians and this tree's ratio."""
    lines = [f"{title} (medians of {repeats} alternating runs per tree)"]
    for key, ratio in result["ratios"].items():
        this, base = result["medians"]["this"][key], result["medians"]["baseline"][key]
        lines.append(f"  {key}: this {this:,.0f}, baseline {base:,.0f}, ratio {ratio:.3f}")
    return "\n".join(lines)
