"""Chronicles of the legacy game: the rules core joined to the event store.

Views call these functions; they never touch the core's events or the store directly.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from companion.legacy import (
    Recorded,
    Setup,
    State,
    decide,
    event_from_dict,
    event_to_dict,
    evolve,
    new_chronicle,
    replay,
)
from companion.legacy.commands import Command
from companion.store import capabilities
from companion.store import events as store
from companion.store.sql import Database
from companion.streams import chronicle_limits, replays
from companion.text.bytecache import ByteLRU

KIND = "legacy"


@dataclass(frozen=True)
class Chronicle:
    """A chronicle as loaded: its header, its replayed state and its version."""

    id: str
    title: str
    state: State
    version: int
    meta: dict[str, Any]
    nbytes: int = 0  # the bytes of its events' stored JSON, together


@dataclass(frozen=True)
class Created:
    """A new chronicle and the links its creator gets (shown once)."""

    id: str
    host_token: str
    reader_token: str


# Replayed states kept in this process, each charged what it takes in memory: a cost per event
# and per byte of its stored JSON, measured with tracemalloc (620 to 1,200 bytes an event, 0.8
# to 1.5 a byte) and pinned by tests/test_cache_sizes.py on chronicles of several lengths and
# shapes, long texts in both scripts and thousands of corrections among them.
EVENT_COST = 650
BYTE_COST_TENTHS = 16
CACHE = ByteLRU(16 * 1024 * 1024)


def state_cost(events: int, nbytes: int) -> int:
    """What a chronicle of ``events`` events holding ``nbytes`` bytes of JSON is charged."""
    return EVENT_COST * events + nbytes * BYTE_COST_TENTHS // 10


def title_of(setup: Setup) -> str:
    """How the chronicle is listed: the Pioneer's name."""
    return setup.pioneer


def create(db: Database, setup: Setup, rng: random.Random | None = None) -> Created:
    """Start a chronicle (validating the setup) and issue its host and reader links."""
    events = new_chronicle(setup, rng or random.Random())
    return create_from_events(
        db, [event_to_dict(e) for e in events], title_of(setup), setup.language
    )


def create_from_events(
    db: Database,
    events: Sequence[dict[str, Any]],
    title: str,
    language: str,
    state: State | None = None,
) -> Created:
    """A new chronicle from already-checked events (``state``: their replay, when known), with
    its host and reader links, all in one transaction; StreamFullError past the limits."""
    links: dict[str, str] = {}

    def issue_links(tx: Database, sid: str) -> None:
        links["host"] = capabilities.issue(tx, sid, "host")
        links["reader"] = capabilities.issue(tx, sid, "reader")

    if state is None:
        state = replay(Recorded(seq, event_from_dict(e)) for seq, e in enumerate(events, 1))
    sid = store.create_stream(
        db,
        KIND,
        events,
        title=title,
        meta={"language": language},
        within=issue_links,
        status=status_of(state),
        limits=chronicle_limits.from_settings().stream,
    )
    return Created(sid, links["host"], links["reader"])


def status_of(state: State) -> dict[str, Any]:
    """What a watcher of the chronicle sees besides its version (the version poll's answer)."""
    return {"phase": state.phase}


def watched(db: Database, header: store.Stream) -> dict[str, Any]:
    """The version poll's answer besides the version, from the stream's header alone; only a
    chronicle whose header has not said yet (last written before headers did) is loaded."""
    if header.status is not None and "phase" in header.status:
        return {"phase": header.status["phase"]}
    return status_of(load(db, header.id, header).state)


def load(db: Database, stream_id: str, header: store.Stream | None = None) -> Chronicle:
    """The chronicle at its current version: this process's kept state where it is current,
    brought up to date where it is behind, else restored from its snapshot and the events after
    it (``replays.py``). ``header`` is the stream's header when the caller has just read it."""
    header = header if header is not None else store.get_stream(db, stream_id)
    kept = CACHE.get(stream_id)  # (version, state, the latest snapshot known)
    if kept is not None and kept[0] == header.version:
        state, snapshot = kept[1], kept[2]
    elif kept is not None and kept[0] < header.version:
        newer = store.load_events(db, stream_id, after=kept[0], upto=header.version)
        state = _advance(kept[1], newer)
        snapshot = replays.keep_snapshot(db, stream_id, state, header.nbytes, kept[2])
    else:
        state, snapshot = replays.restore(db, stream_id, header)
    if kept is None or kept[0] <= header.version:
        cost = state_cost(header.version, header.nbytes)
        CACHE.put(stream_id, (header.version, state, snapshot), cost)
    return Chronicle(header.id, header.title, state, header.version, header.meta, header.nbytes)


def _advance(state: State, stored: Sequence[store.StoredEvent]) -> State:
    return replays.advance(state, stored)


def execute(
    db: Database,
    chronicle: Chronicle,
    commands: Sequence[Command],
    rng: random.Random | None = None,
    actor: str | None = None,
    then: Callable[[State], None] | None = None,
) -> Chronicle:
    """Decide every command in order and append all their events at once, or none.

    ``actor`` is who sent them (see ``store.append``). ``then`` is the move's own bookkeeping
    (its drafts), given the new state: it commits with the events and open pages hear of both
    at once, never of a version whose drafts are not yet what it left. Raises RuleError
    (nothing appended; a ``chronicle_limits.LimitError`` past one of the chronicle's limits) or
    StaleVersionError when someone moved first.
    """
    limits = chronicle_limits.from_settings()
    chronicle_limits.check_corrections(db, chronicle.id, chronicle.state, commands, limits)
    dice = rng or random.Random()
    state, version, batch = chronicle.state, chronicle.version, []
    for command in commands:
        for event in decide(state, command, dice):
            version += 1
            state = evolve(state, Recorded(version, event))
            batch.append(event_to_dict(event))
    try:
        _, nbytes = store.append_sized(
            db,
            chronicle.id,
            chronicle.version,
            batch,
            status_of(state),
            limits.stream,
            actor,
            None if then is None else lambda: then(state),
        )
    except store.StreamFullError as err:
        raise chronicle_limits.full(err.what, limits) from None
    before = CACHE.get(chronicle.id)
    current = before is not None and before[0] == chronicle.version
    known = before[2] if current else replays.latest(db, chronicle.id)
    snapshot = replays.keep_snapshot(db, chronicle.id, state, nbytes, known)
    if current:
        CACHE.put(chronicle.id, (version, state, snapshot), state_cost(version, nbytes))
    return Chronicle(chronicle.id, chronicle.title, state, version, chronicle.meta, nbytes)
