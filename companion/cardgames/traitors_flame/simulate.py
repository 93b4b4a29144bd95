"""Bot-versus-bot simulation reporting the balance figures of the design brief, section 8.5."""

from __future__ import annotations

import random
import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict

from . import cards, engine
from .bots import decide
from .moves import KIND, Action, State
from .search import ROLLOUTS, search_bot
from .view import observe, view


class Tally(TypedDict):
    """One bot's chances to play each kind (turns it held one) and its plays of it."""

    chances: Counter[str]
    plays: Counter[str]


class KindRow(TypedDict):
    """One kind in a report: value, copies held per round, points held per round, play rates."""

    value: int
    held_per_round: float
    value_held_per_round: float
    play_rate: NotRequired[dict[str, float | None]]  # usable kinds, by bot


class Turns(TypedDict):
    mean: float
    median: float


class Report(TypedDict):
    """The balance figures of a ``simulate`` run (design brief 8.5)."""

    games: int
    players: int
    bots: list[str]
    seed: int
    rounds_per_game: float
    turns_per_round: Turns
    ended_by: dict[str, float]
    win_rate_by_seat: list[float]
    win_rate_by_offset_from_first: list[float]
    first_player_win_rate: float
    win_rate_by_bot: dict[str, float]
    kinds: dict[str, KindRow]
    capped: list[int]


SAFETY_CAP = 100
# What ``engine.new`` reads from its options.
ENGINE_OPTIONS = ("start", "max_rounds")


def bot_names(spec: str | list[str]) -> list[str]:
    """Bot names from ``"a,b"`` or a list; ``never-<kind>`` is the heuristic that never plays it."""
    names = [b.strip() for b in spec.split(",")] if isinstance(spec, str) else list(spec)
    usable = {k["id"] for k in cards.characters() if k["usable"]}
    for name in names:
        if (
            name not in ("random", "heuristic", "search")
            and name.removeprefix("never-") not in usable
        ):
            raise ValueError(f"unknown bot {name!r}")
    return names


def play_match(
    players: int,
    seed: int,
    seats: list[str],
    stats: dict[str, Tally] | None = None,
    options: Mapping[str, Any] | None = None,
    search_rollouts: int = ROLLOUTS,
) -> State:
    """One match between the named bots; returns the final state. ``stats`` collects play rates;
    ``options`` go to ``engine.new`` (``max_rounds`` defaults to ``SAFETY_CAP``).

    Without a search bot the match runs quiet through ``step`` and the bots read ``observe``
    (equal to the observation built from a view); the search bot gets a real view.
    """
    quiet = "search" not in seats
    st = engine.new(players, seed, {"max_rounds": SAFETY_CAP, **(options or {})}, quiet=quiet)
    rng = random.Random(f"bots:{seed}")
    while st["result"] is None:
        seat = st["night"]
        name = seats[seat]
        if stats is not None:
            _count_chances(stats[name], st["hands"][seat])
        action = _choose(name, st, seat, rng, search_rollouts)
        if stats is not None and action["type"] == "play":
            stats[name]["plays"][KIND[action["card"]]["id"]] += 1
        if quiet:
            engine.step(st, seat, action)
        else:
            st = engine.apply(st, seat, action)
    return st


def _choose(name: str, st: State, seat: int, rng: random.Random, rollouts: int) -> Action:
    if name == "random":
        return rng.choice(engine.legal_actions(st, seat))
    if name == "search":
        return search_bot(view(st, seat), engine.legal_actions(st, seat), rng, rollouts=rollouts)
    never = frozenset({name.removeprefix("never-")}) if name.startswith("never-") else frozenset()
    return decide(observe(st, seat), rng, never)


def _count_chances(entry: Tally, hand: list[str]) -> None:
    for kid in {KIND[c]["id"] for c in hand if KIND[c]["usable"]}:
        entry["chances"][kid] += 1


