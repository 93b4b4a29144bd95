"""Live pages: changes pushed to every open page as they happen (see ``docs/server.md``).

``signal`` tells every server process that a stream changed; ``hub`` wakes the open streams of
one process; ``stream`` is the event stream a page holds.
"""

from __future__ import annotations

from companion.store.signal import changed

from .stream import Part, init_app, respond

__all__ = ["Part", "changed", "init_app", "respond"]
