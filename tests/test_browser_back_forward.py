"""Back and Forward through a whole evening never show a browser error page: every form of a
life (set-up refused then made, the links sheet, turns, a refusal, undo, a correction, the
epilogue) and of a card table (the lobby, reveals, moves, passing the device) answers with a
redirect, so each history entry is a page the browser may load again. Through `companion serve`
in Chromium, in Japanese."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests
from playwright.sync_api import Browser, Page, expect
from racing import serving
from served_app import HOLD, TRACK_FEEDS
from server_client import Server

pytestmark = pytest.mark.browser
WAIT = 30_000


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("back-forward")) as running:
        yield running


def fine(page: Page) -> None:
    """The page is one of the app's, never the browser's error page nor a form resubmission."""
    assert not page.url.startswith("chrome-error://"), page.url
    expect(page.locator("header.site-header")).to_be_visible(timeout=WAIT)


def submit(page: Page, selector: str) -> None:
    with page.expect_navigation(timeout=WAIT):
        page.locator(selector).first.click()
    fine(page)


def walk_history(page: Page) -> int:
    """Back to the first page of the evening, then Forward to the last; the entries walked."""
    steps = 0
    while steps < 80 and page.go_back(timeout=WAIT) is not None:
        fine(page)
        steps += 1
    for _ in range(steps):
        page.go_forward(timeout=WAIT)
        fine(page)
    return steps


def test_a_life_walked_back_and_forth_shows_no_error_page(browser: Browser, server: Server) -> None:
    context = browser.new_context(locale="ja-JP", viewport={"width": 390, "height": 844})
    context.add_init_script(TRACK_FEEDS)
    page = context.new_page()
    other = browser.new_context(locale="ja-JP").new_page()
    try:
        page.goto(f"{server.url}/new?lang=ja")
        page.fill("#player-0", "あかり")
        page.fill("#player-1", "健太")
        page.check("input[name=oldest][value='0']")
        submit(page, "form.setup-form button.primary")  # no Pioneer: refused, the form kept
        expect(page.locator("#pioneer-error")).to_be_visible()
        expect(page.locator("#player-1")).to_have_value("健太")
        page.fill("#pioneer", "汐見ナギ")
        submit(page, "form.setup-form button.primary")
        submit(page, "button[value=everyone]")
        expect(page.locator(".link-card")).to_have_count(3)
        submit(page, "button[name=revoke]")
        page.locator("nav a", has_text="卓").click()
        fine(page)
        host = page.url
        submit(page, "button[value=draw]")
        page.evaluate(HOLD)  # this page is not refreshed: the other device will move first
        other.goto(host)
        page.check("input[name=prompt][value='0']")
        page.fill("#answer", "嵐の夜に小舟を出した。")
        page.fill("#stakes_success", "妹を救う。")
        page.fill("#stakes_failure", "舟を失う。")
        other.check("input[name=prompt][value='1']")
        other.fill("#answer", "別の端末の答え。")
        other.fill("#stakes_success", "成功。")
        other.fill("#stakes_failure", "失敗。")
        with other.expect_navigation(timeout=WAIT):
            other.click("button[value=roll]")
        submit(page, "button[value=roll]")  # refused: the other device rolled first
        expect(page.locator("#kept")).to_be_visible()
        submit(page, "#kept form button[value=drop]")
        submit(
            page,
            "form.undo-form button:not([disabled]), button[value=narrate], button[value=accept]",
        )
        page.locator("nav a", has_text="物語").click()
        fine(page)
        page.locator("a", has_text="この文章を修正する").first.click()
        fine(page)
        page.fill("#fix-text", "直した文章。")
        submit(page, "button:has-text('修正を保存')")
        assert walk_history(page) >= 10
    finally:
        context.close()
        other.context.close()


def test_a_card_table_walked_back_and_forth_shows_no_error_page(
    browser: Browser, server: Server
) -> None:
    context = browser.new_context(locale="ja-JP", viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        page.goto(f"{server.url}/games/?lang=ja")
        page.select_option("#game", "traitors-flame")
        for row in range(3):
            page.select_option(f"#seat-{row}-kind", "none")
        submit(page, "button:has-text('配る')")  # no seat: refused, the lobby says why
        expect(page.locator(".flash-error")).to_be_visible()
        page.fill("#seat-0-name", "あかり")
        page.select_option("#seat-0-kind", "person")
        page.fill("#seat-1-name", "そら")
        page.select_option("#seat-1-kind", "person")
        submit(page, "button:has-text('配る')")
        for _turn in range(3):
            submit(page, ".cover-screen button")
            submit(page, "button[name=action]")
            if page.locator(".pass-on").count():
                submit(page, ".pass-on button")
        token = page.url.split("/t/")[1].split("/")[0]
        version = requests.get(f"{server.url}/t/{token}/version", timeout=60).json()["version"]
        assert version > 1
        assert walk_history(page) >= 8
    finally:
        context.close()
