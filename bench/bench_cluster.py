"""API state reads and commands per second: one server on SQLite, one and two on PostgreSQL.

All three in the same run, against real servers (`companion serve`, gunicorn, 2 workers each)
on loopback ports; PostgreSQL is a throwaway cluster in a temporary folder (as in the tests).
Each round runs CLIENTS threads for SECONDS, each on a chronicle of its own: first only state
reads, then read-and-command loops (a command counts once the server answers 200).
Prints the median of the rounds and the ratio to SQLite.

On one machine every server shares the same cores, so a second server adds no CPU: it only shows
that nothing serialises the servers. Two ways to give each server CPU of its own, as two machines
would:

- ``--cpu-quota 0.3`` caps each app server (its gunicorn master, workers and export pool) at 0.3
  of a core with a cgroup of its own, leaving PostgreSQL and the clients the rest. It needs root
  and the ``cpu`` controller: cgroup v1 (``/sys/fs/cgroup/cpu``, ``cpu.cfs_quota_us`` over
  ``cpu.cfs_period_us``, as on this machine) or v2 (``cpu.max``). Then two servers should give
  about twice one server; the bench prints which cgroup it used and how often each was throttled.
- ``--pin`` (where no cgroup can be made) runs each server on a core of its own (taskset: the
  SQLite server and server A on core 0, server B on core 1), while the database and the clients
  use whatever is free.

    PYTHONPATH=$PWD .venv/bin/python bench/bench_cluster.py [--rounds 3] [--seconds 5]
        [--cpu-quota 0.3 | --pin]
"""

from __future__ import annotations

import argparse
import os
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
PERIOD_US = 100_000
V1 = Path("/sys/fs/cgroup/cpu")
V2 = Path("/sys/fs/cgroup")


class CpuCap:
    """A cgroup that holds one server (and everything it starts) to ``cores`` of CPU."""

    def __init__(self, name: str, cores: float) -> None:
        quota = int(cores * PERIOD_US)
        controllers = V2 / "cgroup.controllers"
        if controllers.exists() and "cpu" in controllers.read_text().split():
            self.kind = "cgroup v2, cpu.max"
            self.path = V2 / name
            self.path.mkdir()
            (self.path / "cpu.max").write_text(f"{quota} {PERIOD_US}")
        elif (V1 / "cpu.cfs_quota_us").exists():
            self.kind = "cgroup v1, cpu.cfs_quota_us"
            self.path = V1 / name
            self.path.mkdir()
            (self.path / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (self.path / "cpu.cfs_quota_us").write_text(str(quota))
        else:
            raise SystemExit("no cgroup cpu controller here (root is needed): use --pin instead")

    def wrapper(self) -> list[str]:
        """A command prefix that moves the command into this cgroup before it starts."""
        procs = self.path / "cgroup.procs"
        return ["sh", "-c", f'echo $$ > {procs} && exec "$@"', "sh"]

    def throttled(self) -> str:
        stat = dict(
            line.split() for line in (self.path / "cpu.stat").read_text().splitlines() if line
        )
        return f"{self.path.name}: throttled in {stat.get('nr_throttled', '?')} of {stat.get('nr_periods', '?')} periods"

    def remove(self) -> None:
        try:
            self.path.rmdir()
        except OSError as err:
            print(f"could not remove {self.path}: {err}")


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
    parser.add_argument(
        "--cpu-quota", type=float, default=None, help="cores each server may use (cgroup)"
    )
    args = parser.parse_args()
    caps: list[CpuCap] = []
    if args.cpu_quota is not None:
        caps = [CpuCap(f"companion-bench-{os.getpid()}-{n}", args.cpu_quota) for n in range(3)]
        core = lambda n: caps[n].wrapper()  # noqa: E731 - one cgroup per server
    elif args.pin:
        core = lambda n: ["taskset", "-c", str(min(n, 1))]  # noqa: E731
    else:
        core = lambda n: []  # noqa: E731
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
            try:  # the servers stop before their folder goes (their export pools write there)
                lite = Server(folder / "lite.sqlite3", wrapper=core(0)).start()
                servers.append(lite)
                first = Server(folder / "a.sqlite3", env=shared, wrapper=core(1)).start()
                servers.append(first)
                second = Server(folder / "b.sqlite3", env=shared, wrapper=core(2)).start()
                servers.append(second)
                setups = {
                    "1 server, SQLite": [lite.port],
                    "1 server, PostgreSQL": [first.port],
                    "2 servers, PostgreSQL": [first.port, second.port],
                }
                results: dict[str, list[tuple[float, float]]] = {name: [] for name in setups}
                for _round in range(args.rounds):
                    for name, ports in setups.items():  # interleaved: a busy moment hits all
                        results[name].append(measure(ports, args.seconds))
                throttling = [cap.throttled() for cap in caps]
            finally:
                for server in servers:
                    server.stop()
    finally:
        cluster.stop()
        for cap in caps:
            cap.remove()
    base_reads = statistics.median(r for r, _c in results["1 server, SQLite"])
    base_commands = statistics.median(c for _r, c in results["1 server, SQLite"])
    if caps:
        limit = f"; each server capped at {args.cpu_quota:g} of a core ({caps[0].kind})"
    else:
        limit = "; one core per server (taskset)" if args.pin else "; no CPU limit"
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(
        f"{CLIENTS} clients, {args.rounds} rounds of {args.seconds:g} s{limit}; medians per second"
    )
    print(f"load average at the end: {load} ({os.cpu_count()} cores)")
    print(f"{'setup':<24}{'state reads':>12}{'ratio':>7}{'commands':>10}{'ratio':>7}")
    for name, rows in results.items():
        reads = statistics.median(r for r, _c in rows)
        commands = statistics.median(c for _r, c in rows)
        print(
            f"{name:<24}{reads:>12.0f}{reads / base_reads:>7.2f}"
            f"{commands:>10.0f}{commands / base_commands:>7.2f}"
        )
    one, two = results["1 server, PostgreSQL"], results["2 servers, PostgreSQL"]
    reads = statistics.median(r for r, _c in two) / statistics.median(r for r, _c in one)
    commands = statistics.median(c for _r, c in two) / statistics.median(c for _r, c in one)
    print(f"two servers / one server on PostgreSQL: reads {reads:.2f}x, commands {commands:.2f}x")
    for line in throttling:
        print(line)


if __name__ == "__main__":
    main()
