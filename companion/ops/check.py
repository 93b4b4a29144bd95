"""``companion check``: replay every stream the store holds and name the damaged ones.

Each chronicle's events are replayed from the first through the rules core (never from a
snapshot, which would hide an unreadable event behind it), and each card table's through its
game's engine. A stream is damaged when an event is not readable, when it holds fewer or more
events than its header counts, or when its events do not replay. ``backup --verify`` runs the
same check on its scratch copy. Nothing is written.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any

from companion.store import events as store
from companion.store.sql import Database


@dataclass(frozen=True)
class Damage:
    """A stream that does not replay: its id, kind, title and what is wrong, as a sentence."""

    stream_id: str
    kind: str
    title: str | None
    problem: str

    def sentence(self) -> str:
        """One line: which stream, and what is wrong with it."""
        what = "chronicle" if self.kind == "legacy" else f"{self.kind} table"
        named = f" ({self.title})" if self.title else ""
        return f"{what} {self.stream_id}{named}: {self.problem}"


@dataclass(frozen=True)
class Report:
    """What a check found: the streams and events read, and the damaged streams."""

    streams: int
    events: int
    damaged: list[Damage]

    def as_json(self) -> dict[str, Any]:
        """The report as a JSON object (``companion check --json``)."""
        return {
            "streams": self.streams,
            "events": self.events,
            "damaged": [asdict(d) for d in self.damaged],
        }


def check_streams(db: Database) -> Report:
    """Replay every stream of ``db``; the streams and events read and the damaged streams."""
    streams = events = 0
    damaged = []
    for stream_id, kind, title, version in _headers(db):
        streams += 1
        read, problem = _replay(db, stream_id, kind, int(version))
        events += read
        if problem is not None:
            damaged.append(Damage(stream_id, kind, title, problem))
    return Report(streams, events, damaged)


def _headers(db: Database) -> Iterator[tuple[str, str, str | None, int]]:
    rows = db.execute("SELECT id, kind, title, version FROM streams ORDER BY created, id")
    yield from (tuple(row) for row in rows.fetchall())


def _replay(db: Database, stream_id: str, kind: str, version: int) -> tuple[int, str | None]:
    """How many events were read, and what is wrong with the stream (None: it replays)."""
    try:
        stored = store.load_events(db, stream_id, upto=version)
    except store.DamagedEventError as err:
        return len(
            err.readable
        ), f"event {err.seq} of {version} is not readable (not a JSON object)"
    numbers = [event.seq for event in stored]
    if numbers != list(range(1, version + 1)):
        missing = sorted(set(range(1, version + 1)) - set(numbers))
        return len(stored), (
            f"its header counts {version} events but {len(stored)} are stored"
            + (f" (missing: {', '.join(map(str, missing[:5]))})" if missing else "")
        )
    try:
        problem = _replays(kind, stored)
    except Exception as err:  # any failure of a replay is what this command is there to find
        problem = f"its events do not replay: {type(err).__name__}: {err}"
    return len(stored), problem


def _replays(kind: str, stored: list[store.StoredEvent]) -> str | None:
    """Replay ``stored`` through the rules of ``kind``; what is wrong, or None."""
    from companion.cardgames import game_keys

    if kind == "legacy":
        from companion.legacy import replay
        from companion.streams.replays import records

        replay(records(stored))
        return None
    if kind in game_keys():
        from companion.streams.match_replay import DAMAGED, REPLAY_FAILED, replay_record

        match = replay_record([event.data for event in stored])
        if match.problem == DAMAGED:
            return f"its record cannot be read from move {match.damaged_from} on"
        if match.problem == REPLAY_FAILED:
            return "its moves do not replay through the game's rules"
        return None
    return f"it is of a kind this version does not know ({kind!r})"
