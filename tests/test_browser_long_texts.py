"""Long texts fold once saved: an 8,000-character answer (and long stakes) shows a few lines and
"show all", and on a 390 x 844 phone the turn's main action stays within one screen of where
the page puts the player after the roll; through `companion serve` in Chromium, Japanese first."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests
from playwright.sync_api import Browser, Page, expect
from racing import serving
from server_client import Server

pytestmark = pytest.mark.browser
WAIT = 30_000
PHONE = {"width": 390, "height": 844}
LONG = ("嵐の夜、灯台守の娘は小舟を出した。" * 500)[:8000]
SETUP = {
    "pioneer": {"name": "汐見ナギ", "people": "人間", "concept": "灯台守の娘。"},
    "players": ["あかり", "健太"],
    "oldest": 0,
    "language": "ja",
    "mode": "table",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("long-texts")) as running:
        yield running


def declared(server: Server) -> str:
    """A chronicle whose first turn declared an 8,000-character answer: its host token."""
    made = requests.post(f"{server.url}/api/v1/chronicles", json=SETUP, timeout=60).json()
    token = made["host_token"]
    commands: list[dict[str, Any]] = [
        {"type": "draw-card", "card": "AH"},
        {"type": "choose-prompt", "index": 0},
        {"type": "answer-prompt", "answer": LONG},
        {"type": "declare-stakes", "success": LONG[:3000], "failure": LONG[:3000]},
    ]
    body = {"version": made["state"]["version"], "commands": commands}
    sent = requests.post(f"{server.url}/api/v1/chronicles/{token}/commands", json=body, timeout=60)
    assert sent.status_code == 200, sent.text
    return str(token)


def within_a_screen(page: Page, selector: str) -> None:
    """The control is at most one screen away from what the player sees where the page opened:
    on it, or within one more screen's scroll down (before, 13,150 px down)."""
    target = page.locator(selector).first
    expect(target).to_be_visible(timeout=WAIT)
    box = target.evaluate(
        "el => { const r = el.getBoundingClientRect(); return [r.top, r.bottom]; }"
    )
    assert 0 <= box[0] and box[1] <= 2 * PHONE["height"], (selector, box)


@pytest.mark.parametrize(("hit", "action"), [(True, "narrate"), (False, "sacrifice")])
def test_a_long_answer_folds_and_the_action_stays_in_reach(
    browser: Browser, server: Server, hit: bool, action: str
) -> None:
    token = declared(server)
    context = browser.new_context(locale="ja-JP", viewport=PHONE)
    page = context.new_page()
    try:
        page.goto(f"{server.url}/c/{token}/")
        for die in range(4):
            page.fill(f"input[name=face-{die}]", "6" if hit and die == 0 else "1")
        with page.expect_navigation(timeout=WAIT):
            page.click("button[value=roll]")  # the page the roll lands on, where it lands
        answer = page.locator(".declared-answer")
        expect(answer).to_have_class("declared-answer prose fold folded", timeout=WAIT)
        assert answer.evaluate("el => el.getBoundingClientRect().height") < 300
        within_a_screen(page, f"button[value={action}]")
        toggle = page.locator(".declared-answer + .fold-toggle")
        expect(toggle).to_have_text("すべて表示")
        expect(toggle).to_have_attribute("aria-expanded", "false")
        toggle.click()
        expect(toggle).to_have_text("折りたたむ")
        expect(toggle).to_have_attribute("aria-expanded", "true")
        assert answer.evaluate("el => el.getBoundingClientRect().height") > 3000  # all of it
        page.goto(f"{server.url}/c/{token}/story")
        story = page.locator(".story-text.answer .prose").first
        expect(story).to_have_class("prose fold folded", timeout=WAIT)
    finally:
        context.close()
