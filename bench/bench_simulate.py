"""Throughput of ``companion.legacy.simulate`` against a bare loop of the same dice economy.

Run: ``.venv/bin/python bench/bench_simulate.py [--games N] [--repeats R]``. Prints games per
second for each policy (9 keystones, 3 players): the median over the repeats for the rules
engine and for a bare loop that rolls the same dice with plain ``random``, and their ratio.
Both are timed in CPU seconds of this process (``time.process_time``) and the runs alternate,
so other work on the machine skews the ratio as little as possible.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.legacy.cards import STAGES  # noqa: E402
from companion.legacy.simulate import simulate  # noqa: E402

KEYSTONES = (3, 3, 3)


def bare_life(rng: random.Random, keystones: int, always: bool) -> int:
    """One life with no engine: 4 stages x 3 rounds x up to 3 checks; the number of marks."""
    marks = 0
    for stage in STAGES:
        for _round in range(3):
            for _turn in range(3):
                success = any(rng.randint(1, 6) >= 5 for _ in range(stage.dice))
                while not success and always and keystones:
                    keystones -= 1
                    success = any(rng.randint(1, 6) >= 5 for _ in range(stage.dice))
                if not success:
                    break
            else:
                marks += 1
                if marks == 8:
                    return marks
    return marks


def bare(games: int, seed: int, policy: str) -> float:
    """Games per CPU second of the bare loop."""
    rng = random.Random(seed)
    started = time.process_time()
    for _ in range(games):
        bare_life(rng, sum(KEYSTONES), policy == "always")
    return games / (time.process_time() - started)


def engine(games: int, seed: int, policy: str) -> float:
    """Games per CPU second of ``simulate``, which plays through decide and evolve."""
    started = time.process_time()
    simulate(games, seed, keystones=KEYSTONES, policy=policy)
    return games / (time.process_time() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"{args.games} games x {args.repeats} repeats, 3 players, keystones {KEYSTONES}")
    print(f"{'policy':<8} {'engine g/s':>11} {'bare g/s':>11} {'engine/bare':>12}")
    for policy in ("never", "always"):
        engine_runs, bare_runs = [], []
        for seed in range(args.repeats):
            engine_runs.append(engine(args.games, seed, policy))
            bare_runs.append(bare(args.games * 10, seed, policy))
        core, loop = statistics.median(engine_runs), statistics.median(bare_runs)
        print(f"{policy:<8} {core:>11,.0f} {loop:>11,.0f} {core / loop:>12.3f}")


if __name__ == "__main__":
    main()
