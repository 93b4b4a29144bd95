"""The pages a phone opens, in Japanese and in English, on a database made for them; and how
many bytes each costs a phone, read from Chromium's own network log over CDP.

Shared by the budget test (``tests/test_browser_budget.py``) and its bench
(``bench/bench_bytes.py``): both build the same site, serve it with ``companion serve`` and
drive Debian's Chromium in mobile emulation.
"""

from __future__ import annotations

import dataclasses
import random
import re
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import lifegen  # noqa: E402
from playwright.sync_api import Browser, BrowserContext, CDPSession, Page  # noqa: E402

from companion.legacy.commands import DrawCard  # noqa: E402
from companion.store import capabilities  # noqa: E402
from companion.store.db import connect, init_db  # noqa: E402
from companion.streams import chronicles  # noqa: E402
from companion.streams.demo import create_demo  # noqa: E402

LANGUAGES = ("ja", "en")
# A mid-range phone, as Lighthouse's mobile emulation has it (a Moto G Power).
PHONE: dict[str, Any] = {
    "viewport": {"width": 412, "height": 823},
    "device_scale_factor": 1.75,
    "is_mobile": True,
    "has_touch": True,
    "user_agent": (
        "Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 "
        "(KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36"
    ),
}
# The page names, in the order they are measured.
PAGES = (
    "start",
    "new",
    "play-host",
    "play-seat",
    "play-reader",
    "story",
    "links",
    "traitors-flame",
    "age-of-summoners",
)


@dataclass
class Site:
    """name -> path of each page, per language; the long story; chronicles ready to roll."""

    pages: dict[str, dict[str, str]] = field(default_factory=dict)
    long_story: str = ""
    rolls: dict[str, list[str]] = field(default_factory=dict)  # language -> host tokens


def build(database: Path, rolls: int = 1) -> Site:
    """Every page measured, in both languages, on a new database at ``database``; ``rolls``
    chronicles per language stand at the roll, one for each roll measured."""
    init_db(database)
    site = Site()
    site.long_story = f"/c/{lifegen.full_life(database, chars=16000, seed=2)}/story"
    for lang in LANGUAGES:
        flame = lifegen.card_table(database, "traitors-flame", language=lang)
        summoners = lifegen.card_table(database, "age-of-summoners", language=lang)
        db = connect(database)
        try:
            sample = create_demo(db, lang)
            playing, seat, reader = _at_the_roll(db, lang)
            site.rolls[lang] = [_at_the_roll(db, lang)[0] for _ in range(rolls)]
        finally:
            db.conn.close()
        query = f"?lang={lang}"
        site.pages[lang] = {
            "start": f"/{query}",
            "new": f"/new{query}",
            "play-host": f"/c/{playing}/{query}",
            "play-seat": f"/c/{seat}/{query}",
            "play-reader": f"/c/{reader}/{query}",
            "story": f"/c/{sample.host_token}/story{query}",
            "links": f"/c/{playing}/links{query}",
            "traitors-flame": f"/t/{flame}/{query}",
            "age-of-summoners": f"/t/{summoners}/{query}",
        }
    return site


def _at_the_roll(db: Any, lang: str) -> tuple[str, str, str]:
    """A group's new chronicle whose first card is drawn (the app draws and rolls): host,
    seat and reader."""
    setup = dataclasses.replace(lifegen.setup(lang), mode="digital")
    rng = random.Random(7)
    created = chronicles.create(db, setup, rng)
    chronicle = chronicles.load(db, created.id)
    chronicles.execute(db, chronicle, [DrawCard(chronicle.state.seat)], rng)
    seat = capabilities.issue(db, created.id, "seat", 0)
    return created.host_token, seat, created.reader_token


