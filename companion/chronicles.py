"""Chronicles of the legacy game: the rules core joined to the event store.

Views call these functions; they never touch the core's events or the store directly.
"""

from __future__ import annotations

import random
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database

from . import capabilities, store
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


class _StateCache:
    """Recently loaded states per process, so a page view replays only the new events."""

    def __init__(self, size: int = 256) -> None:
        self._items: OrderedDict[str, tuple[int, State]] = OrderedDict()
        self._lock = threading.Lock()
        self._size = size

    def get(self, stream_id: str) -> tuple[int, State] | None:
        with self._lock:
            item = self._items.get(stream_id)
            if item is not None:
                self._items.move_to_end(stream_id)
            return item

    def put(self, stream_id: str, version: int, state: State) -> None:
        with self._lock:
            current = self._items.get(stream_id)
            if current is None or current[0] <= version:
                self._items[stream_id] = (version, state)
                self._items.move_to_end(stream_id)
            while len(self._items) > self._size:
                self._items.popitem(last=False)


CACHE = _StateCache()


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
        state = cached[1]
    elif cached is not None and cached[0] < header.version:
        newer = store.load_events(db, stream_id, after=cached[0], upto=header.version)
        state = _advance(cached[1], newer)
    else:
        state = replay(_records(store.load_events(db, stream_id, upto=header.version)))
    CACHE.put(stream_id, header.version, state)
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
) -> Chronicle:
    """Decide every command in order and append all their events at once, or none.

    Raises RuleError (nothing appended) or StaleVersionError when someone moved first.
    """
    dice = rng or random.Random()
    state, version, batch = chronicle.state, chronicle.version, []
    for command in commands:
        for event in decide(state, command, dice):
            version += 1
            state = evolve(state, Recorded(version, event))
            batch.append(event_to_dict(event))
    store.append(db, chronicle.id, chronicle.version, batch)
    CACHE.put(chronicle.id, version, state)
    return Chronicle(chronicle.id, chronicle.title, state, version, chronicle.meta)
