"""A small server-sent-events client for the tests: one held feed, read event by event."""

from __future__ import annotations

import contextlib
import http.client
import socket
from dataclasses import dataclass


@dataclass
class Event:
    name: str  # "message" unless the event names itself
    data: str


class Feed:
    """``GET path`` held open; ``next()`` waits (up to ``timeout`` seconds) for the next event."""

    def __init__(
        self,
        port: int,
        path: str,
        timeout: float = 30,
        host: str = "127.0.0.1",
        headers: dict[str, str] | None = None,
    ) -> None:
        self.conn = http.client.HTTPConnection(host, port, timeout=timeout)
        self.conn.request("GET", path, headers={"Accept": "text/event-stream", **(headers or {})})
        self.sock = self.conn.sock  # kept: the response may take it from the connection
        self.response = self.conn.getresponse()
        self.status = self.response.status
        self.headers = self.response.headers
        self.raw = b""  # every byte read so far

    def next(self, skip_pings: bool = True) -> Event | None:
        """The next event; None when the server ended the feed."""
        while True:
            name, data = "message", []
            while True:
                line = self.response.fp.readline()
                if not line:
                    return None
                self.raw += line
                text = line.decode().rstrip("\n")
                if not text:
                    break
                field, _colon, value = text.partition(":")
                value = value.removeprefix(" ")
                if field == "event":
                    name = value
                elif field == "data":
                    data.append(value)
            if not data and name == "message":
                continue  # a retry or comment block, no event
            if skip_pings and name == "ping":
                continue
            return Event(name, "\n".join(data))

    def close(self) -> None:
        """Close the feed, at once even while another thread waits in ``next``."""
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)
        self.conn.close()