class Wire:
    """The bytes Chromium received over the network for one page and the service worker it
    runs, as its network log counts them (headers, bodies as sent, live feeds so far)."""

    def __init__(self, context: BrowserContext, page: Page) -> None:
        self.finished: dict[str, int] = {}
        self.streaming: dict[str, int] = {}
        self.urls: dict[str, str] = {}
        self.worker_bytes = 0
        self.worker_detail: list[tuple[str, int]] = []
        self.cdp: CDPSession = context.new_cdp_session(page)
        self.via_worker: set[str] = set()
        self.cdp.on("Network.requestWillBeSent", self._sent)
        self.cdp.on("Network.responseReceived", self._response)
        self.cdp.on("Network.dataReceived", self._data)
        self.cdp.on("Network.loadingFinished", self._finished)
        self.cdp.send("Network.enable")
        # The service worker's own fetches (its install's) are not in the page's log.
        self.worker_started = 0
        self.worker_done = 0
        context.on("request", self._worker_started)
        context.on("requestfinished", self._worker_request)
        context.on("requestfailed", self._worker_failed)

    def _sent(self, event: dict[str, Any]) -> None:
        self.urls[event["requestId"]] = event["request"]["url"]

    def _response(self, event: dict[str, Any]) -> None:
        # Answered by the service worker: what came over the wire for it (if anything) is the
        # worker's own fetch, counted from the worker's side.
        if event["response"].get("fromServiceWorker"):
            self.via_worker.add(event["requestId"])

    def _data(self, event: dict[str, Any]) -> None:
        rid = event["requestId"]
        self.streaming[rid] = self.streaming.get(rid, 0) + int(event.get("encodedDataLength", 0))

    def _finished(self, event: dict[str, Any]) -> None:
        self.finished[event["requestId"]] = int(event["encodedDataLength"])

    def _worker_started(self, request: Any) -> None:
        if request.service_worker is not None:
            self.worker_started += 1

    def _worker_failed(self, request: Any) -> None:
        if request.service_worker is not None:
            self.worker_done += 1

    def _worker_request(self, request: Any) -> None:
        if request.service_worker is None:
            return
        self.worker_done += 1
        try:
            sizes = request.sizes()
        except Exception:  # an answer the worker took from its cache: nothing came over the wire
            return
        size = sizes["responseBodySize"] + sizes["responseHeadersSize"]
        self.worker_bytes += size
        self.worker_detail.append((request.url, size))

    def total(self) -> int:
        """Bytes so far: each finished request whole, each open one as far as it came."""
        open_ones = sum(
            n
            for rid, n in self.streaming.items()
            if rid not in self.finished and rid not in self.via_worker
        )
        page = sum(n for rid, n in self.finished.items() if rid not in self.via_worker)
        return page + open_ones + self.worker_bytes

    def mark(self) -> Callable[[], int]:
        """A reading of the bytes received from now on."""
        start = self.total()
        return lambda: self.total() - start

    def detail(self) -> dict[str, int]:
        """Bytes per URL (finished requests), largest first: what to look at over a budget."""
        out: dict[str, int] = {}
        for rid, n in self.finished.items():
            if rid in self.via_worker:
                continue
            url = self.urls.get(rid, rid)
            out[url] = out.get(url, 0) + n
        for url, n in self.worker_detail:
            out["[worker] " + url] = out.get("[worker] " + url, 0) + n
        return dict(sorted(out.items(), key=lambda kv: -kv[1]))


SETTLED = """async () => {
  if (document.readyState !== 'complete')
    await new Promise((done) => addEventListener('load', done, {once: true}));
  await document.fonts.ready;
  if (navigator.serviceWorker && navigator.serviceWorker.controller === null
      && document.querySelector('script[data-worker]')) {
    await navigator.serviceWorker.ready;
  }
  return true;
}"""


def settle(page: Page, wire: Wire | None = None) -> None:
    """Wait until the page has loaded, its fonts are in and its service worker is installed
    (the worker's install fetches the shell it keeps), and every fetch the worker began has
    been counted."""
    page.evaluate(SETTLED)
    if wire is None:
        return
    deadline = time.monotonic() + 30
    while wire.worker_started != wire.worker_done and time.monotonic() < deadline:
        page.evaluate("0")  # a round trip, which lets the browser's events in


