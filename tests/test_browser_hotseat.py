"""逆臣の炎 on one passed phone, in Chromium: a card just drawn stays on screen for its player,
with a button to pass the device on, before the cover hides every hand again; the screen
passes axe in Japanese and English on a phone and a desktop."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from axe_pages import SIZES, axe
from playwright.sync_api import Browser, expect
from served_app import Served, serve

pytestmark = pytest.mark.browser
WAIT = 30_000


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serve(Path(tmp_path_factory.mktemp("hotseat"))) as s:
        yield s


def test_a_drawn_card_is_seen_before_the_device_is_passed(browser: Browser, served: Served) -> None:
    context = browser.new_context(locale="ja-JP", viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        page.goto(f"{served.base}/games/?lang=ja")
        page.select_option("#game", "traitors-flame")
        page.check("input[name=mode][value=hotseat]")
        page.fill("#seat-0-name", "あかり")
        page.select_option("#seat-0-kind", "person")
        page.fill("#seat-1-name", "そら")
        page.select_option("#seat-1-kind", "person")
        page.select_option("#seat-2-kind", "none")
        page.click("button:has-text('配る')")
        cover = page.locator(".cover-screen")
        expect(cover).to_be_visible(timeout=WAIT)
        cover.locator("button").first.click()
        expect(page.locator(".tf-own")).to_be_visible(timeout=WAIT)
        mover = re.sub(r"\s+", "", page.locator(".whose-link").inner_text())
        page.locator("button[name=action]", has_text=re.compile("引く")).first.click()
        passing = page.locator(".pass-on")
        expect(passing).to_be_visible(timeout=WAIT)
        expect(passing.locator("h2")).to_contain_text("の手番が終わりました")
        expect(page.locator(".tf-own")).to_be_visible()  # the hand, the drawn card in it
        assert mover.endswith("のものです。")
        problems = []
        for size, (width, height) in SIZES.items():
            page.set_viewport_size({"width": width, "height": height})
            for lang in ("ja", "en"):
                page.goto(f"{page.url.split('?')[0]}?lang={lang}")
                expect(page.locator(".pass-on")).to_be_visible(timeout=WAIT)
                problems += [
                    f"{size} {lang}: {v}"
                    for v in axe(page)
                    if v["impact"] in ("serious", "critical")
                ]
        assert problems == []
        page.goto(f"{page.url.split('?')[0]}?lang=ja")
        page.locator(".pass-on button").click()
        expect(page.locator(".cover-screen")).to_be_visible(timeout=WAIT)
        expect(page.locator(".tf-own")).to_have_count(0)
    finally:
        context.close()
