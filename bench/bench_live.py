"""Live updates and API load on the real server (`companion serve`: gunicorn, threaded workers).

1. Requests/s and p50/p99 latency of the table page and of GET /api/v1/.../state, next to the
   hello-world route /healthz, under 32 loopback connections (wrk), in the same run.
2. Time from a command to all 50 watching clients seeing it: each watcher polls the version
   every 500 ms and fetches the page fragment when it changes, as the play page's script does.
   Reported as p50 and p99 over every (command, watcher) pair; then the same while PDF exports
   run in the background.

    .venv/bin/python bench/bench_live.py [--watchers 50] [--commands 20]
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from server_client import SETUP, Server, next_command, request  # noqa: E402

POLL = 0.5


def wrk(url: str, seconds: int) -> tuple[float, float, float]:
    """Requests/s, p50 and p99 latency (ms) from wrk --latency."""
    out = subprocess.run(
        ["wrk", "-t2", "-c32", f"-d{seconds}s", "--latency", url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]

    def pct(p: str) -> float:
        value, unit = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", out).groups()  # type: ignore[union-attr]
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]

    if "Non-2xx" in out:
        raise SystemExit(f"errors from {url}:\n{out}")
    return rate, pct("50"), pct("99")


def watch(
    port: int, token: str, seen: dict[int, list[float]], stop: threading.Event, start: float
) -> None:
    """Poll like the play page: version every 500 ms, the fragment when it changed."""
    version = -1
    time.sleep(POLL * (time.monotonic() - start) % POLL)
    while not stop.is_set():
        status, body = request(port, "GET", f"/c/{token}/version")
        if status == 200 and body["version"] != version:
            request(port, "GET", f"/c/{token}/?fragment=1")
            version = body["version"]
            seen.setdefault(version, []).append(time.monotonic())
        stop.wait(POLL)


def live_latency(port: int, token: str, watchers: int, commands: int) -> list[float]:
    seen: dict[int, list[float]] = {}
    stop = threading.Event()
    start = time.monotonic()
    threads = [
        threading.Thread(target=watch, args=(port, token, seen, stop, start + i * POLL / watchers))
        for i in range(watchers)
    ]
    for t in threads:
        t.start()
    time.sleep(2)
    sent: dict[int, float] = {}
    import random

    rng = random.Random(1)
    for _ in range(commands):
        _status, state = request(port, "GET", f"/api/v1/chronicles/{token}/state")
        before = time.monotonic()
        status, body = request(
            port,
            "POST",
            f"/api/v1/chronicles/{token}/commands",
            {"version": state["version"], "command": next_command(state, rng)},
        )
        if status == 200:
            sent[body["version"]] = before
        time.sleep(1.5)
    stop.set()
    for t in threads:
        t.join()
    return [(when - sent[v]) * 1000 for v, times in seen.items() if v in sent for when in times]


def start_exports(port: int, token: str, stop: threading.Event) -> None:
    """Keep asking for PDF books of the newest version while the watchers measure."""
    while not stop.is_set():
        request(
            port,
            "POST",
            f"/api/v1/chronicles/{token}/exports",
            {"format": "pdf", "edition": "annotated", "paper": "a4"},
        )
        stop.wait(1.0)


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--watchers", type=int, default=50)
    parser.add_argument("--commands", type=int, default=20)
    parser.add_argument("--seconds", type=int, default=6)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed: apt-get install wrk")
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "live.sqlite3").start()
        try:
            _status, body = request(server.port, "POST", "/api/v1/chronicles", SETUP)
            token = body["host_token"]
            base = f"http://127.0.0.1:{server.port}"
            rows = {
                "hello": wrk(f"{base}/healthz", args.seconds),
                "table page": wrk(f"{base}/c/{token}/", args.seconds),
                "API state": wrk(f"{base}/api/v1/chronicles/{token}/state", args.seconds),
            }
            quiet = live_latency(server.port, token, args.watchers, args.commands)
            stop = threading.Event()
            exporter = threading.Thread(target=start_exports, args=(server.port, token, stop))
            exporter.start()
            busy = live_latency(server.port, token, args.watchers, args.commands)
            stop.set()
            exporter.join()
        finally:
            server.stop()
    print(f"{'route':<12} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'ratio':>7}")
    for name, (rate, p50, p99) in rows.items():
        print(f"{name:<12} {rate:>8.0f} {p50:>8.1f} {p99:>8.1f} {rate / rows['hello'][0]:>7.2f}")
    for label, values in (("idle", quiet), ("PDF exports running", busy)):
        print(
            f"command -> all {args.watchers} watchers see it ({label}): n={len(values)}"
            f" p50 {statistics.median(values):.0f} ms, p99 {pct(values, 99):.0f} ms"
        )


if __name__ == "__main__":
    main()
