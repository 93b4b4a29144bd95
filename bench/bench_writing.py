"""The live view of a text being written, in real browsers on the real server.

A seat's phone types a narration (Chromium, as a person types: the page saves the draft as it
goes); the host's desktop, open on the same turn, shows the words as they stand. Timed from
the last keystroke to the host's page holding the whole text, over ``--samples`` samples, with
p50 and p99. Interleaved with the baseline: the same phone makes a move (a draw) and the host's
page shows it, the path every open page already took; the ratio compares the two.

    .venv/bin/python bench/bench_writing.py [--samples 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from playwright.sync_api import Page, sync_playwright  # noqa: E402
from server_client import Server  # noqa: E402

from companion.export.vertical import LAUNCH_ARGS  # noqa: E402
from companion.store import capabilities  # noqa: E402
from companion.store.db import connect  # noqa: E402

SETUP = {
    "pioneer": {"name": "汐見ナギ", "people": "人間", "concept": "灯台守の娘。"},
    "players": ["健太"],
    "oldest": 0,
    "language": "ja",
    "mode": "table",
}


class Life:
    """A life whose every turn is 健太's: the host's and 健太's links, moves by the API."""

    def __init__(self, server: Server) -> None:
        self.base = server.url
        made = requests.post(f"{self.base}/api/v1/chronicles", json=SETUP, timeout=60).json()
        self.host = made["host_token"]
        self.seat = capabilities.issue(connect(server.database), made["id"], "seat", 0)

    def state(self) -> dict:
        return requests.get(f"{self.base}/api/v1/chronicles/{self.host}/state", timeout=60).json()

    def send(self, *commands: dict) -> None:
        body = {"version": self.state()["version"], "commands": list(commands)}
        url = f"{self.base}/api/v1/chronicles/{self.host}/commands"
        answer = requests.post(url, json=body, timeout=60)
        assert answer.status_code == 200, answer.text

    def to_success(self) -> None:
        """The current turn at its narration (a success rolled), drawing a card if need be."""
        state = self.state()
        if state["step"] in ("success", "mark"):
            return
        if state["step"] not in ("draw", "choose"):
            raise SystemExit(f"unexpected step {state['step']}")
        drawn: list[dict] = []
        if state["step"] == "draw":
            legal = next(i for i in state["legal"] if i["type"] == "draw-card")
            drawn = [{"type": "draw-card", "card": legal["options"]["cards"][0]}]
        self.send(
            *drawn,
            {"type": "choose-prompt", "index": 0},
            {"type": "answer-prompt", "answer": "嵐が来た。"},
            {"type": "declare-stakes", "success": "越える。", "failure": "沈む。"},
            {"type": "roll-dice", "faces": [6] + [1] * (self.state_dice() - 1)},
        )

    def state_dice(self) -> int:
        return int(self.state()["stage"]["dice"])


def shown(page: Page, selector: str, text: str, started: float) -> float:
    page.wait_for_function(
        "([s, t]) => { const el = document.querySelector(s); return el && (el.value || el.textContent).includes(t); }",
        arg=[selector, text],
        timeout=30_000,
        polling=10,
    )
    return time.perf_counter() - started


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-writing-"))
    server = Server(folder / "db.sqlite3", env={"COMPANION_SESSION_COOKIE_SECURE": "false"}).start()
    writing: list[float] = []
    moving: list[float] = []
    try:
        life = Life(server)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=LAUNCH_ARGS)
            desk = browser.new_context(locale="ja-JP", viewport={"width": 1280, "height": 900})
            phone = browser.new_context(locale="ja-JP", viewport={"width": 390, "height": 844})
            host, seat = desk.new_page(), phone.new_page()
            for n in range(args.samples):
                life.to_success()
                host.goto(f"{life.base}/c/{life.host}/")
                seat.goto(f"{life.base}/c/{life.seat}/")
                seat.wait_for_selector("#narration")
                host.wait_for_selector("#narration")
                text = f"語り{n}：夜明けに岬へ着いた。"
                seat.click("#narration")
                seat.keyboard.type(text[:-1])
                started = time.perf_counter()
                seat.keyboard.type(text[-1])  # the last keystroke
                writing.append(shown(host, "#narration", text, started))
                if seat.locator("#mark_name").count():  # the third success builds a mark
                    seat.fill("#mark_name", f"灯{n}")
                seat.click("button[value=narrate], button[value=mark]")
                seat.wait_for_selector("button[value=draw]")
                # The baseline: a move made on the phone reaches the host's open page.
                host.goto(f"{life.base}/c/{life.host}/")
                host.wait_for_selector("button[value=draw]")
                card = seat.locator("select#card option").nth(1).get_attribute("value")
                seat.select_option("select#card", card)
                started = time.perf_counter()
                seat.click("button[value=draw]")
                moving.append(_drawn(host, started))
            browser.close()
    finally:
        server.stop()
    for name, values in (("words typed on the seat", writing), ("a move on the seat", moving)):
        ms = [v * 1000 for v in values]
        print(
            f"{name:>26} -> host page: p50 {statistics.median(ms):6.0f} ms, "
            f"p99 {pct(ms, 0.99):6.0f} ms, max {max(ms):6.0f} ms over {len(ms)} samples"
        )
    print(
        f"{'ratio (words / move)':>26}: p50 {statistics.median(writing) / statistics.median(moving):.2f}"
    )


def _drawn(page: Page, started: float) -> float:
    page.wait_for_selector(".drawn-card", timeout=30_000)
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
