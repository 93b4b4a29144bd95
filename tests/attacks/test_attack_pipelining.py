"""One connection that sends thousands of requests at once (HTTP/1.1 pipelining), against
`companion serve` with a single worker: another connection's request is answered in its turn,
not after all of them. Nothing else is needed to hold a worker so: no link, no body, only
requests that each answer at once.
"""

from __future__ import annotations

import socket
import threading
from pathlib import Path

from server_client import Server

PIPELINED = 2000
REQUEST = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
STATUS = b"HTTP/1.1 200 "
WAIT = 120.0  # seconds for a hang, however loaded the machine


class Answers:
    """Counts the answers arriving on ``sock``, read as fast as they come (so the server never
    waits for room to send them), in a thread of its own."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.count = 0
        self.first = threading.Event()
        self.all = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        tail = b""
        while self.count < PIPELINED:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                break
            data = tail + chunk
            self.count += data.count(STATUS)
            tail = data[-(len(STATUS) - 1) :]  # a status line cut between two reads
            self.first.set()
        self.all.set()


def test_a_pipelining_client_does_not_hold_the_worker_from_the_others(tmp_path: Path) -> None:
    server = Server(tmp_path / "pipelined.sqlite3", options=["--workers", "1"]).start()
    try:
        flood = socket.socket()
        flood.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        flood.settimeout(WAIT)
        flood.connect(("127.0.0.1", server.port))
        other = socket.create_connection(("127.0.0.1", server.port), timeout=WAIT)
        answers = Answers(flood)
        flood.sendall(REQUEST * PIPELINED)
        assert answers.first.wait(WAIT), "the pipelined requests were never answered"
        # The worker is at the flood's requests now; one more client asks.
        other.sendall(REQUEST)
        reply = other.recv(1 << 16)
        answered_before = answers.count
        assert reply.startswith(STATUS), reply[:200]
        # In its turn: a few of the flood's answers before it, not (nearly) all of them.
        assert answered_before < PIPELINED // 2, answered_before
        assert answers.all.wait(WAIT), "not every pipelined request was answered"
        assert answers.count == PIPELINED
        flood.close()
        other.close()
    finally:
        server.stop()
