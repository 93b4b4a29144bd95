"""Choosing on a phone, step by step: at an Age of Summoners table with many choices the action
bar keeps to a third of a 390×844 screen, shows fewer buttons first, and a summon chosen card by
card, then payment, is played (with and without JavaScript)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from axe_pages import axe
from flask_babel import force_locale
from playwright.sync_api import Browser, Locator, Page, expect
from served_app import Served, serve
from table_helpers import load, new_table

from companion.store.db import connect
from companion.streams import matches
from companion.web.boards import summoners as board

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}
SHOTS = Path(__file__).resolve().parent.parent / "test-results" / "screenshots"
ANN_AND_THREE_BOTS = {
    "seat-0-kind": "person",
    "seat-0-name": "Ann",
    **{f"seat-{i}-kind": "random" for i in (1, 2, 3)},
    **{f"seat-{i}-name": name for i, name in ((1, "Bo"), (2, "Cy"), (3, "Di"))},
}
# Buttons and step summaries the player can see now, in the action bar.
VISIBLE = ".action-bar button:visible, .action-bar summary:visible"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serve(Path(tmp_path_factory.mktemp("phone"))) as s:
        yield s


def crowded_table(served: Served, seed: int) -> tuple[str, int]:
    """A table where Ann, in phase II, may summon several spirits among a dozen or more choices;
    returns its token and how many buttons the flat list had. Deals are random: a match that
    ends first is set aside for a new one."""
    rng = random.Random(seed)
    for _ in range(10):
        token = new_table(served.client, "age-of-summoners", **ANN_AND_THREE_BOTS)
        flat = crowd(served, token, rng)
        if flat:
            return token, flat
    raise AssertionError("no crowded turn came in ten matches")


def crowd(served: Served, token: str, rng: random.Random) -> int:
    """Play Ann's seat, keeping her mana, until a crowded turn (its button count) or the end (0)."""
    db = connect(served.app.config["DATABASE"])
    match = load(served.app, token)
    while match.game.result(match.state) is None:
        legal = match.game.legal_actions(match.state, 0)
        summons = [a for a in legal if a["type"] == "summon"]
        view = match.game.view(match.state, 0)
        with served.app.test_request_context(), force_locale("en"):
            flat = {board.label(a, view, match.names()) for a in legal}
        if match.state["await"]["phase"] == "main" and len(summons) >= 2 and len(flat) >= 12:
            return len(flat)
        hoard = [a for a in legal if a["type"] not in ("summon", "place")]  # keep mana for later
        match = matches.act(db, match, 0, rng.choice(hoard or legal), match.version)
    return 0


def open_as_ann(page: Page, served: Served, token: str) -> None:
    """Ann is the only person at the table: her hand shows with no cover to pass."""
    page.set_viewport_size(PHONE)
    page.route("**/*.ttf", lambda route: route.abort())  # 14 MB of fonts per page: not tested here
    page.goto(f"{served.base}/t/{token}/?lang=en")
    expect(page.locator(".action-bar")).to_be_visible()
    assert page.locator(".cover-screen").count() == 0


def bar_height(page: Page) -> float:
    box = page.locator(".action-bar").bounding_box()
    assert box is not None
    return float(box["height"])


def summon_step_by_step(page: Page) -> str:
    """Open "Summon a spirit", press the first card; pay the way the steps offer. Returns the
    spirit's name as its button said it."""
    page.locator(".action-bar summary:has-text('Summon a spirit')").click()
    summons = page.locator(".action-bar button:visible")
    expect(summons.first).to_contain_text("Summon ")
    assert summons.count() >= 2
    assert page.locator(".action-bar summary:visible").count() == 1  # the way back, nothing else
    name = summons.first.inner_text().removeprefix("Summon ").split(" (")[0]
    press(page, summons.first)
    while page.locator(".action-bar").get_by_text("Pay with").count():  # the payment's steps
        assert bar_height(page) <= PHONE["height"] / 3
        buttons = page.locator(".action-bar button:visible")
        while not buttons.count():  # open the first step until a payment's button shows
            page.locator(".action-bar details:not([open]) > summary:visible").first.click()
            assert bar_height(page) <= PHONE["height"] / 3
        press(page, buttons.first)
    return name


