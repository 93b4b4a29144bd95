"""How soon a page sees a command: on the server that took it, and on a second server.

Two real servers (`companion serve`) share one throwaway PostgreSQL store. Each sample sends one
command to server A through the JSON API, then polls a chronicle page's version address (as the
play page does, without its pause between polls) until the new version shows: on server A itself
(the baseline) or on server B. Samples alternate between the two, so load on the machine skews
both alike. Prints the median, the 90th percentile and the slowest of each, and the ratio of the
medians; a page open on one server should see the other's command well within a second.

    PYTHONPATH=$PWD .venv/bin/python bench/bench_seen.py [--samples 60]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from pg_server import PostgresServer  # noqa: E402
from server_client import SETUP, Server, next_command, request, send  # noqa: E402


def seen_after(made_on: int, polled_on: int, token: str, rng: random.Random) -> float:
    """Seconds from sending a command to ``made_on`` until ``polled_on`` shows its version."""
    status, state = request(made_on, "GET", f"/api/v1/chronicles/{token}/state")
    assert status == 200, state
    started = time.perf_counter()
    status, body = send(made_on, token, state["version"], next_command(state, rng))
    assert status == 200, body
    while True:
        status, seen = request(polled_on, "GET", f"/c/{token}/version")
        if status == 200 and seen["version"] >= body["version"]:
            return time.perf_counter() - started


def summary(name: str, seconds: list[float], base: float) -> str:
    ordered = sorted(seconds)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    median = statistics.median(ordered)
    return (
        f"{name:<22}{median * 1000:>9.1f}{p90 * 1000:>9.1f}{ordered[-1] * 1000:>9.1f}"
        f"{median / base:>7.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=60, help="samples of each setup")
    args = parser.parse_args()
    cluster = PostgresServer().start()
    servers: list[Server] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            shared = {
                "COMPANION_DATABASE": cluster.fresh(),
                "COMPANION_EXPORTS_DIR": str(folder / "exports"),
                "COMPANION_PACKS_DIR": str(folder / "packs"),
                "COMPANION_SESSION_COOKIE_SECURE": "false",
            }
            a = Server(folder / "a.sqlite3", env=shared).start()
            b = Server(folder / "b.sqlite3", env=shared).start()
            servers = [a, b]
            status, created = request(a.port, "POST", "/api/v1/chronicles", SETUP)
            assert status == 201, created
            token, rng = created["host_token"], random.Random(7)
            same: list[float] = []
            other: list[float] = []
            for _ in range(args.samples):  # interleaved: a busy moment hits both
                same.append(seen_after(a.port, a.port, token, rng))
                other.append(seen_after(a.port, b.port, token, rng))
    finally:
        for server in servers:
            server.stop()
        cluster.stop()
    base = statistics.median(same)
    print(f"{args.samples} samples each; milliseconds from a command to a page showing it")
    print(f"{'page on':<22}{'median':>9}{'p90':>9}{'slowest':>9}{'ratio':>7}")
    print(summary("the same server", same, base))
    print(summary("the other server", other, base))


if __name__ == "__main__":
    main()
