"""One process's live feeds: who watches which stream, woken when it changes.

A change wakes only the watchers of that stream. Watchers of one stream that would ask the same
question (the same link and host; for a part, the language the app chose) share one answer per
change: the first to wake asks, the others wait for it. A stream keeps the answers of its
current change only: a change drops the ones before, so what the hub holds is bounded by the
feeds open (``companion.live.holders``), whatever keys their watchers bring. Every
``RECHECK`` seconds each watched stream is woken anyway, so a change no signal reached (or a
link revoked by another tool) is still noticed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

RECHECK = 60.0  # seconds between rechecks of every watched stream


@dataclass
class _Answer:
    generation: int
    ready: threading.Event = field(default_factory=threading.Event)
    value: Any = None


@dataclass
class _Stream:
    """A watched stream: its changes counted, the feeds watching it, their shared answers."""

    generation: int = 0
    watchers: set[Watcher] = field(default_factory=set)
    answers: dict[Hashable, _Answer] = field(default_factory=dict)


class Watcher:
    """One open feed's place in the hub; ``wait`` returns when its stream changed."""

    def __init__(self, hub: Hub, stream_id: str, generation: int) -> None:
        self.hub = hub
        self.stream_id = stream_id
        self.seen = generation
        self.woken = threading.Event()

    def wait(self, timeout: float) -> bool:
        """Whether the stream changed since the last look (False: ``timeout`` passed first)."""
        if not self.changed():
            self.woken.wait(timeout)
        self.woken.clear()
        return self.changed()

    def changed(self) -> bool:
        return self.hub.generation(self.stream_id) != self.seen or self.hub.closing

    def answer(self, key: Hashable, ask: Callable[[], Any]) -> Any:
        """The answer to ``ask`` for this change, asked once for every watcher with ``key``."""
        self.seen = self.hub.generation(self.stream_id)
        return self.hub.answer(self.stream_id, self.seen, key, ask)

    def close(self) -> None:
        self.hub.forget(self)


class Hub:
    """The watchers of one process, by stream."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.streams: dict[str, _Stream] = {}
        self.closing = False
        self.rechecked = time.monotonic()

    def watch(self, stream_id: str) -> Watcher:
        """Start watching ``stream_id`` (close the watcher when its feed ends)."""
        with self.lock:
            stream = self.streams.setdefault(stream_id, _Stream())
            watcher = Watcher(self, stream_id, stream.generation)
            stream.watchers.add(watcher)
            return watcher

    def forget(self, watcher: Watcher) -> None:
        with self.lock:
            stream = self.streams.get(watcher.stream_id)
            if stream is not None:
                stream.watchers.discard(watcher)
                if not stream.watchers:
                    del self.streams[watcher.stream_id]

    def generation(self, stream_id: str) -> int:
        stream = self.streams.get(stream_id)
        return stream.generation if stream is not None else -1

    def wake(self, stream_id: str | None) -> None:
        """``stream_id`` changed (None: any stream may have changed)."""
        with self.lock:
            streams = (
                list(self.streams.values())
                if stream_id is None
                else [s for s in (self.streams.get(stream_id),) if s is not None]
            )
            woken: list[Watcher] = []
            for stream in streams:
                stream.generation += 1
                stream.answers.clear()  # those of the change before: no watcher asks again
                woken.extend(stream.watchers)
        for watcher in woken:
            watcher.woken.set()

    def recheck_due(self, now: float) -> bool:
        """Whether every stream should be woken for its periodic recheck (once per RECHECK)."""
        with self.lock:
            if now - self.rechecked < RECHECK:
                return False
            self.rechecked = now
            return True

    def answer(self, stream_id: str, generation: int, key: Hashable, ask: Callable[[], Any]) -> Any:
        with self.lock:
            stream = self.streams.get(stream_id)
            if stream is None:  # not watched: nothing to share
                mine = True
                entry = _Answer(generation)
            else:
                entry = stream.answers.get(key) or _Answer(-1)
                mine = entry.generation < generation
                if mine:
                    entry = _Answer(generation)
                    stream.answers[key] = entry
        if not mine:
            entry.ready.wait()
            return entry.value
        try:
            entry.value = ask()
        finally:
            entry.ready.set()
        return entry.value

    def close(self) -> None:
        """End every feed (the process is stopping): each watcher wakes and finishes."""
        self.closing = True
        self.wake(None)

    def watching(self) -> int:
        """How many feeds are open in this process."""
        with self.lock:
            return sum(len(s.watchers) for s in self.streams.values())