def blocking(page: Page) -> list[dict[str, Any]]:
    """axe-core's serious and critical findings on the page as it stands."""
    return [v for v in axe(page) if v["impact"] in ("serious", "critical")]


def press(page: Page, button: Locator) -> None:
    """Press a button that submits, and wait for the table that answers it."""
    version = page.locator(".table-layout").get_attribute("data-version")
    button.click()
    expect(page.locator(".table-layout")).not_to_have_attribute("data-version", str(version))
    page.wait_for_load_state("domcontentloaded")  # the new page's action bar is parsed too


def test_a_crowded_turn_on_a_phone_is_chosen_step_by_step(browser: Browser, served: Served) -> None:
    token, flat = crowded_table(served, seed=3)
    before = load(served.app, token).version
    page = browser.new_page()
    page.route("**/events*", lambda route: route.abort())  # polling, so a refresh can be forced
    try:
        open_as_ann(page, served, token)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "phone-steps-first.png"))
        assert bar_height(page) <= PHONE["height"] / 3
        first_level = page.locator(VISIBLE).count()
        assert 0 < first_level < flat
        assert page.locator(".action-bar .primary").count() == 0  # nothing chosen for Ann
        assert blocking(page) == []
        # The way back: open a step, close it again from its summary, by keyboard.
        summon = page.locator(".action-bar summary:has-text('Summon a spirit')")
        summon.focus()
        expect(summon).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.locator(".action-bar details[open]")).to_have_count(1)
        page.screenshot(path=str(SHOTS / "phone-steps-open.png"))
        assert bar_height(page) <= PHONE["height"] / 3
        assert blocking(page) == []
        # A live refresh (forced here by a version that never matches) keeps the opened step.
        page.evaluate("document.querySelector('.table-layout').dataset.old = 'yes'")
        page.route("**/version", lambda route: route.fulfill(json={"version": -1}))
        expect(page.locator(".table-layout[data-old]")).to_have_count(0)
        page.unroute("**/version")
        expect(page.locator(".action-bar details[open]")).to_have_count(1)
        expect(summon).to_be_focused()
        page.keyboard.press("Enter")
        expect(page.locator(VISIBLE)).to_have_count(first_level)
        name = summon_step_by_step(page)
        expect(page.locator(".log-lines")).to_contain_text(f"Ann summons {name}")
        assert load(served.app, token).version > before
    finally:
        page.close()


def test_step_by_step_needs_no_javascript(browser: Browser, served: Served) -> None:
    token, flat = crowded_table(served, seed=4)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        open_as_ann(page, served, token)
        assert 0 < page.locator(VISIBLE).count() < flat
        name = summon_step_by_step(page)
        expect(page.locator(".log-lines")).to_contain_text(f"Ann summons {name}")
    finally:
        context.close()


# The room an input leaves for text, and the width its placeholder needs in its own font.
ROOM_FOR_PLACEHOLDER = """(el) => {
  const style = getComputedStyle(el);
  const pen = document.createElement("canvas").getContext("2d");
  pen.font = `${style.fontSize} ${style.fontFamily}`;
  const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return [room, pen.measureText(el.placeholder).width];
}"""


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_the_lobby_fits_a_phone_and_a_new_browser_sees_no_errors(
    browser: Browser, served: Served, lang: str
) -> None:
    context = browser.new_context(viewport=PHONE)  # a browser that never came here
    page = context.new_page()
    failed: list[str] = []
    page.on(
        "console", lambda message: failed.append(message.text) if message.type == "error" else None
    )
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    try:
        page.goto(f"{served.base}/games/?lang={lang}")
        page.wait_for_load_state("networkidle")
        names = page.locator(".seat-row input")
        assert names.count() == 6
        for i in range(names.count()):
            room, needed = names.nth(i).evaluate(ROOM_FOR_PLACEHOLDER)
            assert room >= max(needed, 100), (i, room, needed)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"]  # nothing runs off the side
        assert failed == []
    finally:
        context.close()
