"""Requests/s of the companion's pages on the real server, against a hello-world app served alike.

Both servers are started the way `companion serve` starts (bench/hello.py runs that same command
with a bare WSGI hello-world app in place of the companion), so whatever worker class, workers
and threads `companion serve` uses apply to both sides of every ratio. Each page is measured in
rounds, right after a hello-world run in the same round (interleaved), under loopback
connections that stay open (wrk); every request carries the session cookie the page's browser
got on its first visit. Printed per page: the median time in process (Flask test client), the
median req/s over the rounds, hello-world's median, and the median of the per-round ratios.

The pages: the version polls of a chronicle and of a card table, /healthz, the play page of a
life in progress, the story page of a full life of 36 turning points of about 16,000 characters
each, and a Traitor's Flame and an Age of Summoners table some moves into their matches.
Targets (ratio to hello-world): polls >= 0.6, play >= 0.35, tables >= 0.25, story >= 0.15.

    .venv/bin/python bench/bench_pages.py [--seconds 4] [--rounds 3] [--connections 32]
        [--replay-bytes 0]

The same request asked again is answered in front of Flask while its stream stands still
(``web/shell/replay.py``); ``--replay-bytes 0`` measures every request through Flask instead,
which is what the first ask of each page after a change costs.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import hello  # noqa: E402
import lifegen  # noqa: E402
from flask import Flask  # noqa: E402

from companion.app import create_app
from companion.streams import chronicles, matches
from companion.text import markdown as text  # noqa: E402
from companion.text.bytecache import ByteLRU  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {
    "chronicle poll": 0.6,
    "table poll": 0.6,
    "play": 0.35,
    "story 36x16k": 0.15,
    "traitors-flame": 0.25,
    "age-of-summoners": 0.25,
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build(folder: Path) -> dict[str, tuple[str, str]]:
    """The database and every page measured: name -> (path, the page its browser opened first)."""
    db = folder / "bench.sqlite3"
    playing = lifegen.full_life(db, chars=2000, checks=20)
    story = lifegen.full_life(db, chars=16000, seed=2)
    flame = lifegen.card_table(db, "traitors-flame")
    summoners = lifegen.card_table(db, "age-of-summoners")
    return {
        "healthz": ("/healthz", "/healthz"),
        "chronicle poll": (f"/c/{playing}/version", f"/c/{playing}/"),
        "table poll": (f"/t/{flame}/version", f"/t/{flame}/"),
        "play": (f"/c/{playing}/", f"/c/{playing}/"),
        "story 36x16k": (f"/c/{story}/story", f"/c/{story}/story"),
        "traitors-flame": (f"/t/{flame}/", f"/t/{flame}/"),
        "age-of-summoners": (f"/t/{summoners}/", f"/t/{summoners}/"),
    }


def server_times(db: Path, pages: dict[str, tuple[str, str]], repeats: int) -> dict[str, float]:
    """Median in-process time of each page (ms), after one warm-up request."""
    app = create_app({"DATABASE": str(db), "SECRET_KEY": "bench", "TESTING": False})
    out = {}
    for name, (path, first) in pages.items():
        client = app.test_client()
        client.get(first)
        client.get(path)
        samples = []
        for _ in range(repeats):
            start = time.perf_counter()
            response = client.get(path)
            samples.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 200, (path, response.status_code)
        out[name] = statistics.median(samples)
    return out


def _emptied(holder: Any, attribute: str) -> Callable[[], None]:
    """Replace the cache ``holder.attribute`` (or ``holder[attribute]``) by one that keeps
    nothing; gives back the undo."""
    item = isinstance(holder, dict)
    kept = holder[attribute] if item else getattr(holder, attribute)
    if item:
        holder[attribute] = ByteLRU(0)
        return lambda: holder.__setitem__(attribute, kept)
    setattr(holder, attribute, ByteLRU(0))
    return lambda: setattr(holder, attribute, kept)


def turn_off(cache: str, app: Flask) -> list[Callable[[], None]]:
    """Turn one of the ``CACHES`` off in ``app``; the steps that turn it on again."""
    if cache == "answered again":
        return [_emptied(app.extensions["companion.replay"], "kept")]
    if cache == "pages":
        return [_emptied(app.extensions, "companion.render_cache")]
    if cache == "pages and Markdown":
        return [*turn_off("pages", app), _emptied(text, "_cache")]
    if cache == "CSRF signatures":
        return [_emptied(app.extensions, "companion.signed_csrf")]
    if cache == "opened cookies":
        return [_emptied(app.session_interface, "opened")]
    if cache == "replayed states":
        return [_emptied(chronicles, "CACHE"), _emptied(matches, "CACHE")]
    if cache == "healthz's probe":
        app.config["HEALTH_PROBE_SECONDS"] = 0
        return [lambda: app.config.__setitem__("HEALTH_PROBE_SECONDS", 1.0)]
    raise ValueError(cache)


CACHES = (
    "answered again",
    "pages",
    "pages and Markdown",
    "CSRF signatures",
    "opened cookies",
    "replayed states",
    "healthz's probe",
)


def cache_gains(
    db: Path, pages: dict[str, tuple[str, str]], repeats: int
) -> dict[str, dict[str, tuple[float, float]]]:
    """Each page's median in-process ms with each cache on and off, the two interleaved."""
    app = create_app({"DATABASE": str(db), "SECRET_KEY": "bench", "TESTING": False})
    clients = {}
    for name, (_path, first) in pages.items():
        clients[name] = app.test_client()
        clients[name].get(first)

    def timed(client: Any, path: str) -> float:
        start = time.perf_counter()
        client.get(path)
        return (time.perf_counter() - start) * 1000

    out: dict[str, dict[str, tuple[float, float]]] = {}
    for cache in CACHES:
        out[cache] = {}
        # The other caches serve what the replay does not answer (the first ask after a
        # change): they are measured with it off on both sides.
        replay_off = [] if cache == "answered again" else turn_off("answered again", app)
        for name, (path, _first) in pages.items():
            on, off = [], []
            for _ in range(repeats):
                clients[name].get(path)  # kept again, for the next view with the cache on
                on.append(timed(clients[name], path))
                undo = turn_off(cache, app)
                try:
                    off.append(timed(clients[name], path))
                finally:
                    for step in undo:
                        step()
            out[cache][name] = (statistics.median(on), statistics.median(off))
        for step in replay_off:
            step()
    return out


