"""Live pages: changes pushed to every open page as they happen (see ``docs/server.md``).

``signal`` tells every server process that a stream changed; ``hub`` wakes the open feeds of
one process; ``feed`` is the live feed a page holds.
"""

from __future__ import annotations

from companion.store.signal import changed

from .feed import Part, init_app, respond

__all__ = ["Part", "changed", "init_app", "respond"]
