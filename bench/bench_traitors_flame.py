"""Benchmark Traitor's Flame: random playouts per second and search-bot time per move.

    .venv/bin/python bench/bench_traitors_flame.py [--games 1000] [--repeats 5] [--moves 40]
    .venv/bin/python bench/bench_traitors_flame.py --strength 1000 --search-games 100
    .venv/bin/python bench/bench_traitors_flame.py --baseline /tmp/base [--games 1000] [--repeats 5]

``--baseline`` times the random playouts of this tree and of another checkout (a worktree of
an earlier commit) in alternating fresh processes, and prints both medians and their ratio.

Figures are medians over the repeats. Playouts use the engine's in-place ``step`` on a quiet state
(the same rules code ``apply`` runs, without copying or event text) and a uniformly random legal
action; the public-API figure goes through ``legal_actions`` and ``apply`` as the web app does.
Games per CPU second are printed too: on a shared machine wall-clock rates swing with the load.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from pathlib import Path

from companion.cardgames.traitors_flame import GAME, engine
from companion.cardgames.traitors_flame.bots import decide
from companion.cardgames.traitors_flame.search import search_bot
from companion.cardgames.traitors_flame.simulate import simulate
from companion.cardgames.traitors_flame.view import observe, view


def fast_playouts(games: int, seed: int) -> tuple[float, float]:
    """Random-bot matches per wall-clock and per CPU second through ``step`` (2-6 players)."""
    wall, cpu, _moves = _playouts(games, seed)
    return games / wall, games / cpu


def _playouts(games: int, seed: int) -> tuple[float, float, int]:
    """Wall-clock and CPU seconds of ``games`` quiet random playouts, and the moves they took."""
    wall, cpu, moves = time.perf_counter(), time.process_time(), 0
    for g in range(games):
        st = engine.new(2 + g % 5, seed + g, {}, quiet=True)
        rng = random.Random(seed + g)
        while st["result"] is None:
            seat = st["night"]
            engine.step(st, seat, engine.random_action(st, seat, rng))
            moves += 1
    return time.perf_counter() - wall, time.process_time() - cpu, moves


def child(games: int, seed: int) -> None:
    """One timed run for ``--baseline``: the rates as a line of JSON."""
    _wall, cpu, moves = _playouts(games, seed)
    print(json.dumps({"games per CPU second": games / cpu, "moves per CPU second": moves / cpu}))


def api_playouts(games: int, seed: int) -> float:
    """Random-bot matches per CPU second through ``legal_actions`` and ``apply``."""
    start = time.process_time()
    for g in range(games):
        st = GAME.new(2 + g % 5, seed + g, {})
        rng = random.Random(seed + g)
        while st["result"] is None:
            seat = st["night"]
            st = GAME.apply(st, seat, rng.choice(GAME.legal_actions(st, seat)))
    return games / (time.process_time() - start)


def search_times(moves: int, seed: int) -> list[float]:
    """CPU seconds per search move with a real choice, in heuristic play with 2 to 6 players."""
    rng = random.Random(seed)
    times: list[float] = []
    while len(times) < moves:
        st = engine.new(2 + len(times) % 5, rng.randrange(10**6), {})
        for _ in range(rng.randrange(4, 40)):
            if st["result"] is not None:
                break
            seat = st["night"]
            st = engine.apply(st, seat, decide(observe(st, seat), rng))
        if st["result"] is not None:
            continue
        seat = st["night"]
        legal = engine.legal_actions(st, seat)
        if len(legal) < 3:
            continue  # forced moves return at once; time the real decisions
        start = time.process_time()  # CPU seconds: other load on the machine does not count
        search_bot(view(st, seat), legal, rng)
        times.append(time.process_time() - start)
    return times


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate of ``wins`` in ``games``."""
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return centre - half, centre + half


def search_vs_heuristic(games: int, seed: int) -> float:
    """Heads-up win rate of search against heuristic, seats swapped every match (the search
    bot takes the first seat in even matches, the second in odd ones; seeds ``seed..``)."""
    wins = 0
    for g in range(games):
        st = engine.new(2, seed + g, {"max_rounds": 100})
        rng, mine = random.Random(seed + g), g % 2
        while st["result"] is None:
            seat = st["night"]
            if seat == mine:
                action = search_bot(view(st, seat), engine.legal_actions(st, seat), rng)
            else:
                action = decide(observe(st, seat), rng)
            st = engine.apply(st, seat, action)
        wins += st["result"]["winner"] == mine
    return wins / games


def main() -> None:
    parser = argparse.ArgumentParser(description="Benchmark Traitor's Flame.")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--strength", type=int, default=0, help="heuristic-vs-random matches")
    parser.add_argument("--search-games", type=int, default=0, help="search-vs-heuristic matches")
    parser.add_argument("--baseline", type=Path, help="another checkout to compare playouts with")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.games, 1)
        return
    if args.baseline:
        from interleave import compare, report

        found = compare(Path(__file__), ["--games", str(args.games)], args.baseline, args.repeats)
        print(report(f"random playouts (step), {args.games} matches a run", found, args.repeats))
        return

    runs = [fast_playouts(args.games, 1 + r * args.games) for r in range(args.repeats)]
    wall, cpu = [w for w, _ in runs], [c for _, c in runs]
    print(
        f"random playouts (step):  {statistics.median(wall):6.0f} games/s wall clock, "
        f"{statistics.median(cpu):.0f} per CPU second "
        f"(median of {args.repeats} x {args.games}; wall min {min(wall):.0f}, max {max(wall):.0f})"
    )
    api = [api_playouts(args.games // 5, 7 + r) for r in range(args.repeats)]
    print(f"random playouts (apply): {statistics.median(api):6.0f} games per CPU second")
    times = search_times(args.moves, 3)
    print(
        f"search bot per move:     median {statistics.median(times):.3f} CPU s, "
        f"max {max(times):.3f} s over {len(times)} decisions (2-6 players)"
    )
    if args.strength:
        report = simulate(args.strength, 2, "heuristic,random", seed=1)
        rate = report["win_rate_by_bot"]["heuristic"]
        low, high = wilson(round(rate * args.strength), args.strength)
        print(
            f"heuristic vs random:     {rate:.1%} over {args.strength} heads-up matches, "
            f"seats swapped (95% interval {low:.1%}-{high:.1%})"
        )
    if args.search_games:
        rate = search_vs_heuristic(args.search_games, 1)
        low, high = wilson(round(rate * args.search_games), args.search_games)
        print(
            f"search vs heuristic:     {rate:.1%} over {args.search_games} heads-up matches, "
            f"seats swapped (95% interval {low:.1%}-{high:.1%})"
        )


if __name__ == "__main__":
    main()
