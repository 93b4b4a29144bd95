"""A least-recently-used cache of text bounded by the bytes it holds, not by its entry count.

Rendered pages and Markdown vary wildly in size: a count bound lets a handful of huge entries
grow a worker without limit. Sizes are the UTF-8 length of the text (what a page costs to
send), plus a small fixed charge per entry and per part for the bookkeeping around it.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

Value = str | list[str]

ENTRY_OVERHEAD = 200  # the key, the ordered-dict node and the value's object header
PART_OVERHEAD = 60  # each str object in a list value


def size_of(value: Value) -> int:
    """The bytes ``value`` is charged for in a cache."""
    if isinstance(value, str):
        return ENTRY_OVERHEAD + len(value.encode("utf-8", "surrogatepass"))
    return ENTRY_OVERHEAD + sum(
        PART_OVERHEAD + len(part.encode("utf-8", "surrogatepass")) for part in value
    )


def deep_size(value: Any) -> int:
    """The bytes ``value`` and every object it holds take in this process, each object once.

    Walks dicts, lists, tuples, sets and the attributes of plain objects (dataclasses); what
    other caches also hold is counted here too, so the figure errs on the high side.
    """
    seen: set[int] = set()
    total = 0
    stack = [value]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, str | bytes | int | float | bool) or obj is None:
            continue
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, list | tuple | set | frozenset):
            stack.extend(obj)
        elif not isinstance(obj, type) and hasattr(obj, "__dict__"):
            stack.append(obj.__dict__)
    return total


class ByteLRU:
    """A thread-safe LRU whose values together never exceed ``max_bytes``."""

    def __init__(self, max_bytes: int) -> None:
        if max_bytes < 0:
            raise ValueError(f"a cache bound must not be negative, not {max_bytes!r}")
        self.max_bytes = max_bytes
        self._items: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()
        self._nbytes = 0

    @property
    def nbytes(self) -> int:
        """The bytes currently held."""
        return self._nbytes

    def __len__(self) -> int:
        return len(self._items)

    def keys(self) -> list[Hashable]:
        """The keys held now, least recently used first."""
        with self._lock:
            return list(self._items)

    def get(self, key: Hashable) -> Any:
        """The value kept for ``key`` (now the most recently used), or None."""
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return None
            self._items.move_to_end(key)
            return item[0]

    def put(self, key: Hashable, value: Any, nbytes: int | None = None) -> None:
        """Keep ``value`` for ``key``, dropping the least recently used to stay in bounds.

        Text is charged its own size; any other value is charged the ``nbytes`` its owner
        estimates. A value larger than the whole bound is not kept at all.
        """
        size = size_of(value) if nbytes is None else ENTRY_OVERHEAD + nbytes
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._nbytes -= old[1]
            if size > self.max_bytes:
                return
            self._items[key] = (value, size)
            self._nbytes += size
            while self._nbytes > self.max_bytes:
                _, (_, dropped) = self._items.popitem(last=False)
                self._nbytes -= dropped

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._items.clear()
            self._nbytes = 0
