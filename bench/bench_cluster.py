"""API state reads and commands per second: one server on SQLite, one and two on PostgreSQL.

All three in the same run, against real servers (`companion serve`, gunicorn, 2 workers each)
on loopback ports; PostgreSQL is a throwaway cluster in a temporary folder (as in the tests).
Each round runs CLIENTS threads for SECONDS, each on a chronicle of its own: first only state
reads, then read-and-command loops (a command counts once the server answers 200).
Prints the median of the rounds and the ratio to SQLite.

On one machine every server shares the same cores, so a second server adds no CPU: it only shows
that nothing serialises the servers. ``--pin`` runs each server on a core of its own (taskset: the
SQLite server and server A on core 0, server B on core 1), as two machines would be, while the
database and the clients use whatever is free.

    PYTHONPATH=$PWD .venv/bin/python bench/bench_cluster.py [--rounds 3] [--seconds 5] [--pin]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from pg_server import PostgresServer  # noqa: E402
from server_client import SETUP, Server, next_command, request  # noqa: E402

CLIENTS = 8


def per_second(
    ports: list[int], seconds: float, act: Callable[[int, int, random.Random], bool]
) -> float:
    """Run CLIENTS threads spread over ``ports`` for ``seconds``; successful acts per second."""
    done = [0] * CLIENTS
    deadline = time.monotonic() + seconds

    def client(n: int) -> None:
        rng = random.Random(n)
        while time.monotonic() < deadline:
            done[n] += act(n, ports[n % len(ports)], rng)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(CLIENTS)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(done) / (time.monotonic() - started)


def measure(ports: list[int], seconds: float) -> tuple[float, float]:
    """State reads per second, then commands per second (each client on a chronicle of its own,
    as players at different tables: the store's throughput, not one table's race)."""
    paths = []
    for _n in range(CLIENTS):
        status, body = request(ports[0], "POST", "/api/v1/chronicles", SETUP)
        assert status == 201, body
        paths.append(f"/api/v1/chronicles/{body['host_token']}")

    def read(n: int, port: int, _rng: random.Random) -> bool:
        return request(port, "GET", f"{paths[n]}/state")[0] == 200

    def command(n: int, port: int, rng: random.Random) -> bool:
        status, state = request(port, "GET", f"{paths[n]}/state")
        body = {"version": state["version"], "command": next_command(state, rng)}
        status, answer = request(port, "POST", f"{paths[n]}/commands", body)
        assert status == 200, (status, answer)
        return True

    return per_second(ports, seconds, read), per_second(ports, seconds, command)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--pin", action="store_true", help="one core per server (taskset)")
    args = parser.parse_args()
    core = (lambda n: ["taskset", "-c", str(n)]) if args.pin else (lambda n: [])
    cluster = PostgresServer().start()
    servers: list[Server] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            shared = {
                "COMPANION_DATABASE": cluster.fresh(),
                "COMPANION_EXPORTS_DIR": str(folder / "exports"),
                "COMPANION_PACKS_DIR": str(folder / "packs"),
            }
            lite = Server(folder / "lite.sqlite3", wrapper=core(0)).start()
            first = Server(folder / "a.sqlite3", env=shared, wrapper=core(0)).start()
            second = Server(folder / "b.sqlite3", env=shared, wrapper=core(1)).start()
            servers = [lite, first, second]
            setups = {
                "1 server, SQLite": [lite.port],
                "1 server, PostgreSQL": [first.port],
                "2 servers, PostgreSQL": [first.port, second.port],
            }
            results: dict[str, list[tuple[float, float]]] = {name: [] for name in setups}
            for _round in range(args.rounds):
                for name, ports in setups.items():  # interleaved: a busy moment hits all
                    results[name].append(measure(ports, args.seconds))
    finally:
        for server in servers:
            server.stop()
        cluster.stop()
    base_reads = statistics.median(r for r, _c in results["1 server, SQLite"])
    base_commands = statistics.median(c for _r, c in results["1 server, SQLite"])
    pinned = "; one core per server" if args.pin else ""
    print(
        f"{CLIENTS} clients, {args.rounds} rounds of {args.seconds:g} s{pinned}; medians per second"
    )
    print(f"{'setup':<24}{'state reads':>12}{'ratio':>7}{'commands':>10}{'ratio':>7}")
    for name, rows in results.items():
        reads = statistics.median(r for r, _c in rows)
        commands = statistics.median(c for _r, c in rows)
        print(
            f"{name:<24}{reads:>12.0f}{reads / base_reads:>7.2f}"
            f"{commands:>10.0f}{commands / base_commands:>7.2f}"
        )


if __name__ == "__main__":
    main()
