"""Requests/s and the latency tail of the companion's pages on the real server, against a bare
hello-world app served alike, in the same run.

Both servers are started the way `companion serve` starts (bench/hello.py serves a bare Flask
app with `companion serve`'s own server module and settings, building nothing of the
companion), so whatever worker class, workers and gunicorn settings `companion serve` uses
apply to both sides of every ratio. Each page is measured in rounds, right after a hello-world
run in the same round (interleaved), under loopback connections that stay open (wrk
--latency). The requests come from several browsers (``--browsers``, each with the session
cookie its own first visit got, in turn), as a table of phones asks, not one browser
repeating itself.

Two companion servers are measured in every round: one with the echo on (the same
request asked again while its stream stands still is answered in front of Flask,
``web/shell/echo.py``) and one with it off (``REPLAY_BYTES=0``: every request goes through
Flask, which is what the first ask of each page after a change costs). Printed per page and
server: the median time in process (Flask test client), the median req/s over the rounds and
hello-world's, the median of the per-round ratios, and p50 and p99 latency each beside
hello-world's in the same round with their ratio (median over the rounds). The machine's load
average at the start and at the end.

The pages: the version polls of a chronicle and of a card table, /healthz, the play page of a
life in progress as the host, a seat and the reader see it, the story page of a full life of 36
turning points of about 16,000 characters each, and a Traitor's Flame and an Age of Summoners
table some moves into their matches. Targets (req/s ratio to hello-world): polls >= 0.6, play
>= 0.35, tables >= 0.25, story >= 0.15; p99 <= 3x hello-world's for the pages.

    .venv/bin/python bench/bench_pages.py [--seconds 4] [--rounds 3] [--connections 32]
        [--browsers 8] [--echo on off]
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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

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
    "play, host": 0.35,
    "play, seat": 0.35,
    "play, reader": 0.35,
    "story 36x16k": 0.15,
    "traitors-flame": 0.25,
    "age-of-summoners": 0.25,
}
P99_TARGET = 3.0  # a page's p99 over hello-world's p99 in the same round, at most
# wrk's own Lua: each request carries the next browser's cookie in turn (each thread its own).
ROTATE = """
local cookies = {%s}
local n = 0
request = function()
  n = n + 1
  if #cookies == 0 then return wrk.format() end
  return wrk.format(nil, nil, {["Cookie"] = cookies[(n %% #cookies) + 1]})
end
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build(folder: Path) -> dict[str, tuple[str, str]]:
    """The database and every page measured: name -> (path, the page its browser opened first)."""
    db = folder / "bench.sqlite3"
    playing = lifegen.full_life(db, chars=2000, checks=20)
    seat, reader = other_links(db, playing)
    story = lifegen.full_life(db, chars=16000, seed=2)
    flame = lifegen.card_table(db, "traitors-flame")
    summoners = lifegen.card_table(db, "age-of-summoners")
    return {
        "healthz": ("/healthz", "/healthz"),
        "chronicle poll": (f"/c/{playing}/version", f"/c/{playing}/"),
        "table poll": (f"/t/{flame}/version", f"/t/{flame}/"),
        "play, host": (f"/c/{playing}/", f"/c/{playing}/"),
        "play, seat": (f"/c/{seat}/", f"/c/{seat}/"),
        "play, reader": (f"/c/{reader}/", f"/c/{reader}/"),
        "story 36x16k": (f"/c/{story}/story", f"/c/{story}/story"),
        "traitors-flame": (f"/t/{flame}/", f"/t/{flame}/"),
        "age-of-summoners": (f"/t/{summoners}/", f"/t/{summoners}/"),
    }


def other_links(path: Path, host: str) -> tuple[str, str]:
    """A seat's link (the second player's) and a reader's for the chronicle of ``host``."""
    from companion.store import capabilities
    from companion.store.db import connect

    db = connect(path)
    try:
        found = capabilities.resolve(db, host)
        assert found is not None
        links = (
            capabilities.issue(db, found.stream_id, "seat", 1),
            capabilities.issue(db, found.stream_id, "reader"),
        )
        db.conn.commit()
    finally:
        db.conn.close()
    return links


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
        return [_emptied(app.extensions["companion.echo"], "kept")]
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
        # The other caches serve what the echo does not answer (the first ask after a
        # change): they are measured with it off on both sides.
        echo_off = [] if cache == "answered again" else turn_off("answered again", app)
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
        for step in echo_off:
            step()
    return out


def start_companion(db: Path, port: int, echo_bytes: int | None = None) -> subprocess.Popen[bytes]:
    """`companion serve` on ``port``, as a host would run it (``echo_bytes``: its
    ``REPLAY_BYTES``, the default when None)."""
    env = {
        **os.environ,
        **({} if echo_bytes is None else {"COMPANION_REPLAY_BYTES": str(echo_bytes)}),
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


class Run(NamedTuple):
    """One wrk run: requests/s, the server's CPU ms per request, p50 and p99 latency (ms)."""

    rate: float
    cpu: float
    p50: float
    p99: float


def wrk(url: str, seconds: int, connections: int, group: int, cookies: Sequence[str] = ()) -> Run:
    """One wrk run on ``url``, each request with the next of ``cookies`` (the browsers), and
    the CPU the server (process group ``group``) used; refuses a run with any answer that is
    not 2xx."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as script:
        script.write(ROTATE % ", ".join(f'"{c}"' for c in cookies))
        script.flush()
        before = cpu_seconds(group)
        result = subprocess.run(
            ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--timeout", "20s", "--latency"]
            + ["-s", script.name, url],
            capture_output=True,
            text=True,
            check=True,
        )
        used = cpu_seconds(group) - before
    out = result.stdout
    rate = re.search(r"Requests/sec:\s+([\d.]+)", out)
    count = re.search(r"(\d+) requests in", out)
    if not rate or not count or "Non-2xx" in out or "Socket errors" in out:
        raise SystemExit(f"wrk failed on {url}:\n{out}")
    return Run(
        float(rate.group(1)),
        1000 * used / max(1, int(count.group(1))),
        percentile(out, "50"),
        percentile(out, "99"),
    )


def percentile(out: str, p: str) -> float:
    """The latency percentile ``p`` from wrk --latency's distribution (ms)."""
    found = re.search(rf"^\s+{p}(?:\.0+)?%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
    if found is None:
        raise SystemExit(f"no {p}% latency from wrk:\n{out}")
    return float(found.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[found.group(2)]


def browsers(url: str, count: int) -> list[str]:
    """The session cookies ``count`` browsers get on their first visit to ``url``."""
    return [cookie for cookie in (session_cookie(url) for _ in range(count)) if cookie]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--only", nargs="*", help="measure only these pages")
    parser.add_argument(
        "--browsers", type=int, default=8, help="browsers asking, each with its own cookie"
    )
    parser.add_argument(
        "--echo",
        nargs="+",
        choices=("on", "off"),
        default=["on", "off"],
        help="the servers measured: the echo on (the default REPLAY_BYTES) and off (0:"
        " every request goes through Flask, as the first ask of a page after a change does)",
    )
    parser.add_argument("--no-gains", action="store_true", help="skip what each cache saves")
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed: apt-get install wrk")
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        pages = build(folder)
        if args.only:
            pages = {name: page for name, page in pages.items() if name in args.only}
        times = server_times(folder / "bench.sqlite3", pages, args.repeats)
        gains = {} if args.no_gains else cache_gains(folder / "bench.sqlite3", pages, args.repeats)
        hello_port = free_port()
        servers: dict[str, tuple[int, subprocess.Popen[bytes]]] = {}
        baseline = hello.start(hello_port)
        runs: dict[tuple[str, str], list[Run]] = {}
        hellos: dict[str, list[Run]] = {name: [] for name in pages}
        try:
            for echo in args.echo:
                port = free_port()
                bytes_kept = None if echo == "on" else 0
                servers[echo] = (
                    port,
                    start_companion(folder / "bench.sqlite3", port, bytes_kept),
                )
            cookies = {}
            for echo, (port, server) in servers.items():
                base = f"http://127.0.0.1:{port}"
                for name, (path, first) in pages.items():
                    cookies[echo, name] = browsers(f"{base}{first}", args.browsers)
                    runs[echo, name] = []
                    # every worker past its first requests
                    wrk(f"{base}{path}", 2, args.connections, server.pid, cookies[echo, name])
            for _ in range(args.rounds):
                for name, (path, _first) in pages.items():
                    hello_url = f"http://127.0.0.1:{hello_port}/"
                    hellos[name].append(
                        wrk(hello_url, args.seconds, args.connections, baseline.pid)
                    )
                    for echo, (port, server) in servers.items():
                        page_url = f"http://127.0.0.1:{port}{path}"
                        runs[echo, name].append(
                            wrk(
                                *(page_url, args.seconds, args.connections, server.pid),
                                cookies[echo, name],
                            )
                        )
        finally:
            for _port, server in servers.values():
                stop(server)
            stop(baseline)
    report(args, pages, times, runs, hellos)
    print(
        f"load average at the start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; at the end: "
        + " ".join(f"{x:.2f}" for x in os.getloadavg())
        + f" ({os.cpu_count()} cores)"
    )
    if gains:
        report_gains(pages, gains)


def report(
    args: argparse.Namespace,
    pages: dict[str, tuple[str, str]],
    times: dict[str, float],
    runs: dict[tuple[str, str], list[Run]],
    hellos: dict[str, list[Run]],
) -> None:
    """One line per page and server: its times, its ratios to hello-world and the targets."""
    print(
        f"{args.connections} connections, {args.browsers} browsers (each its own cookie, in"
        f" turn), {args.rounds} rounds of {args.seconds} s per page, each right after a"
        " hello-world run (a bare Flask app served by `companion serve`'s server)"
    )
    print(
        "echo on: a page asked again while its stream stands still is answered in front of"
        " Flask; off (REPLAY_BYTES=0): every request goes through Flask"
    )
    print("ratio: req/s over hello-world's in the same round, the median of the rounds;")
    print("p50, p99: ms, hello-world's in brackets, and the median of the per-round ratios;")
    print("CPU ms/req: the server processes' CPU time per request, hello-world's in brackets")
    print(
        f"{'page':<18} {'echo':>6} {'in-process':>10} {'req/s':>7} {'hello':>7} {'ratio':>6}"
        f" {'target':>13} {'p50 ms (hello)':>16} {'p99 ms (hello)':>16} {'p99/hello':>9}"
        f" {'CPU ms/req':>15}"
    )
    echoes = sorted({echo for echo, _name in runs}, reverse=True)
    for name in pages:
        for echo in echoes:
            pairs = list(zip(runs[echo, name], hellos[name], strict=True))
            ratio = statistics.median(page.rate / base.rate for page, base in pairs)
            tail = statistics.median(page.p99 / base.p99 for page, base in pairs)
            target = TARGETS.get(name)
            verdict = (
                "" if target is None else f">= {target:.2f} {'ok' if ratio >= target else 'below'}"
            )
            tail_verdict = "" if target is None else ("ok" if tail <= P99_TARGET else "above")

            def med(runs_of: list[Run], field: str) -> float:
                return statistics.median(getattr(run, field) for run in runs_of)

            ours, theirs = runs[echo, name], hellos[name]
            p50 = f"{med(ours, 'p50'):.1f} ({med(theirs, 'p50'):.1f})"
            p99 = f"{med(ours, 'p99'):.1f} ({med(theirs, 'p99'):.1f})"
            cpu = f"{med(ours, 'cpu'):.3f} ({med(theirs, 'cpu'):.3f})"
            print(
                f"{name:<18} {echo:>6} {times[name]:>10.2f} {med(ours, 'rate'):>7.0f}"
                f" {med(theirs, 'rate'):>7.0f} {ratio:>6.2f} {verdict:>13} {p50:>16} {p99:>16}"
                f" {f'{tail:.1f} {tail_verdict}':>9} {cpu:>15}"
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
