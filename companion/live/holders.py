"""Who holds this process's live feeds: counted per link and per client address, each bounded.

An open feed costs the server a connection, a greenlet and its kernel buffers for as long as
the page stays open, and a browser asks for a few at most (one an open page). Without a bound,
one read-only link (or one address with no link at all) held every connection: 4,300 feeds
from one address left no room for anyone's health check. ``STREAMS_PER_LINK`` and
``STREAMS_PER_ADDRESS`` (``companion/base/bounds.py``) bound each; a feed past either is
refused, and the page polls instead. Each server process counts its own feeds.
"""

from __future__ import annotations

import threading
from collections import Counter


class Holders:
    """The feeds open in this process, by link and by client address."""

    def __init__(self, per_link: int, per_address: int) -> None:
        self.per_link, self.per_address = per_link, per_address
        self.links: Counter[str] = Counter()
        self.addresses: Counter[str] = Counter()
        self.lock = threading.Lock()

    def take(self, link: str, address: str) -> bool:
        """Count one more feed of ``link`` from ``address``; False (nothing counted) when
        either already holds as many as it may."""
        with self.lock:
            if self.links[link] >= self.per_link or self.addresses[address] >= self.per_address:
                return False
            self.links[link] += 1
            self.addresses[address] += 1
            return True

    def give_back(self, link: str, address: str) -> None:
        """One feed of ``link`` from ``address`` ended."""
        with self.lock:
            for counts, key in ((self.links, link), (self.addresses, address)):
                counts[key] -= 1
                if counts[key] <= 0:
                    del counts[key]
