"""axe-core finds no serious or critical problem on any page, in Japanese and English, on a
desktop and a phone; other players' moves are announced; motion is reduced on request."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from axe_pages import AXE, SIZES, axe, failure_with_every_choice, pages
from play_helpers import create, faces, post_turn
from playwright.sync_api import Browser, expect
from served_app import Served, serve
from table_helpers import act, buttons, load, new_table
from table_helpers import page as served_page

pytestmark = pytest.mark.browser
BLOCKING = ("serious", "critical")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serve(Path(tmp_path_factory.mktemp("axe"))) as s:
        yield s


def test_every_page_passes_axe(browser: Browser, served: Served) -> None:
    paths = pages(served.client, served.app)
    context = browser.new_context()
    context.add_init_script(AXE)  # each page gets axe as it loads, whatever its CSP says
    page = context.new_page()
    problems: list[str] = []
    impacts: Counter[str] = Counter()
    checked = 0
    try:
        for size, (width, height) in SIZES.items():
            page.set_viewport_size({"width": width, "height": height})
            for lang in ("ja", "en"):
                for name, path in paths.items():
                    response = page.goto(f"{served.base}{path}?lang={lang}")
                    assert response is not None
                    assert response.status == (404 if name == "not-found" else 200), name
                    assert page.evaluate("document.documentElement.lang") == lang, name
                    for violation in axe(page):
                        impacts[violation["impact"]] += 1
                        if violation["impact"] in BLOCKING:
                            problems.append(f"{name} {lang} {size}: {violation}")
                    checked += 1
                # The sheet of links exists only in the answer to the host's form.
                page.goto(f"{served.base}{paths['links']}?lang={lang}")
                page.click("button[value=everyone]")
                expect(page.locator(".link-card")).to_have_count(4)
                problems += [
                    f"links-sheet {lang} {size}: {v}" for v in axe(page) if v["impact"] in BLOCKING
                ]
    finally:
        context.close()
    print(f"axe: {checked} page views, violations by impact: {dict(impacts)}")
    assert checked == len(paths) * 4
    assert problems == []


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_the_failure_choices_keep_the_heading_order(
    browser: Browser, served: Served, lang: str
) -> None:
    path = failure_with_every_choice(served.client, served.app)
    page = browser.new_page()
    try:
        page.goto(f"{served.base}{path}?lang={lang}")
        expect(page.locator("form.choice-card")).to_have_count(3)
        found = {v["id"]: v for v in axe(page)}
    finally:
        page.close()
    assert "heading-order" not in found, found["heading-order"]


def test_axe_does_report_a_broken_page(browser: Browser) -> None:
    page = browser.new_page()
    try:
        page.set_content('<html><body><img src="x.png"><button></button></body></html>')
        found = {v["id"]: v["impact"] for v in axe(page)}
    finally:
        page.close()
    assert found.get("image-alt") == "critical" and found.get("button-name") == "critical"


def test_another_players_move_is_announced_politely(browser: Browser, served: Served) -> None:
    token = create(served.client)
    page = browser.new_page()
    try:
        page.goto(f"{served.base}/c/{token}/?lang=en")
        region = page.locator("#announce")
        expect(region).to_have_attribute("aria-live", "polite")
        expect(region).to_have_text("")
        post_turn(served.client, served.app, token, action="draw", card="2H")
        expect(region).to_have_text("Ali drew 2 of Hearts ♥.")
        fields = {"prompt": "0", "answer": "A", "stakes_success": "S", "stakes_failure": "F"}
        post_turn(served.client, served.app, token, action="roll", **fields, **faces(4, True))
        expect(region).to_have_text("Ali rolled 6, 1, 1, 1: a success.")
    finally:
        page.close()


def test_dice_stay_still_when_motion_is_reduced(browser: Browser, served: Served) -> None:
    token = create(served.client)
    post_turn(served.client, served.app, token, action="draw", card="2H")
    fields = {"prompt": "0", "answer": "A", "stakes_success": "S", "stakes_failure": "F"}
    post_turn(served.client, served.app, token, action="roll", **fields, **faces(4, True))
    spin = "(() => { const r = document.querySelector('.rolls .roll'); r.classList.add('rolling');"
    spin += " return getComputedStyle(r.querySelector('.die')).animationName; })()"
    names = {}
    for motion in ("no-preference", "reduce"):
        context = browser.new_context(reduced_motion=motion)
        page = context.new_page()
        page.goto(f"{served.base}/c/{token}/")
        names[motion] = page.evaluate(spin)
        context.close()
    assert names == {"no-preference": "tumble", "reduce": "none"}


def test_a_move_at_a_card_table_is_announced(browser: Browser, served: Served) -> None:
    token = new_table(served.client, "traitors-flame")
    page = browser.new_page()
    try:
        page.goto(f"{served.base}/t/{token}/?lang=en")
        region = page.locator("#announce")
        expect(region).to_have_attribute("aria-live", "polite")
        before = page.locator(".log-lines li").count()
        match = load(served.app, token)
        seat = str(match.acting_seats()[0])
        served.client.post(f"/t/{token}/reveal", data={"seat": seat})  # past the cover screen
        offered = buttons(served_page(served.client, f"/t/{token}/"))
        assert offered
        act(served.client, token, load(served.app, token), offered[0])
        expect(page.locator(".log-lines li")).not_to_have_count(before)
        # A bot may move right after: the announcement and the newest line of the log are
        # compared as the page stands, each time it changes, until they agree.
        page.wait_for_function(
            """() => {
              const said = document.querySelector("#announce").textContent.trim();
              const newest = document.querySelector(".log-lines li");
              return said !== "" && newest !== null && said === newest.innerText.trim();
            }""",
            timeout=15000,
        )
    finally:
        page.close()
