"""Two devices press roll at once, twenty times, through `companion serve` in Chromium (Japanese):
the host's desktop and 健太's phone, each with its own random texts. Every text is afterwards in
the story or back on its own device, the refused one is told who really moved, and Back and
Forward on both never show a browser error page."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from playwright.sync_api import Browser, Page, expect
from racing import serving
from served_app import HOLD, TRACK_FEEDS
from server_client import Server

from companion.store import capabilities
from companion.store.db import connect

pytestmark = [pytest.mark.browser, pytest.mark.slow]
ROUNDS = 20
WAIT = 30_000
SETUP = {
    "pioneer": {"name": "汐見ナギ", "people": "人間", "concept": "灯台守の娘。"},
    "players": ["健太"],
    "oldest": 0,
    "language": "ja",
    "mode": "digital",
}
FIELDS = ("answer", "stakes_success", "stakes_failure")
SYLLABLES = "あかさたなはまやらわいきしちにひみりえけせてねへめれおこそとのほもよろを"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("two-devices")) as running:
        yield running


class Table:
    """One life through the API: the host's and 健太's links, and the plain moves between races."""

    def __init__(self, server: Server) -> None:
        self.base = server.url
        made = requests.post(f"{self.base}/api/v1/chronicles", json=SETUP, timeout=60).json()
        self.host = made["host_token"]
        self.seat = capabilities.issue(connect(server.database), made["id"], "seat", 0)

    def state_story(self) -> dict[str, Any]:
        return requests.get(f"{self.base}/api/v1/chronicles/{self.host}/story", timeout=60).json()  # type: ignore[no-any-return]

    def state(self) -> dict[str, Any]:
        return requests.get(f"{self.base}/api/v1/chronicles/{self.host}/state", timeout=60).json()  # type: ignore[no-any-return]

    def send(self, command: dict[str, Any]) -> None:
        body = {"version": self.state()["version"], "command": command}
        sent = requests.post(
            f"{self.base}/api/v1/chronicles/{self.host}/commands", json=body, timeout=60
        )
        assert sent.status_code == 200, sent.text

    def to_compose(self) -> bool:
        """Play on to the next card drawn, waiting for its prompt; False once the life is over."""
        for _ in range(10):
            state = self.state()
            if state["ended"]:
                return False
            step = state["step"]
            if step in ("choose", "answer", "stakes", "roll"):
                return True
            if step == "draw":
                self.send({"type": "draw-card"})
            elif step == "success":
                self.send({"type": "narrate-success", "narration": "なんとか越えた。"})
            elif step == "mark":
                self.send({"type": "build-mark", "name": "岬の灯", "description": ""})
            else:
                self.send({"type": "accept-failure", "narration": "それでも朝は来た。"})
        raise AssertionError("the table never reached a prompt")


def words(rng: random.Random, who: str, n: int, field: str) -> str:
    return f"{who}{n}{field[:2]}" + "".join(
        rng.choice(SYLLABLES) for _ in range(rng.randint(6, 30))
    )


def ready(page: Page, url: str) -> None:
    page.goto(url)
    expect(page.locator("#answer")).to_be_editable(timeout=WAIT)


def fill(page: Page, texts: dict[str, str]) -> None:
    page.check("input[name=prompt][value='0']")
    for field, text in texts.items():
        page.fill(f"#{field}", text)
        expect(page.locator(f"#{field}")).to_have_value(text)  # another device's typing aside
    expect(page.locator(".save-status").first).to_have_text("下書きを保存しました", timeout=WAIT)


def press_together(pages: list[Page], selector: str) -> None:
    """Press ``selector`` on every page at the same instant of the one clock they share (well
    within 50 ms of each other), then wait until each has loaded the page its post led to."""
    for page in pages:
        page.evaluate(HOLD)
    at = time.time() * 1000 + 400
    script = """([s, at]) => { window.__pressed = true;
      setTimeout(() => document.querySelector(s).click(), at - Date.now()); }"""
    for page in pages:
        page.evaluate(script, [selector, at])
    for page in pages:
        page.wait_for_function(
            "() => !window.__pressed && document.readyState !== 'loading'", timeout=WAIT
        )


def no_error_page(page: Page) -> None:
    assert not page.url.startswith("chrome-error://"), page.url
    expect(page.locator("header.site-header")).to_be_visible(timeout=WAIT)


def told(page: Page) -> str:
    return " ".join(page.locator(".flash-error").all_inner_texts())


def kept(page: Page) -> dict[str, str]:
    """The refused device's words, as they stand in its boxes beside the story."""
    boxes = page.locator("#kept textarea")
    found = {}
    for i in range(boxes.count()):
        name = str(boxes.nth(i).get_attribute("name")).removeprefix("kept_")
        found[name] = boxes.nth(i).input_value()
    return found