def start_companion(
    db: Path, port: int, replay_bytes: int | None = None
) -> subprocess.Popen[bytes]:
    """`companion serve` on ``port``, as a host would run it (``replay_bytes``: its
    ``REPLAY_BYTES``, the default when None)."""
    env = {
        **os.environ,
        **({} if replay_bytes is None else {"COMPANION_REPLAY_BYTES": str(replay_bytes)}),
        "COMPANION_DATABASE": str(db),
        "COMPANION_SECRET_KEY": "bench",
        "COMPANION_EXPORTS_DIR": str(db.parent / "exports"),
    }
    process = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "companion"), "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    hello.wait_until_up(f"http://127.0.0.1:{port}/healthz", process)
    return process


def stop(process: subprocess.Popen[bytes]) -> None:
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=5)


def session_cookie(url: str) -> str:
    """The cookie a browser gets on its first visit (players' browsers send it back)."""
    with urllib.request.urlopen(url, timeout=30) as response:
        cookie = response.headers.get("Set-Cookie", "")
    return cookie.split(";", 1)[0]


def cpu_seconds(group: int) -> float:
    """The CPU time (user and system) every process of process group ``group`` has used."""
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        if int(fields[2]) == group:  # after the name: state, ppid, pgrp; utime, stime at 11, 12
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def wrk(
    url: str, seconds: int, connections: int, group: int, cookie: str = ""
) -> tuple[float, float]:
    """Requests/s from wrk, and the CPU milliseconds per request of the server (process group
    ``group``); refuses a run with any answer that is not 2xx."""
    headers = ["-H", f"Cookie: {cookie}"] if cookie else []
    before = cpu_seconds(group)
    result = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--timeout", "20s", *headers, url],
        capture_output=True,
        text=True,
        check=True,
    )
    used = cpu_seconds(group) - before
    rate = re.search(r"Requests/sec:\s+([\d.]+)", result.stdout)
    count = re.search(r"(\d+) requests in", result.stdout)
    if not rate or not count or "Non-2xx" in result.stdout or "Socket errors" in result.stdout:
        raise SystemExit(f"wrk failed on {url}:\n{result.stdout}")
    return float(rate.group(1)), 1000 * used / max(1, int(count.group(1)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--only", nargs="*", help="measure only these pages")
    parser.add_argument(
        "--replay-bytes",
        type=int,
        help="the server's REPLAY_BYTES (0: every request goes through Flask, as the first ask"
        " of a page after a change does)",
    )
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed: apt-get install wrk")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        pages = build(folder)
        if args.only:
            pages = {name: page for name, page in pages.items() if name in args.only}
        times = server_times(folder / "bench.sqlite3", pages, args.repeats)
        gains = cache_gains(folder / "bench.sqlite3", pages, args.repeats)
        port, hello_port = free_port(), free_port()
        server = start_companion(folder / "bench.sqlite3", port, args.replay_bytes)
        baseline = hello.start(hello_port, folder / "hello" / "hello.sqlite3")
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in pages}
        hellos: dict[str, list[tuple[float, float]]] = {name: [] for name in pages}
        try:
            base = f"http://127.0.0.1:{port}"
            cookies = {name: session_cookie(f"{base}{first}") for name, (_, first) in pages.items()}
            for name, (path, _first) in pages.items():  # every worker past its first requests
                wrk(f"{base}{path}", 2, args.connections, server.pid, cookies[name])
            for _ in range(args.rounds):
                for name, (path, _first) in pages.items():
                    hello_url = f"http://127.0.0.1:{hello_port}/"
                    hellos[name].append(
                        wrk(hello_url, args.seconds, args.connections, baseline.pid)
                    )
                    page_url = f"{base}{path}"
                    runs[name].append(
                        wrk(page_url, args.seconds, args.connections, server.pid, cookies[name])
                    )
        finally:
            stop(server)
            stop(baseline)
    report(args, pages, times, runs, hellos)
    report_gains(pages, gains)


def report(
    args: argparse.Namespace,
    pages: dict[str, tuple[str, str]],
    times: dict[str, float],
    runs: dict[str, list[tuple[float, float]]],
    hellos: dict[str, list[tuple[float, float]]],
) -> None:
    """One line per page: its times, its ratio to hello-world and whether it meets its target."""
    print(
        f"{args.connections} connections, {args.rounds} rounds of {args.seconds} s per page,"
        " each right after a hello-world run (a bare WSGI app served by `companion serve`)"
    )
    replay = "the default" if args.replay_bytes is None else str(args.replay_bytes)
    print(
        f"the server's REPLAY_BYTES: {replay} (a page asked again while its stream stands still"
        " is answered in front of Flask; 0: every request goes through Flask)"
    )
    print("ratio: req/s over hello-world's in the same round, the median of the rounds;")
    print("CPU ms/req: the server processes' CPU time per request, hello-world's in brackets")
    print(
        f"{'page':<18} {'in-process ms':>13} {'req/s':>8} {'hello req/s':>12} {'ratio':>6}"
        f" {'target':>13} {'CPU ms/req':>17}"
    )
    for name in pages:
        pairs = list(zip(runs[name], hellos[name], strict=True))
        ratio = statistics.median(page[0] / hello[0] for page, hello in pairs)
        target = TARGETS.get(name)
        verdict = (
            "" if target is None else f">= {target:.2f} {'ok' if ratio >= target else 'below'}"
        )
        cpu = statistics.median(page[1] for page, _ in pairs)
        hello_cpu = statistics.median(hello[1] for _, hello in pairs)
        print(
            f"{name:<18} {times[name]:>13.2f} {statistics.median(r for r, _ in runs[name]):>8.0f}"
            f" {statistics.median(h for h, _ in hellos[name]):>12.0f} {ratio:>6.2f}"
            f" {verdict:>13} {cpu:>8.3f} ({hello_cpu:.3f})"
        )


def report_gains(
    pages: dict[str, tuple[str, str]], gains: dict[str, dict[str, tuple[float, float]]]
) -> None:
    """What each cache saves: each page's in-process ms with it off, over the ms with it on."""
    print()
    print("what each cache saves: in-process ms with the cache off / on, interleaved")
    print("(every cache but the first measured with no request answered again, on both sides)")
    names = list(pages)
    print(f"{'cache':<20}" + "".join(f" {name[:21]:>21}" for name in names))
    for cache in CACHES:
        cells = "".join(
            f" {f'{off:.2f}/{on:.2f} {off / on:.1f}x':>21}"
            for on, off in (gains[cache][n] for n in names)
        )
        print(f"{cache:<20}{cells}")


if __name__ == "__main__":
    main()
