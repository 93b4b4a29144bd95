"""The first ask of a page after a change, on the real server, against hello-world's in the same run.

A table's links are opened as phones open them: the host's, one per seat of three players and
the reader's, each with the session cookie its first visit got, each ask on a fresh loopback
connection (so either of the two workers may answer it). For each change (a command through
the API, as the play page's form makes one), every link asks its play page twice, in an order
shuffled per change: the first ask after the change is what a phone that opens the page then
waits for (rendered once per role and worker, or read from the render cache the workers
share); the second is the page asked again. Beside them, hello-world's page (``bench/hello.py``:
a bare Flask app under the same server) asked the same way just before each change.

Printed: p50, p90 and the largest of each kind of ask (ms), and the p50s over hello's p50; and
how long the command took to be answered (the process that wrote it makes the pages its
visitors asked before it answers: ``companion/web/shell/ahead.py``). The machine's load average
at the start and at the end. Target (issue: a cache every worker
shares): the play page's first ask after a change <= 5x hello's ask.

    .venv/bin/python bench/bench_first_ask.py [--changes 30]
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

import hello  # noqa: E402
from bench_live import command_change, pct, table_links  # noqa: E402
from server_client import SETUP, Server, free_port, request  # noqa: E402


def ask(port: int, path: str, cookie: str = "") -> tuple[float, int, str]:
    """One GET on a fresh connection: the ms until the whole body was read, the status and the
    session cookie set (if any)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        started = time.perf_counter()
        connection.request("GET", path, headers={"Cookie": cookie} if cookie else {})
        response = connection.getresponse()
        response.read()
        took = (time.perf_counter() - started) * 1000
        set_cookie = response.getheader("Set-Cookie", "") or ""
        return took, response.status, set_cookie.split(";", 1)[0]
    finally:
        connection.close()


def line(name: str, values: list[float], base: float) -> str:
    p50 = statistics.median(values)
    return f"{name:34s} {p50:8.2f} {pct(values, 90):8.2f} {max(values):8.2f}   {p50 / base:6.1f}x"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--changes", type=int, default=30)
    args = parser.parse_args()
    load = os.getloadavg()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "first.sqlite3").start()
        hello_port = free_port()
        bare = hello.start(hello_port)
        try:
            _status, body = request(server.port, "POST", "/api/v1/chronicles", SETUP)
            tokens = table_links(
                server.database, body["id"], body["host_token"], body["reader_token"]
            )
            roles = ["host", "seat 0", "seat 1", "seat 2", "reader"]
            cookies = {t: ask(server.port, f"/c/{t}/")[2] for t in tokens}
            change = command_change(server.port, tokens[0])
            hellos: list[float] = []
            first: dict[str, list[float]] = {role: [] for role in roles}
            again: list[float] = []
            commands: list[float] = []
            for _ in range(3):  # both workers warm: templates compiled, connections open
                for token in tokens:
                    ask(server.port, f"/c/{token}/", cookies[token])
            for _ in range(args.changes):
                hellos.extend(ask(hello_port, "/hello")[0] for _ in range(5))
                _version, sent = change()  # type: ignore[operator]
                commands.append((time.monotonic() - sent) * 1000)  # the command's POST
                order = list(zip(roles, tokens, strict=True))
                rng.shuffle(order)
                for role, token in order:
                    took, status, _ = ask(server.port, f"/c/{token}/", cookies[token])
                    assert status == 200, (role, status)
                    first[role].append(took)
                    again.append(ask(server.port, f"/c/{token}/", cookies[token])[0])
        finally:
            server.stop()
            os.killpg(bare.pid, signal.SIGKILL)
            bare.wait(timeout=10)
    base = statistics.median(hellos)
    print(f"{args.changes} changes, 5 links (host, 3 seats, reader), each ask on a new connection")
    print(f"{'ask':34s} {'p50 ms':>8s} {'p90 ms':>8s} {'max ms':>8s}   p50/hello")
    print(line("hello-world page", hellos, base))
    everyone = [t for times in first.values() for t in times]
    print(line("play page, first ask after a change", everyone, base))
    for role in roles:
        print(line(f"  {role}", first[role], base))
    print(line("play page, asked again", again, base))
    print(line("the change: its command answered", commands, base))
    target = statistics.median(everyone) / base
    print(f"target: first ask <= 5x hello: {target:.1f}x {'ok' if target <= 5 else 'above'}")
    end = os.getloadavg()
    print(
        "load average at the start: {:.2f} {:.2f} {:.2f}; at the end: {:.2f} {:.2f} {:.2f}"
        " (2 cores)".format(*load, *end)
    )


if __name__ == "__main__":
    main()
