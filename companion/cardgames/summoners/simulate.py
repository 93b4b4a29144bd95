"""Many bot matches and the balance figures of the design brief (rules digest 8.5)."""

from __future__ import annotations

import gc
import random
import statistics
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, TypedDict, cast

from .cards import ACTIONS, kinds
from .engine import new, step
from .legal import legal_actions
from .memo import Memo, lent
from .players import BOTS
from .playout import random_action
from .state import END_SPIRITS, END_VP, Action, Options, State
from .view import bot_view

_HAND_EVENTS = ("dealt", "drew", "kept", "assisted", "gave")
# What ``new`` reads from its options: the lobby's, and the start seat and turn cap for tests.
ENGINE_OPTIONS = ("catch_up", "start", "turn_cap")


@contextmanager
def no_cycle_collection() -> Iterator[None]:
    """Pause the cyclic garbage collector: match states hold no reference cycles, and its
    passes over the growing event lists cost about a third of a playout's time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class Row(TypedDict):
    """The figures one finished match contributes."""

    winner: int
    position: int  # the winner's place in turn order from the start player
    winner_bot: str
    tie: bool
    declarer: int | None
    declared_by: str | None  # "spirits", "vp" or both
    declare_turn: int | None
    turns: int
    reason: str | None
    choices: dict[str, int]  # Phase II choices: "summon" and the actions
    summoned: list[tuple[str, int]]  # (kind, seat)
    in_hand: list[str]  # kinds that reached a hand
    reshuffles: int
    rule99: int
    totals: list[int]


class Spread(TypedDict):
    """A figure over the matches."""

    median: float
    mean: float
    min: float
    max: float


class KindRow(TypedDict):
    """One kind over the matches: how often it was summoned, and how its summoners fared."""

    summon_rate: float
    summoner_win: float
    summons: int


class Report(TypedDict):
    """The balance figures of the design brief (8.5) over a run of matches."""

    games: int
    players: int
    bots: list[str]
    turns_end: Spread
    turns_declare: Spread
    declared_share: float
    declared_by: dict[str | None, int]
    cap_games: int
    choice_share: dict[str, float]
    action_share: dict[str, float]
    kinds: dict[str, KindRow]
    seat_win: list[float]
    bot_win: dict[str, float]
    declarer_win: float
    tie_share: float
    reshuffles: float
    rule99: int
    rule99_games: int
    mean_total: float
    options: Options


def play_match(
    players: int, seed: int, bots: Sequence[str], options: Mapping[str, Any] | None = None
) -> State:
    """One full match, seat ``i`` played by ``bots[i]``, with a memo of its own; returns the
    final state."""
    with no_cycle_collection(), lent(Memo()):
        return _play(players, seed, bots, options)


def _play(players: int, seed: int, bots: Sequence[str], options: Mapping[str, Any] | None) -> State:
    rng = random.Random(f"bots/{seed}")
    s = new(players, seed, options or {})
    funcs = [BOTS[b] for b in bots]
    while (ctx := s["await"]) is not None:
        seat = ctx["seat"]
        if bots[seat] == "random":  # the random bot's pick, without listing every action
            action = random_action(s, seat, rng)
        else:
            legal = cast(list[dict[str, Any]], legal_actions(s, seat))  # as the bots take them
            action = cast(Action, funcs[seat](bot_view(s, seat), legal, rng))
        step(s, seat, action)
    return s


def summarise(s: State, bots: Sequence[str]) -> Row:
    """The figures one finished match contributes."""
    res = s["result"]
    if res is None:
        raise ValueError("the match is still running")
    n = s["players"]
    summoned: set[tuple[str, int]] = set()  # (kind, seat)
    in_hand: set[str] = set()
    choices: Counter[str] = Counter()
    declared_by = None
    for e in s["events"]:
        kind = e["type"]
        if kind == "summoned":
            summoned.add((e["kind"], seat_of(e["seat"])))
            choices["summon"] += 1
        elif kind == "action":
            choices[e["action"]] += 1
        elif kind == "declared":
            declared_by = ("spirits" if e["spirits"] >= END_SPIRITS else "") + (
                "vp" if e["vp"] >= END_VP else ""
            )
        if kind in _HAND_EVENTS and "private" in e:
            in_hand.update(e["private"].get("kinds", []))
    declarer = res["declarer"]
    declare_turn = None if declarer is None else s["seats"][declarer]["turns"] - 1
    return {
        "winner": res["winner"],
        "position": (res["winner"] - s["start"]) % n,
        "winner_bot": bots[res["winner"]],
        "tie": bool(res["tied"]),
        "declarer": res["declarer"],
        "declared_by": declared_by,
        "declare_turn": declare_turn,
        "turns": max(res["turns"]),
        "reason": res["reason"],
        "choices": dict(choices),
        "summoned": sorted(summoned),
        "in_hand": sorted(in_hand),
        "reshuffles": s["reshuffles"],
        "rule99": s["rule99"],
        "totals": res["totals"],
    }


def seat_of(seat: int | None) -> int:
    """The seat a seat's own event is about (a summon, an action): never None."""
    assert seat is not None
    return seat


def _job(args: tuple[int, int, list[str], dict[str, Any]]) -> Row:
    players, seed, bots, options = args
    return summarise(play_match(players, seed, bots, options), bots)