@contextmanager
def phone(browser: Browser) -> Iterator[tuple[BrowserContext, Page, Wire]]:
    """A phone with nothing in its caches: a fresh context in mobile emulation."""
    context = browser.new_context(**PHONE)
    page = context.new_page()
    try:
        yield context, page, Wire(context, page)
    finally:
        context.close()


def first_visit(browser: Browser, url: str) -> tuple[int, dict[str, int]]:
    """Bytes of a first visit to ``url`` by a phone that never opened the site."""
    with phone(browser) as (_context, page, wire):
        page.goto(url)
        settle(page, wire)
        return wire.total(), wire.detail()


def second_visit(browser: Browser, first: str, url: str) -> int:
    """Bytes of opening ``url`` on a phone that opened ``first`` before, in the same browser."""
    with phone(browser) as (_context, page, wire):
        page.goto(first)
        settle(page, wire)
        since = wire.mark()
        page.goto(url)
        settle(page, wire)
        return since()


FILL = """(form) => {
  form.querySelector('input[name=prompt]').checked = true;
  for (const [name, text] of [['answer', 'A short answer.'], ['stakes_success', 'It holds.'],
                              ['stakes_failure', 'It breaks.']])
    form.querySelector(`[name=${name}]`).value = text;
}"""


def roll(browser: Browser, url: str) -> tuple[int, int]:
    """Bytes of opening the play page at ``url`` first, and of pressing its roll button (the
    post and the page it is redirected to)."""
    with phone(browser) as (_context, page, wire):
        page.goto(url)
        settle(page, wire)
        opened = wire.total()
        form = page.locator("form.compose-form").first
        # Set without input events, so no draft is saved meanwhile: only the roll is counted.
        form.evaluate(FILL)
        since = wire.mark()
        with page.expect_navigation():
            form.locator("button[value=roll]").first.click()
        settle(page, wire)
        return opened, since()


AUDIT = Path(__file__).resolve().parent.parent / "tools" / "audit" / "node_modules"
LIGHTHOUSE = AUDIT / "lighthouse" / "cli" / "index.js"
VNU = AUDIT / "vnu-jar" / "build" / "dist" / "vnu.jar"
CATEGORIES = ("performance", "accessibility", "best-practices")
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage"


# The benchmark index of the phone Lighthouse's mobile emulation stands for (a Moto G Power
# 2022), as Chrome DevTools' own CPU calibration takes it.
PHONE_INDEX = 264


