"""Card tables for the fuzz proof: brought by seeded bot play to the states a storm should hit,
and the posts that go to their rematch button, their links sheet and read-only tables.

Each table is a devices table of people only, dealt from a seed and moved on through the match
module straight into the served database, so its state is the same on every run: the openings,
and the later phases where other actions are legal (paying for a summon, trimming a hand,
keeping drawn cards, a play that targets another seat, a later round)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.cardgames import AnyGame, get_game
from companion.store import capabilities
from companion.store.db import connect
from companion.streams import matches

Goal = Callable[[AnyGame, dict[str, Any], int], bool]  # (game, state, moves played) -> reached


@dataclass
class Table:
    """One devices table: the host link, a link per seat, the spectator's link."""

    game: str
    label: str  # the state it was brought to
    host: str
    seats: list[str]
    reader: str


def _acting(game: AnyGame, state: dict[str, Any]) -> list[int]:
    return [seat for seat in range(state["players"]) if game.legal_actions(state, seat)]


def _phase(name: str) -> Goal:
    return lambda _game, state, _moves: state["await"]["phase"] == name


def _targeted(game: AnyGame, state: dict[str, Any], moves: int) -> bool:
    seat = _acting(game, state)[0]
    return moves >= 3 and any("target" in a for a in game.legal_actions(state, seat))


# (game, players, state, goal): the playable tables of the storm.
PLAYABLE: list[tuple[str, int, str, Goal]] = [
    ("traitors-flame", 3, "opening", lambda _g, _s, moves: moves == 0),
    ("traitors-flame", 3, "a targeted play", _targeted),
    ("traitors-flame", 4, "a later round", lambda _g, state, _m: state["round"] >= 2),
    ("age-of-summoners", 2, "opening", lambda _g, _s, moves: moves == 0),
    ("age-of-summoners", 2, "paying for a summon", _phase("pay")),
    ("age-of-summoners", 3, "trimming a hand", _phase("trim")),
    ("age-of-summoners", 2, "keeping drawn cards", _phase("keep")),
]


# (game, players, state, goal, how its record is made read-only)
def _mid_match(_game: AnyGame, state: dict[str, Any], moves: int) -> bool:
    return moves >= 8 and state["await"]["phase"] == "main"


READ_ONLY: list[tuple[str, int, str, Goal, str]] = [
    ("age-of-summoners", 2, "damaged mid-match", _mid_match, "damaged"),
    ("traitors-flame", 3, "another engine version", _targeted, "other-version"),
]


def reach(key: str, players: int, goal: Goal) -> tuple[int, list[Any]]:
    """A seed and the seeded random bots' moves from it that bring a match to ``goal``."""
    game = get_game(key)
    bot = game.bots()["random"]
    for seed in range(1, 500):
        state, rng, moves = game.new(players, seed, {}), random.Random(seed), []
        while game.result(state) is None and len(moves) < 1000:
            seat = _acting(game, state)[0]
            if goal(game, state, len(moves)):
                return seed, moves
            action = bot(game.view(state, seat), game.legal_actions(state, seat), rng)
            state = game.apply(state, seat, action)
            moves.append((seat, action))
    raise AssertionError(f"no seeded match of {key} reached its goal")


def dealt(database: Path, key: str, players: int, label: str, goal: Goal) -> Table:
    """A devices table of ``players`` people brought to ``goal``, with everyone's links."""
    seed, moves = reach(key, players, goal)
    db = connect(str(database))
    seats = [matches.Seat(f"P{i}") for i in range(players)]
    sid, host = matches.create(db, key, seats, "devices", "en", seed=seed)
    match = matches.load(db, sid)
    for seat, action in moves:
        match = matches.act(db, match, seat, action, match.version)
    assert goal(match.game, dict(match.state), len(moves)) and match.acting_seats()
    links = [capabilities.issue(db, sid, "seat", seat) for seat in range(players)]
    return Table(key, label, host, links, capabilities.issue(db, sid, "reader"))


def make_read_only(database: Path, table: Table, how: str) -> None:
    """Damage the table's last stored move, or record its deal under another engine version."""
    db = connect(str(database))
    cap = capabilities.resolve(db, table.host)
    assert cap is not None
    rows = db.execute(
        "SELECT seq, data FROM events WHERE stream_id = ? ORDER BY seq", [cap.stream_id]
    ).fetchall()
    if how == "damaged":
        seq, text = rows[-1][0], rows[-1][1][: len(rows[-1][1]) // 2]  # cut short: not JSON
    else:
        first = json.loads(rows[0][1])
        first["engine"] = get_game(table.game).engine_version + 1
        seq, text = rows[0][0], json.dumps(first, sort_keys=True)
    with db.conn:
        db.execute(
            "UPDATE events SET data = ? WHERE stream_id = ? AND seq = ?",
            [text, cap.stream_id, seq],
        )
    matches.CACHE.clear()
    assert matches.load(db, cap.stream_id).read_only is not None


def links_in_use(database: Path, table: Table) -> int:
    """How many links of the table work (the host's included)."""
    db = connect(str(database))
    cap = capabilities.resolve(db, table.host)
    assert cap is not None
    return len(capabilities.active(db, cap.stream_id))


# What the links sheet's forms never send: none of these names a link anyone can hold.
JUNK_ISSUE = [
    "", " ", "seat-99", "seat--1", "seat-1.0", "seat-" + "7" * 5000, "host", "Everyone",
    "reader\x00", "seat-", "seat-0 ", "x" * 100_000, "seat-١",
]  # fmt: skip
JUNK_VERSIONS = ["", "x", "-1", "0x10", "1e3", " 1", "9" * 5000, "9" * 100_000]


class SidePosts:
    """Posts to a table's rematch button and links sheet, and moves at a read-only table."""

    def __init__(self, table: Table, match: matches.Match, rng: random.Random) -> None:
        self.table, self.rng, self.version = table, rng, match.version
        game, state = match.game, match.state
        self.shaped = [a for s in range(len(table.seats)) for a in game.legal_actions(state, s)]
        self.shaped = self.shaped or [{"type": "draw"}]

    def _any_link(self) -> str:
        return self.rng.choice([self.table.host, *self.table.seats, self.table.reader])

    def _version(self) -> str:
        roll = self.rng.random()
        if roll < 0.5:
            return str(self.version)
        if roll < 0.75:
            return str(self.version + self.rng.choice([-1, 1, 1000]))
        return self.rng.choice(JUNK_VERSIONS)

    def rematch(self) -> tuple[str, str, dict[str, str]]:
        """A rematch of a match still running (or only replaying), at any version."""
        return "rematch", self._any_link(), {"version": self._version()}

    def links(self) -> tuple[str, str, dict[str, str]]:
        """The host asks for a link nobody can hold; any other link asks for anything."""
        form = {"issue": self.rng.choice(JUNK_ISSUE)}
        if self.rng.random() < 0.3:
            form["keep"] = self.rng.choice([self.table.reader, "k" * 500, ""])
        if self.rng.random() < 0.3:
            return "links", self.rng.choice([*self.table.seats, self.table.reader]), form
        return "links", self.table.host, form

    def read_only_move(self) -> tuple[str, str, dict[str, str]]:
        """A move at a table that only replays: a legal-looking one, or junk."""
        action: Any = self.rng.choice(self.shaped)
        if self.rng.random() < 0.3:
            action = self.rng.choice([[action], "draw", {"type": "undo"}, None])
        return "act", self._any_link(), {"version": self._version(), "action": json.dumps(action)}