def back_and_forward(pages: list[Page]) -> None:
    for page in pages:
        page.go_back()
        no_error_page(page)
        page.go_forward()
        no_error_page(page)


def race(
    host: Page, phone: Page, table: Table, mine: dict[str, dict[str, str]], button: str
) -> str:
    """Both press ``button`` at once: the winner's texts are the story's, the loser's are back on
    its page with a message naming who moved. Returns who won."""
    press_together([host, phone], f"button[value={button}]")
    field = next(iter(mine["host"]))
    if button == "roll":
        recorded = table.state()["check"][field]["text"]
    else:
        points = [p for c in table.state_story()["chapters"] for p in c["turning_points"]]
        recorded = points[-1]["narration"]["text"]
    winner = "host" if recorded == mine["host"][field] else "seat"
    assert recorded == mine[winner][field], (recorded, mine)
    loser, page = ("seat", phone) if winner == "host" else ("host", host)
    assert told(host if winner == "host" else phone) == ""
    message = told(page)
    if winner == "host":
        assert "ホストがすでに健太の代わりに" in message, message
    else:
        assert "健太がすでに" in message and "ホスト" not in message, message
    shown = kept(page)  # (words left from an earlier race wait beside them, still kept)
    assert {field: shown.get(field) for field in mine[loser]} == mine[loser], (shown, mine[loser])
    return winner


def test_twenty_rolls_at_once_lose_no_text(browser: Browser, server: Server) -> None:
    rng = random.Random(20261203)
    desk = browser.new_context(locale="ja-JP", viewport={"width": 1280, "height": 900})
    phone_context = browser.new_context(locale="ja-JP", viewport={"width": 390, "height": 844})
    desk.add_init_script(TRACK_FEEDS)
    phone_context.add_init_script(TRACK_FEEDS)
    host, phone = desk.new_page(), phone_context.new_page()
    table = Table(server)
    winners: list[str] = []
    try:
        for n in range(ROUNDS):
            if not table.to_compose():
                table = Table(server)
                assert table.to_compose()
            ready(host, f"{table.base}/c/{table.host}/")
            ready(phone, f"{table.base}/c/{table.seat}/")
            mine = {"host": {f: words(rng, "ホ", n, f) for f in FIELDS}}
            mine["seat"] = {f: words(rng, "健", n, f) for f in FIELDS}
            fill(host, mine["host"])
            fill(phone, mine["seat"])
            winner = race(host, phone, table, mine, "roll")
            winners.append(winner)
            back_and_forward([host, phone])
            loser = phone if winner == "host" else host
            if n == 0:  # one click puts the refused answer into the story
                box = "#kept form:has(textarea[name=kept_answer])"
                loser.locator(f"{box} button[value=replace]").click()
                expect(loser.locator(".flash-success")).to_be_visible(timeout=WAIT)
                answer = table.state()["check"]["answer"]["text"]
                assert answer == (mine["seat"] if winner == "host" else mine["host"])["answer"]
                back_and_forward([loser])
            if n % 2 == 0 and table.state()["step"] == "success":  # and two narrations at once
                for page in (host, phone):
                    page.reload()
                    expect(page.locator("#narration")).to_be_editable(timeout=WAIT)
                said = {"host": {"narration": words(rng, "語ホ", n, "na")}}
                said["seat"] = {"narration": words(rng, "語健", n, "na")}
                host.fill("#narration", said["host"]["narration"])
                phone.fill("#narration", said["seat"]["narration"])
                race(host, phone, table, said, "narrate")
                back_and_forward([host, phone])
    finally:
        desk.close()
        phone_context.close()
    print(f"\nwinners: {winners.count('host')} host, {winners.count('seat')} seat")
