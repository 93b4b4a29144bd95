"""Live pages on the real server (`companion serve`), against a bare hello-world app in the same run.

The baseline is ``bench/hello_app.py`` served by the same gunicorn worker class and settings as
`companion serve` (gevent workers, two of them): requests/s of its ``/`` and, for the live part,
its minimal server-sent-events feed pushing a number the bench signals.

1. Requests/s (wrk, 32 loopback connections): hello, the version endpoint, the play page and
   the API's state, interleaved round by round; medians and the ratio to hello.
2. The last watcher to hold each change. WATCHERS clients, spread in turn over a real table's
   five links (the host's, one per seat of three players, the reader's; once more all on the
   host's one link, for the figure beside it), each load the play page (keeping the
   session cookie it sets, as a browser does) and hold its feed (``/c/<t>/events?part=play``)
   as the play page's script does: a change that comes with the page's part is shown from it
   (its secrets filled in); one that does not is fetched over a kept-alive connection of the
   watcher's own with that cookie. For each command, the time from sending it to the moment
   the *last* watcher holds the new fragment; p50/p99 over the commands. Once more idle with
   feeds that carry no part (every watcher fetches the fragment: the fallback's cost). Idle, then while books are made (one PDF at a time, each waited for: the bench
   leaves no job behind). The same for the bare push, whose watchers fetch hello, idle and
   while the companion makes the same books (the machine as busy for both).
   Every watcher comes from one address, so the bounds on feeds per link and per address
   are lifted for the bench. The machine's load average at the start and at the end. For
   each run of the app, what its workers did for a change's pages and parts, read from its
   ``/metrics`` (``companion_shared_pages_total``): made, kept, waited for, unclaimed.
3. What idle watchers cost: the server's CPU (master, workers, export supervisor) over a quiet
   spell with no watcher, then with WATCHERS idle feeds open.

    .venv/bin/python bench/bench_live.py [--watchers 200] [--many 1000] [--commands 30]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from server_client import SETUP, Server, free_port, next_command, request  # noqa: E402

from companion.ops import server as serve  # noqa: E402
from companion.store.signal import send_local  # noqa: E402

FEEDS_UNBOUNDED = {
    "COMPANION_STREAMS_PER_LINK": "100000",
    "COMPANION_STREAMS_PER_ADDRESS": "100000",
}
METRICS = "bench-metrics"  # the server's /metrics, read for the pages each change made
SHARED = re.compile(r'^companion_shared_pages_total\{how="(\w+)"\} (\S+)$', re.M)
WAIT = 20.0  # seconds a change may take to reach every watcher before it counts as missed


def wrk(url: str, seconds: int) -> tuple[float, float, float]:
    """Requests/s, p50 and p99 latency (ms) from wrk --latency."""
    out = subprocess.run(
        ["wrk", "-t2", "-c32", f"-d{seconds}s", "--latency", url],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    if "Non-2xx" in out:
        raise SystemExit(f"errors from {url}:\n{out}")
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]

    def pct(p: str) -> float:
        value, unit = re.search(rf"\s{p}%\s+([\d.]+)(us|ms|s)", out).groups()  # type: ignore[union-attr]
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]

    return rate, pct("50"), pct("99")


class Hello:
    """The bare app under the same gunicorn worker class and settings as `companion serve`."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.signal = str(folder / "hello-signal")
        env = {**os.environ, "HELLO_SIGNAL": self.signal, "PYTHONPATH": f"{ROOT}:{ROOT / 'bench'}"}
        gunicorn = Path(sys.executable).parent / "gunicorn"
        self.process = subprocess.Popen(
            [
                *(str(gunicorn), "--bind", f"127.0.0.1:{self.port}", "--workers", "2"),
                *("--worker-class", "companion.ops.server.Worker"),
                *("--worker-connections", str(serve.CONNECTIONS)),
                *("--keep-alive", str(serve.HEAD_TIMEOUT), "--log-level", "warning"),
                "hello_app:app",
            ],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if request(self.port, "GET", "/")[0] == 200:
                    return
            except OSError:
                time.sleep(0.1)
        raise SystemExit("the hello app did not start")

    def stop(self) -> None:
        os.killpg(self.process.pid, 3)  # SIGQUIT: at once, open feeds and all
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:  # a worker stuck in a feed: the group goes at once
            os.killpg(self.process.pid, 9)
            self.process.wait(timeout=10)


# --- watchers: asyncio clients holding a feed and a kept-alive connection each -------------


Seen = dict[str, dict[int, list[float]]]  # "event"/"fragment" -> version -> when, per watcher


class Watcher:
    """One page: a held live feed and a kept-alive connection for its fragment."""

    def __init__(self, port: int, events: str, fragment: str, seen: Seen) -> None:
        self.port, self.events, self.fragment, self.seen = port, events, fragment, seen
        self.shown = -1
        self.cookie = ""
        self.secrets: dict[str, str] = {}
        self.html = b""  # the live part shown last
        self.fetcher: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        self.ready = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def run(self) -> None:
        await self.open_page()
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        writer.write(f"GET {self.events} HTTP/1.1\r\n{self.head()}\r\n".encode())
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        if b" 200 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError(f"no feed: {head[:80]!r}")
        buffer = b""
        try:
            while True:
                size = int((await reader.readline()).strip() or b"0", 16)  # chunked
                if size == 0:
                    return
                buffer += (await reader.readexactly(size + 2))[:-2]  # less the chunk's CRLF
                while b"\n\n" in buffer:
                    block, buffer = buffer.split(b"\n\n", 1)
                    await self.on_event(block)
        finally:
            writer.close()

    async def on_event(self, block: bytes) -> None:
        lines = block.decode().split("\n")
        name = next((line[7:] for line in lines if line.startswith("event: ")), "message")
        if name not in ("message", "part"):
            return  # a ping
        data = "\n".join(line[6:] for line in lines if line.startswith("data: "))
        if not data.strip():
            return
        said = json.loads(data)
        answer = said["answer"] if name == "part" else said
        version = answer["version"] if isinstance(answer, dict) else int(answer)
        if self.shown < 0:
            self.shown = version  # the page is already showing this one
            self.ready.set()
            return
        if version != self.shown:
            self.seen["event"].setdefault(version, []).append(time.monotonic())
            if name == "part":  # shown from the event, as live.js fills it
                names = said["secrets"]
                self.html = "".join(
                    p if isinstance(p, str) else self.secrets[names[p]] for p in said["parts"]
                ).encode()
            else:
                await self.fetch()
            self.shown = version
            self.seen["fragment"].setdefault(version, []).append(time.monotonic())

    def head(self) -> str:
        """The request headers a browser sends: the host, and the cookie its first visit got
        (the page's feed and its fetches send it, as they are same-origin requests)."""
        cookie = f"Cookie: {self.cookie}\r\n" if self.cookie else ""
        return f"Host: 127.0.0.1\r\n{cookie}"

    async def open_page(self) -> None:
        """Load the page first, as a browser does before its script opens the feed."""
        head, body = await self.get(self.fragment.split("?", 1)[0])
        found = re.search(rb"(?im)^set-cookie: ([^;\r\n]+)", head)
        self.cookie = found.group(1).decode() if found else ""
        csrf = re.search(rb'data-csrf="([^"]+)"', body)
        link = re.search(rb"/c/([^/]+)/", self.fragment.encode())
        if csrf and link:
            self.secrets = {"csrf": csrf.group(1).decode(), "link": link.group(1).decode()}

    async def fetch(self) -> None:
        _head, self.html = await self.get(self.fragment)

    async def get(self, path: str) -> tuple[bytes, bytes]:
        """GET ``path`` on the kept-alive connection; its answer's head and body."""
        for _attempt in range(2):
            try:
                if self.fetcher is None:
                    self.fetcher = await asyncio.open_connection("127.0.0.1", self.port)
                reader, writer = self.fetcher
                writer.write(f"GET {path} HTTP/1.1\r\n{self.head()}\r\n".encode())
                await writer.drain()
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(re.search(rb"(?i)content-length: (\d+)", head).group(1))  # type: ignore[union-attr]
                body = await reader.readexactly(length)
                if b" 200 " not in head.split(b"\r\n", 1)[0]:
                    raise RuntimeError(f"{path} answered {head[:40]!r}")
                return head, body
            except (ConnectionError, asyncio.IncompleteReadError):
                self.fetcher = None  # the server closed the idle connection: open another
        raise RuntimeError(f"{path}: the connection closed twice")


Links = list[tuple[str, str]]  # per link: its live feed and its live part's fragment


async def open_watchers(port: int, links: Links, count: int) -> tuple[list[Watcher], Seen]:
    """``count`` watchers, spread over ``links`` in turn (as a table's phones are)."""
    seen: Seen = {"event": {}, "fragment": {}}
    watchers = [Watcher(port, *links[n % len(links)], seen) for n in range(count)]
    for i, watcher in enumerate(watchers):
        watcher.task = asyncio.create_task(watcher.run())
        if i % 50 == 49:
            await asyncio.sleep(0.05)  # as pages open, not all in one instant
    await asyncio.wait_for(asyncio.gather(*(w.ready.wait() for w in watchers)), 120)
    return watchers, seen


async def close_watchers(watchers: list[Watcher]) -> None:
    for watcher in watchers:
        if watcher.task is not None:
            watcher.task.cancel()
        if watcher.fetcher is not None:
            watcher.fetcher[1].close()
    await asyncio.gather(*(w.task for w in watchers if w.task), return_exceptions=True)


Run = dict[str, tuple[list[float], int]]  # "event"/"fragment" -> (last watcher's ms, missed)


async def last_watcher(watchers: list[Watcher], seen: Seen, changes: int, change: object) -> Run:
    """For each change made by ``change()`` (which returns the new version and when it was
    sent), the ms until the last watcher had its event, and until the last held the fragment;
    and how many changes some watcher missed."""
    lasts: dict[str, list[float]] = {"event": [], "fragment": []}
    missed = {"event": 0, "fragment": 0}
    for _ in range(changes):
        version, sent = await asyncio.to_thread(change)  # type: ignore[arg-type]
        deadline = time.monotonic() + WAIT
        held = seen["fragment"]
        while len(held.get(version, ())) < len(watchers) and time.monotonic() < deadline:
            await asyncio.sleep(0.002)
        for kind in ("event", "fragment"):
            times = seen[kind].get(version, [])
            if len(times) < len(watchers):
                missed[kind] += 1
            else:
                lasts[kind].append((max(times) - sent) * 1000)
        # A table's changes come seconds apart; these come just past the gap a feed keeps
        # between two events (STREAM_PART_SECONDS, 0.5 s), so none is held back by it.
        await asyncio.sleep(random.uniform(0.6, 0.9))
    return {kind: (lasts[kind], missed[kind]) for kind in lasts}


def table_links(database: Path, stream_id: str, host: str, reader: str) -> list[str]:
    """A real table's links: the host's, one per seat (three players) and the reader's."""
    from companion.store import capabilities
    from companion.store.db import connect

    db = connect(database)
    try:
        seats = [capabilities.issue(db, stream_id, "seat", seat) for seat in range(3)]
        db.conn.commit()
    finally:
        db.conn.close()
    return [host, *seats, reader]


def command_change(port: int, token: str) -> object:
    rng = random.Random(1)

    def change() -> tuple[int, float]:
        _status, state = request(port, "GET", f"/api/v1/chronicles/{token}/state")
        sent = time.monotonic()
        status, body = request(
            port,
            "POST",
            f"/api/v1/chronicles/{token}/commands",
            {"version": state["version"], "command": next_command(state, rng)},
        )
        assert status == 200, body
        return int(body["version"]), sent

    return change


def hello_change(hello: Hello) -> object:
    counter = [0]

    def change() -> tuple[int, float]:
        counter[0] += 1
        sent = time.monotonic()
        send_local(hello.signal, str(counter[0]))
        return counter[0], sent

    return change


def unsigned(html: bytes) -> bytes:
    """``html`` with its CSRF tokens left out: each worker process signs the session's token
    once, at its own time, so two workers' pages differ there and nowhere else."""
    return re.sub(rb'name="csrf_token" value="[^"]*"', b'name="csrf_token"', html)


async def live_run(port: int, links: Links, count: int, changes: int, change: object):  # type: ignore[no-untyped-def]
    watchers, seen = await open_watchers(port, links, count)
    # Each feed told its first event as it opened: a change within STREAM_PART_SECONDS of it
    # would wait out the gap between two events, and the first command measure that gap.
    await asyncio.sleep(0.6)
    try:
        run = await last_watcher(watchers, seen, changes, change)
        for watcher in watchers[: 2 * len(links)]:  # each shows what its fetch answers now
            _head, body = await watcher.get(watcher.fragment)
            if unsigned(body) != unsigned(watcher.html):
                raise RuntimeError(f"a watcher shows another fragment than {watcher.fragment}")
        return run
    finally:
        await close_watchers(watchers)


# --- books in the background, one at a time, each waited for -----------------------------


class Books:
    """Keeps one PDF being made while the watchers measure; waits for the last one at the end."""

    def __init__(self, port: int, token: str) -> None:
        self.port, self.token = port, token
        self.stop = threading.Event()
        self.made = 0
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Books:
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=600)

    def _run(self) -> None:
        while True:
            status, job = request(
                self.port,
                "POST",
                f"/api/v1/chronicles/{self.token}/exports",
                {"format": "pdf", "edition": "annotated", "paper": "a4"},
            )
            assert status in (200, 202), job
            made = job["status"] in ("queued", "running")  # else: this version's book is made
            deadline = time.monotonic() + 600
            while job["status"] in ("queued", "running") and time.monotonic() < deadline:
                time.sleep(0.5)
                _status, job = request(self.port, "GET", job["status_url"])
            if made:
                self.made += 1
            else:  # ask again once the chronicle may have moved on, not in a busy loop
                time.sleep(0.5)
            if self.stop.is_set():  # the last book is finished: nothing is left queued
                return