def benchmark_index(folder: Path) -> float:
    """This machine's speed now, by Lighthouse's own benchmark (``computeBenchmarkIndex`` of its
    page functions), run in Debian's Chromium."""
    import subprocess

    source = (AUDIT / "lighthouse" / "core" / "lib" / "page-functions.js").read_text("utf-8")
    start = source.index("function computeBenchmarkIndex()")
    end = source.index("\n}\n", start) + 3
    page = folder / "benchmark.html"
    page.write_text(
        f"<!doctype html><title>b</title><script>{source[start:end]}"
        "document.title = 'index:' + computeBenchmarkIndex();</script>",
        "utf-8",
    )
    dumped = subprocess.run(
        ["/usr/bin/chromium", *CHROME_FLAGS.split(), "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    found = re.search(r"<title>index:([\d.]+)</title>", dumped)
    assert found, dumped[:300]
    return float(found.group(1))


def cpu_multiplier(index: float) -> float:
    """Lighthouse's CPU slowdown for a machine of ``index``: the one that makes it as fast as
    the emulated phone, at most Lighthouse's own 4 (what it uses on a desktop-class machine),
    at least 1. On a slow or busy machine the fixed 4 would emulate a phone several times slower
    than the one named, and the scores would say more about the machine than the page."""
    return max(1.0, min(4.0, index / PHONE_INDEX))


def lighthouse(url: str, folder: Path) -> dict[str, Any]:
    """Lighthouse's report on ``url`` (mobile emulation, its slow-4G model), run with Debian's
    Chromium with the CPU slowdown calibrated to this machine (``cpu_multiplier``): the scores
    (0-100) of ``CATEGORIES``, layout shift, total blocking time (ms), bytes, and the failed
    audits of each category."""

    index = benchmark_index(folder)
    multiplier = cpu_multiplier(index)
    report = folder / "lighthouse.json"
    with chromium(folder) as port:
        run = _run_lighthouse(url, report, multiplier, port, folder)
    assert run.returncode == 0, f"Lighthouse failed on {url}:\n{run.stderr[-2000:]}"
    return _scores(report, index, multiplier)


@contextmanager
def chromium(folder: Path) -> Iterator[int]:
    """Debian's Chromium, headless, for Lighthouse to drive on the port given; started here
    and waited for (a busy machine can take longer than Lighthouse's own launcher waits)."""
    import os
    import signal
    import socket
    import subprocess
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    profile = folder / f"chromium-{port}"
    process = subprocess.Popen(
        ["/usr/bin/chromium", *CHROME_FLAGS.split(), f"--remote-debugging-port={port}",
         f"--user-data-dir={profile}", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/json/version", timeout=5).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("Chromium did not start for Lighthouse") from None
                time.sleep(0.2)
        yield port
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)


def _run_lighthouse(url: str, report: Path, multiplier: float, port: int, folder: Path) -> Any:
    import os
    import subprocess

    return subprocess.run(
        [
            "node",
            str(LIGHTHOUSE),
            url,
            "--quiet",
            "--output=json",
            f"--output-path={report}",
            f"--only-categories={','.join(CATEGORIES)}",
            f"--port={port}",
            "--disable-full-page-screenshot",
            f"--throttling.cpuSlowdownMultiplier={multiplier:.2f}",
        ],
        env={**os.environ, "CHROME_PATH": "/usr/bin/chromium", "TMPDIR": str(folder)},
        timeout=300,
        capture_output=True,
        text=True,
    )


def _scores(report: Path, index: float, multiplier: float) -> dict[str, Any]:
    import json

    data = json.loads(report.read_text("utf-8"))
    audits = data["audits"]
    failed = {
        name: [
            ref["id"]
            for ref in category["auditRefs"]
            if ref.get("weight", 0) > 0 and (audits[ref["id"]].get("score") or 0) < 1
        ]
        for name, category in data["categories"].items()
    }
    return {
        **{name: round(100 * (data["categories"][name]["score"] or 0)) for name in CATEGORIES},
        "cls": float(audits["cumulative-layout-shift"]["numericValue"]),
        "tbt": float(audits["total-blocking-time"]["numericValue"]),
        "lcp": float(audits["largest-contentful-paint"]["numericValue"]),
        "bytes": int(audits["total-byte-weight"]["numericValue"]),
        "benchmark": index,
        "lighthouse benchmark": float(data["environment"]["benchmarkIndex"]),
        "multiplier": multiplier,
        "failed": failed,
    }


def vnu(documents: dict[str, str], folder: Path) -> list[str]:
    """The Nu HTML Checker's errors on each document (name -> HTML), as ``name: line: message``."""
    import json
    import subprocess

    paths = {}
    for index, (name, html) in enumerate(documents.items()):
        path = folder / f"doc{index}.html"
        path.write_text(html, "utf-8")
        paths[str(path)] = name
    run = subprocess.run(
        ["java", "-jar", str(VNU), "--format", "json", "--exit-zero-always", *paths],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    messages = json.loads(run.stderr or run.stdout)["messages"]
    out = []
    for message in messages:
        if message.get("type") != "error":
            continue
        name = paths.get(message.get("url", "").removeprefix("file:"), message.get("url", ""))
        out.append(f"{name}: {message.get('lastLine', '?')}: {message['message']}")
    return out
