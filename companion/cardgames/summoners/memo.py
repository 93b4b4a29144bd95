"""What the engine may remember between moves, owned by whoever runs it, bounded in bytes.

The rules are pure functions of the state: a line-up of spirits and the ways to pay a cost are
worked out afresh whenever nobody lends the engine a ``Memo``. A ``Memo`` is created by the one
who runs matches (the game the app registers, a simulation, a benchmark) and lent for a call with
``lent(memo)``; the engine then keeps what it worked out there, charged its measured size, and
reads it back the next time the same line-up or the same cost comes up. A memo holds immutable
values only, so what one call reads can never be changed by another.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

# The memo of the app's game: a few hundred line-ups and payment lists, what the matches
# a server runs at once come back to (with every other cache, under 64 MiB a process).
MEMO_BYTES = 512 << 10
# a slot of a dict's hash table: the hash and two pointers, at a load of about a half
SLOT_BYTES = 3 * 8 * 2


class Shelf:
    """Immutable values by key, within ``max_bytes``, in two generations of up to half of it
    each: a value is kept in the newer one, and when it would not fit, the older generation is
    let go and the newer one becomes the older. Whoever misses asks the older generation
    (``recall``) before working a value out, and keeps what it finds again, so what the
    matches still use outlives the generation it was kept in. Reading is one dict look-up;
    writing takes a lock, so the byte count holds across threads."""

    __slots__ = (
        "max_bytes",
        "nbytes",
        "_items",
        "_older",
        "_older_bytes",
        "_half",
        "_lock",
        "get",
        "recall",
    )

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.nbytes = 0  # both generations
        self._items: dict[Hashable, Any] = {}
        self._older: dict[Hashable, Any] = {}
        self._older_bytes = 0
        self._half = max_bytes // 2
        self._lock = threading.Lock()
        self.get = self._items.get
        # the older generation's value for a key, or None (keep it again with ``put``)
        self.recall = self._older.get

    def __len__(self) -> int:
        return len(self._items) + len(self._older)

    def put(self, key: Hashable, value: Any, nbytes: int) -> None:
        """Keep ``value``, charged ``nbytes`` (plus the dict slot that holds it)."""
        nbytes += SLOT_BYTES
        half = self._half
        lock = self._lock
        lock.acquire()
        try:
            if key in self._items or nbytes > half:
                return
            newer = self.nbytes - self._older_bytes
            if newer + nbytes > half:  # the newer generation becomes the older
                self._older = self._items
                self.recall = self.get
                self._older_bytes = self.nbytes = newer
                self._items = {}
                self.get = self._items.get
            self._items[key] = value
            self.nbytes += nbytes
        finally:
            lock.release()

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._items.clear()
            self._older = {}
            self.recall = self._older.get
            self.nbytes = self._older_bytes = 0


class Memo:
    """Line-ups and payment lists worked out before, within ``max_bytes`` together."""

    __slots__ = ("max_bytes", "lineups", "payments", "hits", "misses")

    def __init__(self, max_bytes: int = MEMO_BYTES) -> None:
        self.max_bytes = max_bytes
        self.lineups = Shelf(max_bytes // 2)
        self.payments = Shelf(max_bytes - max_bytes // 2)
        self.hits = 0
        self.misses = 0

    @property
    def nbytes(self) -> int:
        """The bytes held now."""
        return self.lineups.nbytes + self.payments.nbytes

    def clear(self) -> None:
        """Forget everything (the counts stay)."""
        self.lineups.clear()
        self.payments.clear()


LENT: ContextVar[Memo | None] = ContextVar("summoners_memo", default=None)


def current() -> Memo | None:
    """The memo lent to this call, if any."""
    return LENT.get()


@contextmanager
def lent(memo: Memo | None) -> Iterator[Memo | None]:
    """Lend ``memo`` to the engine for the calls made inside (None lends nothing)."""
    token = LENT.set(memo)
    try:
        yield memo
    finally:
        LENT.reset(token)