def unfinished_jobs(database: Path) -> int:
    with sqlite3.connect(database) as db:
        row = db.execute("SELECT COUNT(*) FROM exports WHERE status IN ('queued', 'running')")
        return int(row.fetchone()[0])


# --- CPU of a process tree ----------------------------------------------------------------


def cpu_seconds(session: int) -> float:
    """User and system CPU seconds of the web server's processes in the session ``session``
    (the gunicorn master and workers; not the export supervisor and its book makers)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            command = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if b"companion.export" in command:
            continue
        if int(fields[3]) == session:  # field 6 of stat: the session id
            total += int(fields[11]) + int(fields[12])
    return total / tick


async def idle_cost(server: Server, links: Links, count: int, seconds: float):  # type: ignore[no-untyped-def]
    assert server.process is not None
    session = server.process.pid
    before = cpu_seconds(session)
    await asyncio.sleep(seconds)
    quiet = (cpu_seconds(session) - before) / seconds
    watchers, _seen = await open_watchers(server.port, links, count)
    try:
        await asyncio.sleep(2)  # opening them is not idling
        before = cpu_seconds(session)
        await asyncio.sleep(seconds)
        held = (cpu_seconds(session) - before) / seconds
    finally:
        await close_watchers(watchers)
    return quiet, held


LISTENER = """
import sys, time
from companion.store.signal import Listener
def wake(payload):
    if payload and payload.startswith("d"):
        print(payload, time.monotonic(), flush=True)
