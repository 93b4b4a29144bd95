"""Waiting for an event in a test: poll a condition, with a bound for a hang, never a speed."""

from __future__ import annotations

import time
from collections.abc import Callable

# Far beyond what any wait here costs on a loaded machine: the bound only ends a hang.
HANG = 300.0
# A book takes seconds, minutes on a loaded machine: this bound only ends a worker that hangs
# (how long a book takes is measured by bench/bench_pdf.py).
BOOK_ENDS = 900.0


def wait_until(holds: Callable[[], bool], what: str, seconds: float = HANG) -> None:
    """Poll until ``holds()``; fail naming ``what`` if it has not happened after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not holds():
        assert time.monotonic() < deadline, f"{what}: not seen in {seconds:g} s"
        time.sleep(0.05)
