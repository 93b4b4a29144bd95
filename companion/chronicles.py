"""Chronicles of the legacy game: the rules core joined to the event store.

Views call these functions; they never touch the core's events or the store directly.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database

from . import capabilities, store
from .bytecache import ByteLRU
from .legacy import (
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
from .legacy.commands import Command

KIND = "legacy"


@dataclass(frozen=True)
class Chronicle:
    """A chronicle as loaded: its header, its replayed state and its version."""

    id: str
    title: str
    state: State
    version: int
    meta: dict[str, Any]


@dataclass(frozen=True)
class Created:
    """A new chronicle and the links its creator gets (shown once)."""

    id: str
    host_token: str
    reader_token: str


# A replayed state is charged a multiple of its events' JSON: Python objects take more room
# than their JSON text. Bounded in bytes, like every cache in a process.
STATE_COST = 3
CACHE = ByteLRU(12 * 1024 * 1024)


def _charge(stored: Sequence[store.StoredEvent]) -> int:
    return STATE_COST * sum(len(json.dumps(e.data, ensure_ascii=False)) for e in stored)


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
    db: Database, events: Sequence[dict[str, Any]], title: str, language: str
) -> Created:
    """A new chronicle from already-checked events, with its host and reader links, all in one
    transaction."""
    links: dict[str, str] = {}

    def issue_links(tx: Database, sid: str) -> None:
        links["host"] = capabilities.issue(tx, sid, "host")
        links["reader"] = capabilities.issue(tx, sid, "reader")

    sid = store.create_stream(
        db, KIND, events, title=title, meta={"language": language}, within=issue_links
    )
    return Created(sid, links["host"], links["reader"])


def load(db: Database, stream_id: str) -> Chronicle:
    """Replay the chronicle, reusing this process's cached state where it is still current."""
    header = store.get_stream(db, stream_id)
    cached = CACHE.get(stream_id)
    if cached is not None and cached[0] == header.version:
        state, nbytes = cached[1], cached[2]
    elif cached is not None and cached[0] < header.version:
        newer = store.load_events(db, stream_id, after=cached[0], upto=header.version)
        state, nbytes = _advance(cached[1], newer), cached[2] + _charge(newer)
    else:
        stored = store.load_events(db, stream_id, upto=header.version)
        state, nbytes = replay(_records(stored)), _charge(stored)
    if cached is None or cached[0] <= header.version:
        CACHE.put(stream_id, (header.version, state, nbytes), nbytes)
    return Chronicle(header.id, header.title, state, header.version, header.meta)


def _records(stored: Sequence[store.StoredEvent]) -> list[Recorded]:
    return [Recorded(e.seq, event_from_dict(e.data)) for e in stored]


def _advance(state: State, stored: Sequence[store.StoredEvent]) -> State:
    for record in _records(stored):
        state = evolve(state, record)
    return state


def execute(
    db: Database,
    chronicle: Chronicle,
    commands: Sequence[Command],
    rng: random.Random | None = None,
    actor: str | None = None,
) -> Chronicle:
    """Decide every command in order and append all their events at once, or none.

    ``actor`` is who sent them (see ``store.append``). Raises RuleError (nothing appended) or
    StaleVersionError when someone moved first.
    """
    dice = rng or random.Random()
    state, version, batch = chronicle.state, chronicle.version, []
    for command in commands:
        for event in decide(state, command, dice):
            version += 1
            state = evolve(state, Recorded(version, event))
            batch.append(event_to_dict(event))
    store.append(db, chronicle.id, chronicle.version, batch, actor)
    before = CACHE.get(chronicle.id)
    nbytes = STATE_COST * sum(len(json.dumps(e, ensure_ascii=False)) for e in batch)
    if before is not None and before[0] == chronicle.version:
        nbytes += before[2]
        CACHE.put(chronicle.id, (version, state, nbytes), nbytes)
    return Chronicle(chronicle.id, chronicle.title, state, version, chronicle.meta)
