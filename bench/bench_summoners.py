"""Age of Summoners benchmarks: playout speed, search-bot time per move, bot strength.

    .venv/bin/python bench/bench_summoners.py [--repeats 5] [--games 200] [--matches 200]
        [--workers 2] [--skip-strength]
    .venv/bin/python bench/bench_summoners.py --baseline /tmp/base [--games 200] [--repeats 5]

``--baseline`` times the in-place random playouts of this tree and of another checkout (a
worktree of an earlier commit) in alternating fresh processes, with the catch-up chips on in
both (the default of engine version 1), and prints both medians and their ratios: matches and
moves per CPU second (the engines may differ in how many decisions a match asks for).

Prints medians of several repeats, timed in CPU seconds of this process (process_time), so
other load on the machine does not skew them. Strength matches are heads-up, seats swapped.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from pathlib import Path

from companion.cardgames.summoners import GAME
from companion.cardgames.summoners.bots import random_bot
from companion.cardgames.summoners.engine import new, step
from companion.cardgames.summoners.legal import legal_actions
from companion.cardgames.summoners.playout import random_action
from companion.cardgames.summoners.scoring import final_result
from companion.cardgames.summoners.search import search_bot
from companion.cardgames.summoners.simulate import no_cycle_collection, play_match
from companion.cardgames.summoners.view import view

try:
    from companion.cardgames.summoners.memo import Memo, lent
except ImportError:  # a tree from before the memo, as a --baseline: it keeps its own caches
    Memo = lent = None  # type: ignore[assignment,misc]


def random_playouts(games: int, players: int, seed: int) -> float:
    """Random matches per second through the engine's in-place path, as simulate runs them:
    ``random_action`` picks what the random bot would, without listing every legal action."""
    started = time.process_time()
    with no_cycle_collection(), lent(Memo()):
        for g in range(games):
            rng = random.Random(seed + g)
            s = new(players, seed + g, {})
            while s["result"] is None:
                seat = s["await"]["seat"]
                step(s, seat, random_action(s, seat, rng))
    return games / (time.process_time() - started)


def memo_gain(games: int, repeats: int) -> str:
    """The in-place playouts with a memo lent and without, alternating: the memo's gain, its
    hits and the bytes it held at the end."""
    lent_rates, bare_rates = [], []
    memo = Memo()
    for r in range(repeats):
        memo = Memo()
        cpu, moves = _timed_playouts(games, 3, 1000 + 7 * r, memo)
        lent_rates.append(moves / cpu)
        cpu, moves = _timed_playouts(games, 3, 1000 + 7 * r, None)
        bare_rates.append(moves / cpu)
    lent_median, bare_median = statistics.median(lent_rates), statistics.median(bare_rates)
    share = memo.hits / max(1, memo.hits + memo.misses)
    return (
        f"memo, 3 players, {games} matches a run: {lent_median:,.0f} moves per CPU second lent, "
        f"{bare_median:,.0f} without ({lent_median / bare_median:.2f}x); {share:.1%} of "
        f"{memo.hits + memo.misses:,} look-ups hit, {memo.nbytes:,} bytes held "
        f"(bound {memo.max_bytes:,})"
    )


def _timed_playouts(
    games: int, players: int, seed: int, memo: Memo | None = None
) -> tuple[float, int]:
    """CPU seconds and moves of ``games`` in-place random matches, catch-up chips on, the
    engine lent ``memo`` as ``simulate`` lends one (None: everything worked out afresh)."""
    started, moves = time.process_time(), 0
    with no_cycle_collection(), lent(memo) if lent else nullcontext():
        for g in range(games):
            rng = random.Random(seed + g)
            s = new(players, seed + g, {"catch_up": True})
            while s["result"] is None:
                seat = s["await"]["seat"]
                step(s, seat, random_action(s, seat, rng))
                moves += 1
    return time.process_time() - started, moves


def child(games: int) -> None:
    """One timed run for ``--baseline``: per player count, the rates as one line of JSON."""
    rates = {}
    for players in (2, 3, 4):
        cpu, moves = _timed_playouts(games, players, 1000, Memo() if Memo else None)
        rates[f"{players} players: matches per CPU second"] = games / cpu
        rates[f"{players} players: moves per CPU second"] = moves / cpu
    print(json.dumps(rates))


def random_playouts_listed(games: int, players: int, seed: int) -> float:
    """The same matches with every legal action listed and the random bot choosing among them."""
    started = time.process_time()
    with no_cycle_collection():
        for g in range(games):
            rng = random.Random(seed + g)
            s = new(players, seed + g, {})
            while s["result"] is None:
                seat = s["await"]["seat"]
                step(s, seat, random_bot({}, legal_actions(s, seat), rng))
    return games / (time.process_time() - started)


def random_playouts_public(games: int, players: int, seed: int) -> float:
    """Random matches per second through the public, copying ``GAME.apply``."""
    started = time.process_time()
    for g in range(games):
        rng = random.Random(seed + g)
        s = GAME.new(players, seed + g, {})
        while GAME.result(s) is None:
            seat = s["await"]["seat"]
            s = GAME.apply(s, seat, random_bot({}, GAME.legal_actions(s, seat), rng))
    return games / (time.process_time() - started)


def search_times(games: int, players: int) -> list[float]:
    """Seconds per search-bot decision over whole matches (search in every seat)."""
    times: list[float] = []
    for g in range(games):
        rng = random.Random(g)
        s = new(players, 900 + g, {})
        while s["result"] is None:
            seat = s["await"]["seat"]
            v = view(s, seat, events=False)
            legal = legal_actions(s, seat)
            started = time.process_time()
            action = search_bot(v, legal, rng)
            times.append(time.process_time() - started)
            step(s, seat, action)
    return times


def _match(args: tuple[str, str, int]) -> bool:
    first, second, seed = args
    bots = [first, second] if seed % 2 == 0 else [second, first]
    s = play_match(2, seed, bots)
    return bots[final_result(s)["winner"]] == first


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate of ``wins`` in ``games``."""
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return centre - half, centre + half