listener = Listener(sys.argv[1], wake).start()
listener.ready.wait(10)
print("ready", flush=True)
sys.stdin.read()
"""


def signal_cost(folder: Path, listeners: int = 4, sends: int = 2000) -> tuple[float, float]:
    """The local signal alone, with ``listeners`` processes listening: microseconds to send one
    change to all of them, and the median time until one hears it."""
    marker = str(folder / "signal-only")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    running = [
        subprocess.Popen(
            [sys.executable, "-c", LISTENER, marker],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(listeners)
    ]
    try:
        for process in running:
            assert process.stdout is not None and process.stdout.readline().strip() == "ready"
        begin = time.perf_counter()
        for n in range(sends):
            send_local(marker, f"s{n}")
        per_send = (time.perf_counter() - begin) / sends * 1e6
        sent: dict[str, float] = {}
        for n in range(100):  # one at a time, so that nothing queues
            sent[f"d{n}"] = time.monotonic()
            send_local(marker, f"d{n}")
            time.sleep(0.005)
        delays = []
        for process in running:
            assert process.stdin is not None and process.stdout is not None
            process.stdin.close()
            for line in process.stdout:
                payload, when = line.split()
                delays.append((float(when) - sent[payload]) * 1e6)
    finally:
        for process in running:
            process.wait(timeout=10)
    return per_send, statistics.median(delays) if delays else float("nan")


def shared_pages(port: int) -> dict[str, float]:
    """The server's count of pages its workers made, read from the store, or waited for."""
    _status, text = request(port, "GET", "/metrics", headers={"Authorization": f"Bearer {METRICS}"})
    return {how: float(n) for how, n in SHARED.findall(str(text))}


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def summary(values: list[float], missed: int) -> str:
    if not values:
        return f"n=0 missed={missed}"
    return (
        f"n={len(values):<3} p50 {statistics.median(values):6.0f} ms  p99 {pct(values, 99):6.0f} ms"
        + (f"  ({missed} changes not seen by every watcher within {WAIT:g} s)" if missed else "")
    )


