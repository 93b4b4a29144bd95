"""The pages a phone opens, in Japanese and in English, on a database made for them; and how
many bytes each costs a phone, read from Chromium's own network log over CDP.

Shared by the budget test (``tests/test_browser_budget.py``) and its bench
(``bench/bench_bytes.py``): both build the same site, serve it with ``companion serve`` and
drive Debian's Chromium in mobile emulation.
"""

from __future__ import annotations

import dataclasses
import random
import sys
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
    runs, as its network log counts them (headers, bodies as sent, live streams so far)."""

    def __init__(self, context: BrowserContext, page: Page) -> None:
        self.finished: dict[str, int] = {}
        self.streaming: dict[str, int] = {}
        self.urls: dict[str, str] = {}
        self.worker_bytes = 0
        self.cdp: CDPSession = context.new_cdp_session(page)
        self.cdp.on("Network.requestWillBeSent", self._sent)
        self.cdp.on("Network.dataReceived", self._data)
        self.cdp.on("Network.loadingFinished", self._finished)
        self.cdp.send("Network.enable")
        # The service worker's own fetches (its install's) are not in the page's log.
        context.on("requestfinished", self._worker_request)

    def _sent(self, event: dict[str, Any]) -> None:
        self.urls[event["requestId"]] = event["request"]["url"]

    def _data(self, event: dict[str, Any]) -> None:
        rid = event["requestId"]
        self.streaming[rid] = self.streaming.get(rid, 0) + int(event.get("encodedDataLength", 0))

    def _finished(self, event: dict[str, Any]) -> None:
        self.finished[event["requestId"]] = int(event["encodedDataLength"])

    def _worker_request(self, request: Any) -> None:
        if request.service_worker is None:
            return
        sizes = request.sizes()
        self.worker_bytes += sizes["responseBodySize"] + sizes["responseHeadersSize"]
        self.urls[f"sw:{len(self.urls)}"] = "[worker] " + request.url

    def total(self) -> int:
        """Bytes so far: each finished request whole, each open one as far as it came."""
        open_ones = sum(n for rid, n in self.streaming.items() if rid not in self.finished)
        return sum(self.finished.values()) + open_ones + self.worker_bytes

    def mark(self) -> Callable[[], int]:
        """A reading of the bytes received from now on."""
        start = self.total()
        return lambda: self.total() - start

    def detail(self) -> dict[str, int]:
        """Bytes per URL (finished requests), largest first: what to look at over a budget."""
        out: dict[str, int] = {}
        for rid, n in self.finished.items():
            url = self.urls.get(rid, rid)
            out[url] = out.get(url, 0) + n
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


def settle(page: Page) -> None:
    """Wait until the page has loaded, its fonts are in and its service worker is installed
    (the worker's install fetches the shell it keeps)."""
    page.evaluate(SETTLED)


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
        settle(page)
        return wire.total(), wire.detail()


def second_visit(browser: Browser, first: str, url: str) -> int:
    """Bytes of opening ``url`` on a phone that opened ``first`` before, in the same browser."""
    with phone(browser) as (_context, page, wire):
        page.goto(first)
        settle(page)
        since = wire.mark()
        page.goto(url)
        settle(page)
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
        settle(page)
        opened = wire.total()
        form = page.locator("form.compose-form").first
        # Set without input events, so no draft is saved meanwhile: only the roll is counted.
        form.evaluate(FILL)
        since = wire.mark()
        with page.expect_navigation():
            form.locator("button[value=roll]").first.click()
        settle(page)
        return opened, since()


AUDIT = Path(__file__).resolve().parent.parent / "tools" / "audit" / "node_modules"
LIGHTHOUSE = AUDIT / "lighthouse" / "cli" / "index.js"
VNU = AUDIT / "vnu-jar" / "build" / "dist" / "vnu.jar"
CATEGORIES = ("performance", "accessibility", "best-practices")
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage"


def lighthouse(url: str, folder: Path) -> dict[str, Any]:
    """Lighthouse's report on ``url`` (mobile emulation, its slow-4G model), run with Debian's
    Chromium: the scores (0-100) of ``CATEGORIES``, layout shift, total blocking time (ms),
    bytes, and the failed audits of each category."""
    import json
    import os
    import subprocess

    report = folder / "lighthouse.json"
    subprocess.run(
        [
            "node",
            str(LIGHTHOUSE),
            url,
            "--quiet",
            "--output=json",
            f"--output-path={report}",
            f"--only-categories={','.join(CATEGORIES)}",
            f"--chrome-flags={CHROME_FLAGS}",
        ],
        env={**os.environ, "CHROME_PATH": "/usr/bin/chromium", "TMPDIR": str(folder)},
        check=True,
        timeout=300,
        capture_output=True,
    )
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
