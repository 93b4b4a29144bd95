"""A whole solo life played with the keyboard alone through `companion serve`: after the first
page load, only Tab, Shift+Tab, Enter, Space, arrow keys and typed text; no click, no fill."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from playwright.sync_api import Locator, Page, expect
from racing import serving
from server_client import Server

pytestmark = pytest.mark.browser
WAIT = 30_000
PRESSES = 60  # Tab stops one may need to reach any control of a page
EPILOGUE = "The lighthouse still stands on the cape."


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("keyboard")) as running:
        yield running


def focused(page: Page) -> str:
    """The focused element, described for a failure message."""
    return str(
        page.evaluate(
            """() => { const e = document.activeElement;
              if (!e || e === document.body) return 'nothing (the page itself)';
              const text = (e.getAttribute('aria-label') || e.innerText || e.value || '').trim();
              return e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
                (e.name ? '[name=' + e.name + ']' : '') + ' "' + text.slice(0, 60) + '"'; }"""
        )
    )


def tab_to(page: Page, target: Locator, what: str, back: bool = False) -> None:
    """Press Tab (or Shift+Tab) until ``target`` has the focus, at most PRESSES times."""
    key = "Shift+Tab" if back else "Tab"
    expect(target.first).to_be_attached(timeout=WAIT)
    # The wanted elements are marked once (an accessible-name query costs more than a key press),
    # and again after a live refresh has put new elements in their place.
    mark = "els => els.forEach(e => e.setAttribute('data-wanted', ''))"
    where = """() => document.activeElement && document.activeElement.hasAttribute('data-wanted')
      ? 'here' : document.querySelector('[data-wanted]') ? 'elsewhere' : 'unmarked'"""
    try:
        for _ in range(PRESSES):
            found = page.evaluate(where)
            if found == "unmarked":
                target.evaluate_all(mark)
                found = page.evaluate(where)
            if found == "here":
                return
            page.keyboard.press(key)
        if page.evaluate(where) != "here":
            raise AssertionError(
                f"{PRESSES} presses of {key} never reached {what}; the focus is on {focused(page)}"
            )
    finally:
        page.evaluate(
            "document.querySelectorAll('[data-wanted]').forEach(e => e.removeAttribute('data-wanted'))"
        )


def control(page: Page, role: str, name: str | re.Pattern[str]) -> tuple[Locator, str]:
    return page.get_by_role(role, name=name), f"the {role} {name!r}"  # type: ignore[arg-type]


def press(page: Page, role: str, name: str | re.Pattern[str], key: str = "Enter") -> None:
    """Tab to the control with this role and name, then press ``key`` on it."""
    target, what = control(page, role, name)
    tab_to(page, target, what)
    page.keyboard.press(key)


def submit(page: Page, role: str, name: str | re.Pattern[str]) -> None:
    """Tab to a button or link and press Enter; wait for the page it leads to."""
    with page.expect_navigation(timeout=WAIT):
        press(page, role, name)
    expect(page.locator("h1").first).to_be_visible(timeout=WAIT)


def type_into(page: Page, role: str, name: str | re.Pattern[str], text: str) -> None:
    """Tab to a text field and type ``text``."""
    press(page, role, name, key="End")
    page.keyboard.insert_text(text)


def set_up(page: Page, base: str) -> str:
    page.goto(f"{base}/new?lang=en")
    modes = page.get_by_role("radiogroup", name="Cards and dice").get_by_role("radio")
    tab_to(page, modes, "the radio group 'Cards and dice'")  # Tab stops on the checked one
    page.keyboard.press("ArrowDown")  # arrows move within a radio group
    expect(page.get_by_role("radio", name=re.compile("real deck"))).to_be_checked()
    type_into(page, "textbox", "Seat 1", "Ali")
    press(page, "radio", "oldest", key="Space")
    type_into(page, "textbox", "Name", "Nagi Shiomi")
    type_into(page, "textbox", "Concept", "A lighthouse keeper's daughter.")
    type_into(page, "textbox", "Resources 1", "The Tern")
    type_into(page, "textbox", "Attachments 1", "Sister Mio")
    type_into(page, "textbox", "Creeds 1", "Keep the light burning")
    submit(page, "button", "Begin the chronicle")
    match = re.fullmatch(r".*/c/([^/]+)/", page.url)  # one player: straight to the table
    assert match, page.url
    return match.group(1)


def draw(page: Page) -> None:
    """Table mode: the first card of the real pile, chosen in the list with an arrow key."""
    press(page, "combobox", "Which card did you draw from the real pile?", key="ArrowDown")
    expect(page.locator("#card")).not_to_have_value("")
    submit(page, "button", re.compile("^Draw from the"))


def faces(page: Page, hit: bool) -> None:
    dice = page.locator("input[name^=face-]").count()
    assert dice > 0
    for die in range(dice):
        type_into(page, "spinbutton", f"Die {die + 1}", "6" if hit and die == 0 else "1")


def compose_and_roll(page: Page, hit: bool) -> None:
    prompts = page.locator("input[name=prompt]")
    tab_to(page, prompts, "a prompt's radio button")
    page.keyboard.press("Space")
    expect(prompts.first).to_be_checked()
    type_into(page, "textbox", re.compile("^The answer"), "The keeper rowed out at dusk.")
    type_into(page, "textbox", "On success, the Pioneer…", "reaches the wreck.")
    type_into(page, "textbox", "On failure, the Pioneer…", "loses the boat.")
    faces(page, hit)
    submit(page, "button", "Record the roll")


def state(base: str, token: str) -> dict[str, Any]:
    response = requests.get(f"{base}/api/v1/chronicles/{token}/state", timeout=60)
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


def sacrifice(page: Page) -> None:
    """Buy the failure back: the keystone's radio, both answers, the faces of the reroll."""
    press(page, "radio", re.compile("The Tern"), key="Space")
    type_into(page, "textbox", "Why was this sacrifice necessary?", "To reach the wreck.")
    type_into(page, "textbox", re.compile("^What came of the sacrifice"), "The Tern sank.")
    faces(page, hit=False)
    submit(page, "button", "Sacrifice and roll again")