def simulate(
    games: int,
    players: int,
    bots: str | list[str],
    seed: int = 1,
    search_rollouts: int = ROLLOUTS,
    options: Mapping[str, Any] | None = None,
) -> Report:
    """Play ``games`` matches on seeds ``seed..seed+games-1``; bots rotate seats game by game.

    ``options`` go to every match (``max_rounds``, ``start``)."""
    names = bot_names(bots)
    strange = [k for k in options or {} if k not in ENGINE_OPTIONS]
    if strange:
        raise ValueError(f"option {strange[0]!r} is not available: {', '.join(ENGINE_OPTIONS)}")
    stats: defaultdict[str, Tally] = defaultdict(lambda: {"chances": Counter(), "plays": Counter()})
    wins_by_seat, wins_by_offset = [0] * players, [0] * players
    bot_games: Counter[str] = Counter()
    bot_wins: Counter[str] = Counter()
    ended: Counter[str] = Counter()
    rounds_per_game: list[int] = []
    turns: list[int] = []
    capped: list[int] = []
    held: Counter[str] = Counter()
    total_rounds = 0
    for g in range(games):
        seats = [names[(s + g) % len(names)] for s in range(players)]
        st = play_match(
            players, seed + g, seats, stats, options=options, search_rollouts=search_rollouts
        )
        res = st["result"]
        if res is None:
            raise ValueError("the match is still running")
        winner = res["winner"]
        wins_by_seat[winner] += 1
        wins_by_offset[(winner - st["first"]) % players] += 1
        bot_games.update(seats)
        bot_wins[seats[winner]] += 1
        rounds_per_game.append(len(st["rounds"]))
        if res["capped"]:
            capped.append(seed + g)
        for summary in st["rounds"]:
            total_rounds += 1
            turns.append(summary["turns"])
            ended[summary["ended_by"]] += 1
            for hand in summary["hands"]:
                held.update(hand["kinds"])
                held["flame"] += hand["flames"]
    return {
        "games": games,
        "players": players,
        "bots": names,
        "seed": seed,
        "rounds_per_game": statistics.fmean(rounds_per_game),
        "turns_per_round": {"mean": statistics.fmean(turns), "median": statistics.median(turns)},
        "ended_by": {k: ended[k] / total_rounds for k in ("flame", "deck")},
        "win_rate_by_seat": [w / games for w in wins_by_seat],
        "win_rate_by_offset_from_first": [w / games for w in wins_by_offset],
        "first_player_win_rate": wins_by_offset[0] / games,
        "win_rate_by_bot": {b: bot_wins[b] / bot_games[b] for b in bot_games},
        "kinds": _kind_table(stats, held, total_rounds),
        "capped": capped,
    }


def _kind_table(stats: dict[str, Tally], held: Counter[str], rounds: int) -> dict[str, KindRow]:
    table = {}
    for kind in [cards.kinds()["flame"], *cards.characters()]:
        kid = kind["id"]
        row: KindRow = {
            "value": kind["value"],
            "held_per_round": held[kid] / rounds,
            "value_held_per_round": held[kid] * kind["value"] / rounds,
        }
        if kind["usable"]:
            row["play_rate"] = {
                bot: (s["plays"][kid] / s["chances"][kid] if s["chances"][kid] else None)
                for bot, s in sorted(stats.items())
            }
        table[kid] = row
    return table


def never_plays(games: int, players: int, seed: int = 1) -> dict[str, float]:
    """For each usable kind K: win rate of "never plays K" among heuristics, minus 1/players."""
    out = {}
    for kind in cards.characters():
        if kind["usable"]:
            name = f"never-{kind['id']}"
            rep = simulate(games, players, [name] + ["heuristic"] * (players - 1), seed)
            out[kind["id"]] = rep["win_rate_by_bot"][name] - 1 / players
    return out


def format_table(report: Report) -> str:
    """A plain-text table of a ``simulate`` report."""
    lines = [
        f"Traitor's Flame: {report['games']} games, {report['players']} players, "
        f"bots {','.join(report['bots'])}, seeds {report['seed']}..",
        f"rounds/game {report['rounds_per_game']:.2f}   turns/round mean "
        f"{report['turns_per_round']['mean']:.1f} median {report['turns_per_round']['median']}"
        f"   ended by Flames {report['ended_by']['flame']:.1%} / deck {report['ended_by']['deck']:.1%}",
        "win by seat: "
        + " ".join(f"{w:.1%}" for w in report["win_rate_by_seat"])
        + f"   round-1 start player {report['first_player_win_rate']:.1%}"
        + "   by offset: "
        + " ".join(f"{w:.1%}" for w in report["win_rate_by_offset_from_first"]),
        "win by bot: " + "  ".join(f"{b} {w:.1%}" for b, w in report["win_rate_by_bot"].items()),
        f"capped games: {len(report['capped'])}",
        f"{'kind':<12}{'value':>6}{'held/rnd':>10}{'pts/rnd':>9}  play rate",
    ]
    for kid, row in report["kinds"].items():
        rates = row.get("play_rate") or {}
        shown = "  ".join(f"{b} {r:.0%}" for b, r in rates.items() if r is not None) or "-"
        lines.append(
            f"{kid:<12}{row['value']:>+6}{row['held_per_round']:>10.2f}"
            f"{row['value_held_per_round']:>+9.2f}  {shown}"
        )
    return "\n".join(lines)
