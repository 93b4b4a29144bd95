"""A chronicle's state restored from its latest snapshot and the events after it, not replayed.

Every ``SNAPSHOT_EVERY`` events (and once a replay found none), the state is kept as a snapshot
in the database (``companion.store.snapshots``), under ``PROJECTION``: a digest of the rules core's own
source, so any change to the rules makes every snapshot unreadable and each chronicle replays
once more, then keeps a new one. A cold load costs the snapshot and the events after it; the
events behind it are read only if something walks the log back that far (an undo, for one).
A state restored this way equals the replay of the whole log (tests/test_replays.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.legacy import EventFormatError, Recorded, State, event_from_dict, evolve, replay
from companion.legacy.model import DeferredLog, Log
from companion.legacy.snapshot import decode_state, encode_state
from companion.store import events as store
from companion.store import snapshots
from companion.store.sql import Database

SNAPSHOT_EVERY = 256
# A new snapshot is written only once the stream grew by a quarter of the last one's size
# since it: a chronicle of long texts is not written out whole every few events.
GROWTH = 4


def _rules_version() -> str:
    """The rules core as it is: a digest of the source of every module of companion.legacy."""
    digest = hashlib.sha256(b"companion snapshots, format 1\n")
    core = Path(__file__).resolve().parent.parent / "legacy"
    for path in sorted(core.glob("*.py")):
        digest.update(path.name.encode() + b"\n" + path.read_bytes())
    return "legacy-" + digest.hexdigest()[:32]


PROJECTION = _rules_version()


def records(stored: Sequence[store.StoredEvent]) -> list[Recorded]:
    """The stored events as the rules core's records."""
    return [Recorded(e.seq, event_from_dict(e.data)) for e in stored]


def advance(state: State, stored: Sequence[store.StoredEvent]) -> State:
    """``state`` with the stored events after it applied."""
    for record in records(stored):
        state = evolve(state, record)
    return state


@dataclass(frozen=True)
class Kept:
    """The stream's latest snapshot, as far as this process knows: at which version, when the
    stream held how many bytes, and its own size."""

    version: int
    nbytes: int
    size: int


def restore(db: Database, stream_id: str, header: store.Stream) -> tuple[State, Kept | None]:
    """The chronicle's state at ``header.version``: its snapshot and the events after it, or
    (no snapshot of these rules, or one that does not read back) the replay of its log; and its
    latest snapshot, once one due is written."""
    found = snapshots.read(db, stream_id, PROJECTION)
    base = None
    if found is not None and found.version <= header.version:
        base = _from_snapshot(db, stream_id, found)
    if base is None:
        stored = store.load_events(db, stream_id, upto=header.version)
        state, known = replay(records(stored)), None
    else:
        newer = store.load_events(db, stream_id, after=base.version, upto=header.version)
        state = advance(base, newer)
        known = Kept(found.version, found.nbytes, len(found.data))  # type: ignore[union-attr]
    return state, keep_snapshot(db, stream_id, state, header.nbytes, known)


def latest(db: Database, stream_id: str) -> Kept | None:
    """The stream's latest snapshot under these rules, as its row says (not its data)."""
    row = db.execute(
        "SELECT version, nbytes, length(data) FROM snapshots"
        " WHERE stream_id = ? AND projection = ?",
        [stream_id, PROJECTION],
    ).fetchone()
    return Kept(int(row[0]), int(row[1]), int(row[2])) if row else None


def _from_snapshot(db: Database, stream_id: str, found: snapshots.Snapshot) -> State | None:
    past = DeferredLog(_past(db, stream_id, found.version, FIRST_READ))
    try:
        state = decode_state(json.loads(found.data), past)
    except (ValueError, EventFormatError):
        return None  # a damaged snapshot is only a slower load
    return state if state.version == found.version else None


# The log behind a snapshot is read from its newest end, a few events first (what a page asks
# of the past: the newest event, the last decision), each further read four times the one
# before: a walk back through all of it costs a few queries, never the whole log at once.
FIRST_READ = 64


def _past(db: Database, stream_id: str, upto: int, size: int) -> Any:
    """Reads the ``size`` events up to ``upto`` behind a snapshot, from the database of whoever
    first walks back into them; what lies behind those is deferred again."""

    def read() -> Log:
        after = max(0, upto - size)
        log: Log = DeferredLog(_past(db, stream_id, after, size * 4)) if after > 0 else None
        for record in records(store.load_events(_database(db), stream_id, after, upto)):
            log = (record, log)
        return log

    return read


def _database(fallback: Database) -> Database:
    """This request's connection in the app (a kept state outlives the request that made it),
    else the one the state was loaded with (a command-line tool's own)."""
    from flask import has_app_context

    if has_app_context():
        from companion.store.db import get_db

        return get_db()
    return fallback


def keep_snapshot(
    db: Database, stream_id: str, state: State, nbytes: int, known: Kept | None
) -> Kept | None:
    """Write a snapshot of ``state`` (the stream holding ``nbytes`` bytes) if one is due, and
    give the latest one: ``SNAPSHOT_EVERY`` events after ``known``, once the stream also grew by
    a ``GROWTH``-th of that snapshot's size (a chronicle of long texts is not written out whole
    every few events)."""
    if known is None and state.version < SNAPSHOT_EVERY:
        return None
    if known is not None and (
        state.version - known.version < SNAPSHOT_EVERY
        or nbytes - known.nbytes < known.size // GROWTH
    ):
        return known
    data = json.dumps(encode_state(state), ensure_ascii=False, separators=(",", ":"))
    written = snapshots.Snapshot(state.version, nbytes, data)
    if snapshots.write(db, stream_id, PROJECTION, written):
        return Kept(state.version, nbytes, len(data))
    return known