def strength(first: str, second: str, matches: int, workers: int) -> float:
    """Share of heads-up matches ``first`` wins against ``second``, seats alternating."""
    jobs = [(first, second, 10_000 + i) for i in range(matches)]
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            return sum(pool.map(_match, jobs, chunksize=4)) / matches
    return sum(map(_match, jobs)) / matches


def main() -> None:
    """Run and print the benchmarks."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--skip-strength", action="store_true")
    parser.add_argument("--baseline", type=Path, help="another checkout to compare playouts with")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.games)
        return
    if args.baseline:
        from interleave import compare, report

        found = compare(Path(__file__), ["--games", str(args.games)], args.baseline, args.repeats)
        print(report(f"random playouts in place, {args.games} matches a run", found, args.repeats))
        print(memo_gain(args.games, args.repeats))
        return
    for players in (2, 3, 4):
        fast, listed = [], []
        for r in range(args.repeats):  # alternating, so that load on the machine hits both
            fast.append(random_playouts(args.games, players, 1000 * r))
            listed.append(random_playouts_listed(args.games, players, 1000 * r))
        slow = [random_playouts_public(args.games // 4, players, 1000 * r) for r in range(3)]
        ratio = statistics.median(fast) / statistics.median(listed)
        print(
            f"random playouts, {players} players: {statistics.median(fast):.0f} games/s in place, "
            f"{statistics.median(listed):.0f} listing legal actions ({ratio:.2f}x), "
            f"{statistics.median(slow):.0f} through GAME.apply (medians, games per CPU second)"
        )
    times = search_times(3, 3)
    searched = sorted(t for t in times if t > 0.002)
    print(
        f"search bot, 3 players: {len(times)} decisions, median {statistics.median(times) * 1000:.1f}"
        f" ms; searched decisions {len(searched)}: median "
        f"{statistics.median(searched) * 1000:.0f} ms, max {max(searched) * 1000:.0f} ms"
    )
    if not args.skip_strength:
        hr = strength("heuristic", "random", args.matches, args.workers)
        sh = strength("search", "heuristic", args.matches, args.workers)
        (hl, hh), (sl, shh) = (wilson(round(r * args.matches), args.matches) for r in (hr, sh))
        print(f"heads-up: heuristic beats random {hr:.1%} (95% interval {hl:.1%}-{hh:.1%}); "
              f"search beats heuristic {sh:.1%} (95% interval {sl:.1%}-{shh:.1%}) "
              f"({args.matches} matches each, seats swapped)")  # fmt: skip


if __name__ == "__main__":
    main()