def accept_with_a_loss(page: Page, base: str, token: str) -> None:
    """Accept the failure after opening the narrative loss (a disclosure) by keyboard; the page
    is refreshed live while the focus is on the button, which must keep it."""
    summary = page.locator("details.loss-fields > summary")
    tab_to(page, summary, "the summary of the narrative loss")
    page.keyboard.press("Enter")
    expect(page.locator("details.loss-fields")).to_have_attribute("open", "")
    press(page, "combobox", "Keystone lost", key="ArrowDown")
    type_into(page, "textbox", "How it was lost", "The storm took her.")
    accept, what = control(page, "button", "Accept the failure")
    tab_to(page, accept, what)
    moved_elsewhere(page, base, token, "Corrected from the story page, while Ali decides.")
    expect(accept, "a live refresh took the focus off the button").to_be_focused()
    with page.expect_navigation(timeout=WAIT):
        page.keyboard.press("Enter")
    after = state(base, token)
    assert after["step"] == "draw", "Enter on the focused button did not accept the failure"
    lost = {k["name"]: k["status"] for k in after["keystones"]}["Sister Mio"]
    assert lost == "lost", "the keystone chosen before the refresh was not kept by the page"


def moved_elsewhere(page: Page, base: str, token: str, text: str) -> None:
    """Another device corrects the first answer: this page refreshes live, on the same step."""
    life = state(base, token)
    story = requests.get(f"{base}/api/v1/chronicles/{token}/story", timeout=60).json()
    answer = story["chapters"][0]["turning_points"][0]["answer"]
    command = {"type": "revise-text", "target_seq": answer["seq"], "field": "answer", "text": text}
    response = requests.post(
        f"{base}/api/v1/chronicles/{token}/commands",
        json={"version": life["version"], "command": command},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    refreshed = page.locator(f"#live .table-layout[data-version='{life['version'] + 1}']")
    expect(refreshed).to_be_attached(timeout=WAIT)


def compose_through_a_refresh(page: Page, base: str, token: str) -> None:
    """Half the answer typed, a live refresh, the rest typed: the text must be whole."""
    prompts = page.locator("input[name=prompt]")
    tab_to(page, prompts, "a prompt's radio button")
    page.keyboard.press("Space")
    type_into(page, "textbox", re.compile("^The answer"), "The keeper rowed out")
    moved_elsewhere(page, base, token, "Corrected from the story page.")
    expect(page.locator("#answer"), "a live refresh took the focus off the answer").to_be_focused()
    page.keyboard.insert_text(" at dusk.")
    expect(page.locator("#answer")).to_have_value("The keeper rowed out at dusk.")
    type_into(page, "textbox", "On success, the Pioneer…", "reaches the wreck.")
    type_into(page, "textbox", "On failure, the Pioneer…", "loses the boat.")
    faces(page, hit=False)
    submit(page, "button", "Record the roll")


def test_a_whole_life_by_keyboard_alone(page: Page, server: Server) -> None:
    base = server.url
    token = set_up(page, base)
    checks = 0
    while not state(base, token)["ended"]:
        assert checks < 20, "the life should end after twelve failed rounds"
        draw(page)
        if checks == 1:
            compose_through_a_refresh(page, base, token)
        else:
            compose_and_roll(page, hit=False)
        if checks == 0:
            sacrifice(page)
        if checks == 1:
            accept_with_a_loss(page, base, token)
        else:
            type_into(page, "textbox", "Narration (optional)", "The round is lost.")
            submit(page, "button", "Accept the failure")
        checks += 1
    life = state(base, token)
    assert life["end"] == "old-age-ended" and checks == 12, (life["end"], checks)
    assert [k["status"] for k in life["keystones"]][:2] == ["sacrificed", "lost"]
    submit(page, "link", "See the whole life, and write the epilogue")
    type_into(page, "textbox", re.compile("What became of the Pioneer"), EPILOGUE)
    submit(page, "button", "Keep the epilogue")
    expect(page.locator("#epilogue .prose")).to_contain_text(EPILOGUE, timeout=WAIT)
    assert state(base, token)["epilogue"]["text"] == EPILOGUE
