"""Devices racing on one chronicle through the JSON API of one or more real servers.

Each client reads the state, sends the next legal command at that version and records what the
server answered. The proofs then check that nothing was lost or doubled.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server_client import SETUP, Server, next_command, request, send


@dataclass(frozen=True)
class Answer:
    """One exchange of a racing client: a command's answer, a failed state read or a lost link."""

    kind: str  # "command", "state" (the state could not be read) or "error" (no answer)
    port: int
    status: int | None = None
    sent_version: int | None = None  # the version the command was sent at
    new_version: int | None = None  # the version the server says the command made
    command: dict[str, Any] | None = None
    body: Any = None

    @property
    def accepted(self) -> bool:
        return self.kind == "command" and self.status == 200


def create_chronicle(port: int) -> tuple[str, int]:
    """A new chronicle on the server at ``port``: its host token and first version."""
    status, body = request(port, "POST", "/api/v1/chronicles", SETUP)
    assert status == 201, body
    return body["host_token"], body["state"]["version"]


def client_loop(
    port: int,
    token: str,
    commands: int,
    seed: int,
    log: list[Answer],
    stop: threading.Event,
) -> None:
    """Send ``commands`` commands (or until ``stop``), recording every answer in ``log``."""
    rng = random.Random(seed)
    sent = 0
    while sent < commands and not stop.is_set():
        try:
            status, state = request(port, "GET", f"/api/v1/chronicles/{token}/state")
            if status != 200:
                log.append(Answer("state", port, status, body=state))
                continue
            command = next_command(state, rng)
            status, body = send(port, token, state["version"], command)
        except OSError as err:
            log.append(Answer("error", port, body=str(err)))
            if stop.is_set():
                return
            time.sleep(0.05)
            continue
        sent += 1
        made = body.get("version") if isinstance(body, dict) else None
        log.append(Answer("command", port, status, state["version"], made, command, body))


def start_clients(
    ports: list[int], token: str, clients: int, commands: int, stop: threading.Event
) -> tuple[list[Answer], list[threading.Thread]]:
    """``clients`` racing threads spread over ``ports``, started; seeds 0, 1, 2…"""
    log: list[Answer] = []
    threads = [
        threading.Thread(
            target=client_loop, args=(ports[n % len(ports)], token, commands, n, log, stop)
        )
        for n in range(clients)
    ]
    for thread in threads:
        thread.start()
    return log, threads


def race(ports: list[int], token: str, clients: int, commands: int) -> list[Answer]:
    """Run racing clients to the end and return every answer."""
    log, threads = start_clients(ports, token, clients, commands, threading.Event())
    for thread in threads:
        thread.join(timeout=900)
    return log


@contextmanager
def serving(folder: Path, **env: str) -> Iterator[Server]:
    """`companion serve` on a database in ``folder``, on plain HTTP as a loopback test needs."""
    running = Server(
        folder / "db.sqlite3", env={"COMPANION_SESSION_COOKIE_SECURE": "false", **env}
    ).start()
    try:
        yield running
    finally:
        running.stop()
