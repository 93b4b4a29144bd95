"""A phone that goes offline mid-turn, through `companion serve` in Chromium (Japanese): every
button of a turn pressed offline is answered by the app itself (never a browser error page),
nothing is sent by itself when the phone is back, and what is sent then is sent once. A page
that cannot be reached shows the app's own offline page; the service worker keeps no page under
a link and no data the server does not also have."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from playwright.sync_api import Browser, BrowserContext, Page, Route, expect
from racing import serving
from server_client import Server

pytestmark = pytest.mark.browser
WAIT = 30_000
UNSENT = "オフラインのため送っていません"
SETUP = {
    "pioneer": {"name": "汐見ナギ", "people": "人間", "concept": "灯台守の娘。"},
    "players": ["あかり"],
    "oldest": 0,
    "language": "ja",
    "mode": "digital",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("offline")) as running:
        yield running


class Api:
    def __init__(self, server: Server) -> None:
        self.base = server.url
        made = requests.post(f"{self.base}/api/v1/chronicles", json=SETUP, timeout=60).json()
        self.token = made["host_token"]

    def state(self) -> dict[str, Any]:
        url = f"{self.base}/api/v1/chronicles/{self.token}/state"
        return requests.get(url, timeout=60).json()  # type: ignore[no-any-return]

    def send(self, command: dict[str, Any]) -> None:
        body = {"version": self.state()["version"], "command": command}
        url = f"{self.base}/api/v1/chronicles/{self.token}/commands"
        assert requests.post(url, json=body, timeout=60).status_code == 200


def _abort_the_workers_requests(route: Route) -> None:
    # Playwright's offline switch does not reach a service worker's own fetches: cut them too.
    if route.request.service_worker is not None:
        route.abort("internetdisconnected")
    else:
        route.continue_()


def offline(context: BrowserContext, on: bool) -> None:
    if on:
        context.set_offline(True)
        context.route("**/*", _abort_the_workers_requests)
    else:
        context.unroute("**/*", _abort_the_workers_requests)
        context.set_offline(False)


@pytest.fixture
def phone(browser: Browser) -> Iterator[tuple[BrowserContext, Page]]:
    context = browser.new_context(
        locale="ja-JP", viewport={"width": 390, "height": 844}, service_workers="allow"
    )
    try:
        yield context, context.new_page()
    finally:
        context.close()


def controlled(page: Page, url: str) -> None:
    """Open ``url`` and wait until the service worker answers for the page."""
    page.goto(url)
    page.wait_for_function(
        "() => !!navigator.serviceWorker && navigator.serviceWorker.controller !== null",
        timeout=WAIT,
    )
    page.reload()
    expect(page.locator("#turn-title")).to_be_visible(timeout=WAIT)


def press_offline_then_send(
    context: BrowserContext, page: Page, api: Api, button: str, moves: int
) -> None:
    """Press ``button`` offline: the app says it was not sent and the table is unchanged; back
    online it is still not sent until "send it now" is pressed, and then it is sent once."""
    before = api.state()["version"]
    offline(context, True)
    page.locator(button).first.click()
    note = page.locator(".unsent")
    expect(note).to_contain_text(UNSENT, timeout=WAIT)
    assert not page.url.startswith("chrome-error://")
    expect(note.locator("button.send-again")).to_be_disabled()
    assert api.state()["version"] == before
    offline(context, False)  # the page hears from the server again (its feed, or a poll)
    expect(note).to_contain_text("つながりました", timeout=WAIT)
    assert api.state()["version"] == before  # never sent by itself
    with page.expect_navigation(timeout=WAIT):
        note.locator("button.send-again").click()
    expect(page.locator(".unsent")).to_have_count(0, timeout=WAIT)
    after = api.state()
    assert after["version"] == before + moves, (button, before, after["version"])


def test_every_button_of_a_turn_pressed_offline_is_not_sent_until_asked(
    phone: tuple[BrowserContext, Page], server: Server
) -> None:
    context, page = phone
    api = Api(server)
    controlled(page, f"{api.base}/c/{api.token}/")
    press_offline_then_send(context, page, api, "button[value=draw]", 1)
    expect(page.locator("#answer")).to_be_editable(timeout=WAIT)
    page.check("input[name=prompt][value='0']")
    page.fill("#answer", "嵐の夜に小舟を出した。")
    page.fill("#stakes_success", "妹を救う。")
    page.fill("#stakes_failure", "舟を失う。")
    press_offline_then_send(context, page, api, "button[value=save]", 3)  # prompt, answer, stakes
    expect(page.locator("#answer")).to_have_value("嵐の夜に小舟を出した。", timeout=WAIT)
    press_offline_then_send(context, page, api, "button[value='veil:1']", 1)
    expect(page.locator("button[value=roll]")).to_be_visible(timeout=WAIT)
    press_offline_then_send(context, page, api, "button[value=roll]", 1)
    state = api.state()
    if state["step"] == "failure":
        if any(item["type"] == "sacrifice-keystone" for item in state["legal"]):
            card = page.locator("form:has(button[value=sacrifice])")
            card.locator("input[name=keystone]").first.check()
            card.locator("textarea[name=why]").fill("舟を手放した。")
            card.locator("textarea[name=outcome]").fill("妹は助かった。")
            press_offline_then_send(context, page, api, "button[value=sacrifice]", 2)
        else:
            press_offline_then_send(context, page, api, "button[value=accept]", 1)
    else:
        page.fill("#narration", "夜明けに岬へ着いた。")
        press_offline_then_send(context, page, api, "button[value=narrate]", 1)
    undo = "form.undo-form button:not([disabled])"
    if page.locator(undo).count():
        press_offline_then_send(context, page, api, undo, 1)


def test_a_page_that_cannot_be_reached_shows_the_apps_own_page(
    phone: tuple[BrowserContext, Page], server: Server
) -> None:
    context, page = phone
    api = Api(server)
    controlled(page, f"{api.base}/c/{api.token}/")
    offline(context, True)
    page.locator("nav a", has_text="物語").click()
    expect(page.locator("h1")).to_have_text("この端末はオフラインです", timeout=WAIT)
    assert not page.url.startswith("chrome-error://")
    expect(page.locator("text=This device is offline")).to_be_visible()
    offline(context, False)
    reload_once_online(page)
    expect(page.locator("h1")).to_contain_text("汐見ナギ", timeout=WAIT)


def reload_once_online(page: Page, tries: int = 10) -> None:
    """Reload, as a person back online does, until the page comes from the server again.

    The first reload after the test lifts its cut of the service worker's own requests
    (``offline``) has now and then still found the worker's fetch cut and shown the offline
    page; a person back online reloads again, and so does this."""
    for _ in range(tries):
        page.reload(wait_until="load")
        if page.locator("h1", has_text="この端末はオフラインです").count() == 0:
            return


def test_a_form_the_network_dropped_comes_back_to_be_sent_once(
    phone: tuple[BrowserContext, Page], server: Server
) -> None:
    """The device says it is online but the network is gone (the post is lost on its way):
    the worker answers with the offline page, the form ready to send again by hand."""
    context, page = phone
    api = Api(server)
    api.send({"type": "draw-card"})
    controlled(page, f"{api.base}/c/{api.token}/")
    before = api.state()["version"]

    def drop(route: Route) -> None:
        route.abort("internetdisconnected")

    context.route("**/turn", drop)
    page.check("input[name=prompt][value='0']")
    page.fill("#answer", "届かなかった答え。")
    page.locator("button[value=save]").click()
    expect(page.locator("h1")).to_have_text("この端末はオフラインです", timeout=WAIT)
    expect(page.locator("text=押した操作は送られていません。")).to_be_visible()
    expect(page.locator(".kept-text")).to_contain_text("届かなかった答え。")
    assert api.state()["version"] == before
    context.unroute("**/turn", drop)
    with page.expect_navigation(timeout=WAIT):
        page.locator("form.resend button[type=submit]").click()
    expect(page.locator("#answer")).to_have_value("届かなかった答え。", timeout=WAIT)
    assert api.state()["version"] == before + 2  # the prompt chosen and the answer, once


def test_the_worker_keeps_only_its_own_page(
    phone: tuple[BrowserContext, Page], server: Server
) -> None:
    _context, page = phone
    api = Api(server)
    controlled(page, f"{api.base}/c/{api.token}/")
    page.goto(f"{api.base}/c/{api.token}/story")
    cached = page.evaluate(
        """async () => { const out = [];
          for (const name of await caches.keys()) {
            const cache = await caches.open(name);
            for (const request of await cache.keys()) out.push(new URL(request.url).pathname);
          }
          return out; }"""
    )
    assert "/offline" in cached
    assert not [path for path in cached if path.startswith(("/c/", "/t/", "/api/"))], cached
    # Besides its offline page, only files whose names hold their content (the shell and the
    # font slices pages asked for).
    named = re.compile(r"/static/[\w/.-]+\.[0-9a-f]{12}\.\w+")
    assert all(named.fullmatch(path) for path in cached if path != "/offline"), cached
    assert any(path.startswith("/static/css/app.") for path in cached)
    # The next page takes its files from the worker, not the network.
    served: list[bool] = []
    page.on(
        "response",
        lambda r: served.append(r.from_service_worker) if "/static/css/app." in r.url else None,
    )
    page.goto(f"{api.base}/c/{api.token}/links")
    assert served == [True]
