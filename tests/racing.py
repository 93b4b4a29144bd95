"""Devices racing on one chronicle through the JSON API of one or more real servers.

Each client reads the state, sends the next legal command at that version and records what the
server answered. The proofs then check that nothing was lost or doubled. In lockstep rounds every
client sends at one version at once, so commands collide however fast the machine is.
"""

from __future__ import annotations

import http.client
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
        except (OSError, http.client.HTTPException) as err:  # a server killed mid-answer
            log.append(Answer("error", port, body=repr(err)))
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


def race_at_one_version(
    ports: list[int], token: str, clients: int, rounds: int
) -> list[list[Answer]]:
    """``rounds`` times, ``clients`` threads read one version, then all send a command at it.

    A barrier holds every client until all have read the state, and again until all have been
    answered, so each round's commands collide whatever the speed: one answer per client a round.
    """
    log: list[list[Answer]] = [[] for _ in range(rounds)]
    barrier = threading.Barrier(clients, timeout=300)

    def client(n: int) -> None:
        port, rng = ports[n % len(ports)], random.Random(n)
        try:
            for answers in log:
                barrier.wait()  # every answer of the round before is in
                status, state = request(port, "GET", f"/api/v1/chronicles/{token}/state")
                if status != 200:
                    answers.append(Answer("state", port, status, body=state))
                    raise threading.BrokenBarrierError
                command = next_command(state, rng)
                barrier.wait()  # every client holds the same version
                status, body = send(port, token, state["version"], command)
                made = body.get("version") if isinstance(body, dict) else None
                version = state["version"]
                answers.append(Answer("command", port, status, version, made, command, body))
        except (OSError, http.client.HTTPException, threading.BrokenBarrierError) as err:
            log[-1].append(Answer("error", port, body=repr(err)))
            barrier.abort()  # a client that stops early stops the others instead of keeping them

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
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
