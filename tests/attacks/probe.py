"""Another client, served while an attack runs: a probe that must answer within a second.

Each attack test of a bound shows two things: the server holds only what the bound allows, and
every other client is served as usual meanwhile. ``answered`` is that other client: one request
on a connection of its own, answered 200 within ``PROBE_SECONDS`` (a normal answer takes
milliseconds; a worker that an attack froze or a server whose connections an attack took
answers late or never). ``during`` runs an attack in a thread and probes while it is under way.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from server_client import request
from waiting import HANG

PROBE_SECONDS = 1.0
Result = TypeVar("Result")


def answered(port: int, path: str = "/healthz", headers: dict[str, str] | None = None) -> Any:
    """GET ``path`` as another client: 200 within PROBE_SECONDS, or the test fails."""
    status, body = request(port, "GET", path, timeout=PROBE_SECONDS, headers=headers)
    assert status == 200, (path, status, str(body)[:300])
    return body


def during(
    attack: Callable[[threading.Event], Result], probe: Callable[[], object], probes: int = 1
) -> Result:
    """Run ``attack`` in a thread; once it sets the event it is given (it is under way), run
    ``probe`` ``probes`` times; then wait for the attack to end and give what it returned."""
    under_way = threading.Event()
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = attack(under_way)
        except BaseException as err:  # noqa: BLE001 - handed to the test's own thread
            outcome["error"] = err
        finally:
            under_way.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert under_way.wait(HANG), "the attack never got under way"
    try:
        if "error" not in outcome:
            for _ in range(probes):
                probe()
    finally:
        thread.join(HANG)
    assert not thread.is_alive(), "the attack did not end"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]  # type: ignore[no-any-return]
