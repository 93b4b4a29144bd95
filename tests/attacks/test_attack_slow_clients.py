"""Slow and silent clients against `companion serve` with nothing in front (as with `--lan`).

200 sockets that send nothing, 17 that send one header line now and then, and 40 that declare a
body and send it a byte at a time, all held open (and opened again if dropped) while valid
requests arrive: every valid request is answered. Then the server itself closes the silent and
slow ones (a request's head and body have deadlines), so they cannot hold it for ever.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from server_client import SETUP, Server, request

SILENT, SLOW_HEAD, SLOW_BODY = 200, 17, 40
PROBE_TIMEOUT = 30.0  # generous: an answer normally comes in milliseconds


def _open(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.settimeout(None)
    return sock


class Attack:
    """The slow and silent sockets, kept open (and dribbling) by one thread until stopped."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.silent = [_open(port) for _ in range(SILENT)]
        self.slow_head = [_open(port) for _ in range(SLOW_HEAD)]
        self.slow_body = [_open(port) for _ in range(SLOW_BODY)]
        for sock in self.slow_head:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        for sock in self.slow_body:
            sock.sendall(
                b"POST /api/v1/chronicles HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"
            )
        self.stop = threading.Event()
        self.reopened = 0
        self.thread = threading.Thread(target=self._dribble, daemon=True)
        self.thread.start()

    def _dribble(self) -> None:
        while not self.stop.wait(1.0):
            for group, data in ((self.slow_head, b"X-Slow: 1\r\n"), (self.slow_body, b" ")):
                for i, sock in enumerate(group):
                    try:
                        sock.sendall(data)
                    except OSError:  # dropped by the server: the attacker comes back
                        sock.close()
                        with contextlib.suppress(OSError):
                            group[i] = _open(self.port)
                            self.reopened += 1

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=10)
        for sock in self.silent + self.slow_head + self.slow_body:
            sock.close()


@pytest.fixture
def attack(served: Server) -> Iterator[Attack]:
    running = Attack(served.port)
    try:
        yield running
    finally:
        running.close()


def test_valid_requests_are_answered_while_slow_and_silent_clients_hold_connections(
    served: Server, attack: Attack
) -> None:
    status, body = request(served.port, "POST", "/api/v1/chronicles", SETUP, PROBE_TIMEOUT)
    assert status == 201, body
    token = body["host_token"]
    probes = [
        ("GET", "/healthz", None),
        ("GET", f"/c/{token}/version", None),
        ("GET", f"/c/{token}/", None),
        ("GET", f"/api/v1/chronicles/{token}/state", None),
        ("GET", "/", None),
        ("POST", "/api/v1/chronicles", SETUP),
    ]
    for method, path, payload in probes:
        status, _answer = request(served.port, method, path, payload, PROBE_TIMEOUT)
        assert status in (200, 201), (method, path, status)


@pytest.mark.slow
def test_the_server_closes_connections_that_never_finish_a_request(served: Server) -> None:
    silent = [_open(served.port) for _ in range(20)]
    slow = _open(served.port)
    slow.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    body = _open(served.port)
    body.sendall(
        b"POST /api/v1/chronicles HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"
    )
    try:
        deadline = time.monotonic() + 120  # the server's own deadlines are far shorter
        for sock in [*silent, slow]:
            sock.settimeout(max(1.0, deadline - time.monotonic()))
            assert sock.recv(1024) == b"", "the server answered a request that never came"
        # A body that never completes ends the connection too (no answer, or a refusal).
        ended = False
        while not ended and time.monotonic() < deadline:
            try:
                body.sendall(b" ")
                body.settimeout(1.0)
                ended = body.recv(1024) == b""
            except TimeoutError:
                continue
            except OSError:
                ended = True
        assert ended, "a body sent a byte a second held its connection open for two minutes"
    finally:
        for sock in [*silent, slow, body]:
            sock.close()