PARTS = ("rates", "idle", "no-part", "pdf", "many", "cost")
NOT_RUN: Run = {"event": ([], 0), "fragment": ([], 0)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--watchers", type=int, default=200)
    parser.add_argument("--many", type=int, default=1000, help="watchers for the capacity run")
    parser.add_argument("--commands", type=int, default=30)
    parser.add_argument("--seconds", type=int, default=5, help="per wrk run")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle measuring")
    parser.add_argument(
        "--only",
        nargs="*",
        choices=PARTS,
        default=list(PARTS),
        help="measure only these parts (the bare push is always measured beside them)",
    )
    args = parser.parse_args()
    only = set(args.only)
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed: apt-get install wrk")
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        # Every watcher comes from this one address, hundreds on a link: the bounds on feeds
        # per link and per address (16 and 32 by default) are lifted as a table of phones,
        # each on its own address, never meets them.
        server = Server(
            folder / "live.sqlite3", env={**FEEDS_UNBOUNDED, "COMPANION_METRICS_TOKEN": METRICS}
        ).start()
        hello = Hello(folder)
        try:
            _status, body = request(server.port, "POST", "/api/v1/chronicles", SETUP)
            token = body["host_token"]
            app, bare = f"http://127.0.0.1:{server.port}", f"http://127.0.0.1:{hello.port}"
            routes = {
                "hello (bare WSGI)": f"{bare}/",
                "version poll": f"{app}/c/{token}/version",
                "play page": f"{app}/c/{token}/",
                "API state": f"{app}/api/v1/chronicles/{token}/state",
            }
            rates: dict[str, list[tuple[float, float, float]]] = {name: [] for name in routes}
            for _round in range(args.rounds if "rates" in only else 0):
                for name, url in routes.items():  # interleaved: a busy moment hits them all
                    rates[name].append(wrk(url, args.seconds))
            tokens = table_links(server.database, body["id"], token, body["reader_token"])
            one: Links = [(f"/c/{token}/events?part=play", f"/c/{token}/?fragment=1")]
            table: Links = [(f"/c/{t}/events?part=play", f"/c/{t}/?fragment=1") for t in tokens]
            change = command_change(server.port, token)

            shared: dict[str, dict[str, float]] = {}

            def measured(part: str | None, port: int, links: Links, n: int, how: object) -> Run:
                if part is not None and part not in only:
                    return NOT_RUN
                before = shared_pages(server.port)
                run = asyncio.run(live_run(port, links, args.watchers, n, how))
                if port == server.port:  # the pages the app's workers had, a change
                    after = shared_pages(server.port)
                    label = f"{len(links)} link{'s' if len(links) > 1 else ''}, {part}"
                    shared[label] = {k: (after[k] - before.get(k, 0)) / n for k in after}
                return run

            bare_links: Links = [("/events", "/")]
            bare_change = hello_change(hello)
            bare_run = measured(  # the baseline of the 200-watcher runs
                None if only & {"idle", "no-part", "pdf"} else "idle",
                *(hello.port, bare_links, args.commands, bare_change),
            )
            quiet_one = measured("idle", server.port, one, args.commands, change)
            quiet = measured("idle", server.port, table, args.commands, change)
            no_part = [(events.split("?")[0], fragment) for events, fragment in table]
            fetching = measured(  # the feed with no part: every watcher fetches
                "no-part", server.port, no_part, args.commands, change
            )
            books = None
            if "pdf" in only:  # both pushes while the companion's books are made
                with Books(server.port, token) as books:
                    bare_busy = measured("pdf", hello.port, bare_links, args.commands, bare_change)
                    busy = measured("pdf", server.port, table, args.commands, change)
            else:
                bare_busy = busy = NOT_RUN
            left = unfinished_jobs(server.database)
            few = max(5, args.commands // 3)
            args.watchers, watchers = args.many, args.watchers
            bare_many = measured("many", hello.port, bare_links, few, hello_change(hello))
            many = measured("many", server.port, table, few, change)
            args.watchers = watchers
            idle = (
                asyncio.run(idle_cost(server, table, args.watchers, args.idle))
                if "cost" in only
                else (float("nan"), float("nan"))
            )
            sending, delivery = signal_cost(folder) if "cost" in only else (math.nan, math.nan)
        finally:
            hello.stop()
            server.stop()
    print(f"load average at the start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; at the end: "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" ({os.cpu_count()} cores)")  # fmt: skip
    if "rates" in only:
        print(f"\n{'route':<20} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'ratio':>7}")
    base = statistics.median([r for r, _p50, _p99 in rates["hello (bare WSGI)"]] or [math.nan])
    for name, rows in rates.items() if "rates" in only else ():
        rate = statistics.median(r for r, _p50, _p99 in rows)
        p50 = statistics.median(p for _r, p, _p99 in rows)
        p99 = statistics.median(p for _r, _p50, p in rows)
        print(f"{name:<20} {rate:>8.0f} {p50:>8.1f} {p99:>8.1f} {rate / base:>7.2f}")
    print(f"\ncommand sent -> the last of N watchers has it ({args.commands} commands)")
    print(" app watchers spread over a table's 5 links (host, 3 seats, reader) unless said")
    rows = [
        (f"bare push, {args.watchers} watchers (baseline)", bare_run),
        (f"app, {args.watchers} watchers on one link, idle", quiet_one),
        (f"app, {args.watchers} watchers, idle", quiet),
        (f"app, {args.watchers} watchers, idle, no part", fetching),
        (f"bare push, {args.watchers} watchers, PDFs being made", bare_busy),
        (f"app, {args.watchers} watchers, PDFs being made", busy),
        (f"bare push, {args.many} watchers (baseline)", bare_many),
        (f"app, {args.many} watchers", many),
    ]
    for kind, what in (("event", "its event"), ("fragment", "the new fragment")):
        print(f" {what}:")
        for label, run in rows:
            if run is not NOT_RUN:
                print(f"  {label:<44} {summary(*run[kind])}")
        for (app_run, base_run), label in (
            ((quiet_one, bare_run), f"{args.watchers} watchers, one link"),
            ((quiet, bare_run), f"{args.watchers} watchers, 5 links"),
            ((busy, bare_busy), f"{args.watchers} watchers, 5 links, PDFs (both pushes)"),
            ((busy, bare_run), f"{args.watchers} watchers, 5 links, PDFs (bare push idle)"),
            ((many, bare_many), f"{args.many} watchers, 5 links"),
        ):
            if app_run[kind][0] and base_run[kind][0]:
                ours, theirs = app_run[kind][0], base_run[kind][0]
                print(
                    f"  {label}: app / bare push, p50 {statistics.median(ours) / statistics.median(theirs):.1f}"
                    f", p99 {pct(ours, 99) / pct(theirs, 99):.1f}"
                )
    if shared:
        print(" a change's pages and parts, over both workers (made: rendered under a claim;")
        print(" kept: read from the store; waited: for the worker that claimed it; unclaimed:")
        print(" rendered with no claim), per change:")
        for label, hows in shared.items():
            print(f"  {label:<32} " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(hows.items())))
    made = "not measured" if books is None else books.made
    print(f" books made meanwhile: {made}; jobs left queued or running after: {left}")
    if "cost" in only:
        print(
            f"\nlocal signal (SQLite): {sending:.1f} us to send a change to 4 listeners;"
            f" heard after {delivery:.0f} us (median)"
        )
        print(
            f"server CPU, idle: no watcher {idle[0]:.3f} cores; {args.watchers} idle watchers"
            f" {idle[1]:.3f} cores; the watchers' share {idle[1] - idle[0]:.3f}"
        )


if __name__ == "__main__":
    main()