def simulate(
    games: int,
    players: int,
    bots: Sequence[str],
    seed: int = 1,
    workers: int = 1,
    options: Mapping[str, Any] | None = None,
) -> Report:
    """Play ``games`` matches (seeds seed..seed+games-1); bots rotate through the seats.

    ``options`` go to every match (``{"catch_up": False}`` plays the printed set-up)."""
    bots = list(bots) or ["heuristic"]
    unknown = [b for b in bots if b not in BOTS]
    if unknown:
        raise ValueError(f"unknown bot {unknown[0]!r}: choose from {', '.join(BOTS)}")
    strange = [k for k in options or {} if k not in ENGINE_OPTIONS]
    if strange:
        raise ValueError(f"option {strange[0]!r} is not available: {', '.join(ENGINE_OPTIONS)}")
    jobs = []
    for i in range(games):
        seats = [bots[(i + k) % len(bots)] for k in range(players)]
        jobs.append((players, seed + i, seats, dict(options or {})))
    if workers > 1:
        with ProcessPoolExecutor(workers) as pool:
            rows = list(pool.map(_job, jobs, chunksize=16))
    else:
        rows = [_job(job) for job in jobs]
    return aggregate(rows, players, bots, cast(Options, dict(options or {})))


def aggregate(rows: list[Row], players: int, bots: list[str], options: Options) -> Report:
    """Turn per-match rows into the report."""
    games = len(rows)
    choices: Counter[str] = Counter()
    for r in rows:
        choices.update(r["choices"])
    total_choices = sum(choices.values()) or 1
    declared = [r for r in rows if r["declarer"] is not None]
    return {
        "games": games,
        "players": players,
        "bots": bots,
        "turns_end": _spread([r["turns"] for r in rows]),
        "turns_declare": _spread([r["declare_turn"] or 0 for r in declared]),
        "declared_share": len(declared) / games,
        "declared_by": dict(Counter(r["declared_by"] for r in declared)),
        "cap_games": sum(r["reason"] == "cap" for r in rows),
        "choice_share": {k: choices[k] / total_choices for k in ("summon", *ACTIONS)},
        "action_share": _action_share(choices),
        "kinds": _kind_rows(rows),
        "seat_win": [sum(r["position"] == p for r in rows) / games for p in range(players)],
        "bot_win": _bot_wins(rows, players, bots),
        "declarer_win": sum(r["declarer"] == r["winner"] for r in declared) / max(1, len(declared)),
        "tie_share": sum(r["tie"] for r in rows) / games,
        "reshuffles": statistics.fmean(r["reshuffles"] for r in rows),
        "rule99": sum(r["rule99"] for r in rows),
        "rule99_games": sum(1 for r in rows if r["rule99"]),
        "mean_total": statistics.fmean(max(r["totals"]) for r in rows),
        "options": options,
    }


def _spread(values: list[int]) -> Spread:
    if not values:
        return {"median": 0, "mean": 0, "min": 0, "max": 0}
    return {
        "median": statistics.median(values),
        "mean": round(statistics.fmean(values), 2),
        "min": min(values),
        "max": max(values),
    }


def _action_share(choices: Counter[str]) -> dict[str, float]:
    acts = sum(choices[a] for a in ACTIONS) or 1
    return {a: choices[a] / acts for a in ACTIONS}


def _kind_rows(rows: list[Row]) -> dict[str, KindRow]:
    table: dict[str, KindRow] = {}
    for kind in kinds():
        reached = [r for r in rows if kind in r["in_hand"]]
        summons = [(r, seat) for r in rows for k, seat in r["summoned"] if k == kind]
        games_summoned = sum(1 for r in reached if any(k == kind for k, _ in r["summoned"]))
        seats = {(id(r), seat): r["winner"] == seat for r, seat in summons}
        table[kind] = {
            "summon_rate": games_summoned / max(1, len(reached)),
            "summoner_win": sum(seats.values()) / max(1, len(seats)),
            "summons": len(summons),
        }
    return table


def _bot_wins(rows: list[Row], players: int, bots: list[str]) -> dict[str, float]:
    if len(set(bots)) < 2:
        return {}
    seats: Counter[str] = Counter()
    for i, _ in enumerate(rows):
        seats.update(bots[(i + k) % len(bots)] for k in range(players))
    wins = Counter(r["winner_bot"] for r in rows)
    return {b: wins[b] / max(1, seats[b]) for b in sorted(set(bots))}


def format_table(report: Report) -> str:
    """The report as plain-text tables."""
    r = report
    lines = [
        f"Age of Summoners: {r['games']} games, {r['players']} players, bots {','.join(r['bots'])}",
        f"turns per player: end median {r['turns_end']['median']} (mean {r['turns_end']['mean']},"
        f" max {r['turns_end']['max']}); declaration median {r['turns_declare']['median']}",
        f"declared {r['declared_share']:.1%} by {r['declared_by']}; safety cap {r['cap_games']}",
        f"declarer wins {r['declarer_win']:.1%}; ties {r['tie_share']:.1%}; "
        f"reshuffles/game {r['reshuffles']:.2f}; 9/9 rule used {r['rule99']} times"
        f" in {r['rule99_games']} games",
        "seat win (from start): "
        + "  ".join(f"{p + 1}:{w:.1%}" for p, w in enumerate(r["seat_win"])),
    ]
    if r["bot_win"]:
        lines.append(
            "win rate per seat played: "
            + "  ".join(f"{b}:{w:.1%}" for b, w in r["bot_win"].items())
        )
    lines.append(
        "Phase II choices: " + "  ".join(f"{k}:{v:.1%}" for k, v in r["choice_share"].items())
    )
    lines.append("kind            summoned  summoner-win  summons")
    for kind, row in sorted(r["kinds"].items(), key=lambda kv: kinds()[kv[0]]["code"]):
        lines.append(
            f"{kind:<14}  {row['summon_rate']:>7.1%}  {row['summoner_win']:>11.1%}"
            f"  {row['summons']:>7}"
        )
    return "\n".join(lines)
