"""A real browser (Debian's Chromium) plays a whole life: setup, turns, undo, a correction."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parent.parent
# Screenshots of the English table go to test-results/; the README's come from test_browser_journey.
SHOTS = ROOT / "test-results" / "screenshots"


def fill_setup(page: Page, base: str) -> None:
    page.goto(f"{base}/new?lang=en")
    page.fill("#player-0", "Ali")
    page.fill("#player-1", "Brianna")
    page.check("input[name=oldest][value='0']")
    page.check("input[name=mode][value=table]")
    page.fill("#pioneer", "Kaya Wren")
    page.fill("#concept", "A cartographer of drowned coasts.")
    page.fill("#resource-0-name", "The Tern")
    page.fill("#attachment-0-name", "Sister Ide")
    page.fill("#creed-0-name", "Maps must be true")
    page.click("button:has-text('Begin the chronicle')")
    expect(page.locator("h1")).to_contain_text("Links to this chronicle")
    page.click("text=Go to the table")


def enter_faces(page: Page, hit: bool) -> None:
    faces = page.locator("input[name^=face-]")
    for i in range(faces.count()):
        faces.nth(i).fill("6" if hit and i == 0 else "2")


def draw(page: Page) -> None:
    """Draw once the page that offers the draw has loaded: the previous move's page may still
    be on screen, and a card chosen there would be lost with it."""
    button = page.locator("button[value=draw]")
    expect(button).to_be_visible()
    picker = page.locator("select#card")
    if picker.count():  # table mode: the picker starts on no card
        picker.select_option(index=1)
        expect(picker).not_to_have_value("")
    button.click()
    expect(page.locator(".drawn-card")).to_be_visible()


def compose_and_roll(page: Page, hit: bool, answer: str = "She keeps going.") -> None:
    page.check("input[name=prompt][value='0']")
    page.fill("#answer", answer)
    page.fill("#stakes_success", "The coast is mapped.")
    page.fill("#stakes_failure", "The map is lost.")
    enter_faces(page, hit)
    page.click("button[value=roll]")


def test_a_whole_life_in_the_browser(page: Page, live_server: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    fill_setup(page, live_server)
    # Round 1: three successes build a legacy mark.
    for turn in range(3):
        draw(page)
        if turn == 0:
            page.set_viewport_size({"width": 1280, "height": 900})
            page.screenshot(path=str(SHOTS / "play-desktop.png"), full_page=True)
            page.set_viewport_size({"width": 375, "height": 812})
            page.screenshot(path=str(SHOTS / "play-phone.png"), full_page=True)
            page.set_viewport_size({"width": 1280, "height": 900})
        compose_and_roll(page, hit=True, answer=f"Turn {turn + 1}: *she sails*.")
        expect(page.locator(".outcome.success")).to_be_visible()
        if turn < 2:
            page.click("button[value=narrate]")
        else:
            page.fill("#mark_name", "The Drowned Coast Atlas")
            page.click("button[value=mark]")
    expect(page.locator(".mark-slot.built")).to_have_count(1)
    # Undo a draw: the card goes back and the turn waits for a draw again.
    draw(page)
    expect(page.locator(".drawn-card")).to_be_visible()
    page.click("button:has-text('Take back:')")
    expect(page.locator(".flash-success")).to_contain_text("taken back")
    expect(page.locator("button[value=draw]")).to_be_visible()
    # The other eleven rounds fail on their first turn until old age ends.
    for _ in range(11):
        draw(page)
        compose_and_roll(page, hit=False)
        page.fill("form:has(button[value=accept]) textarea[name=narration]", "It slips away.")
        page.click("button[value=accept]")
    expect(page.locator("h1")).to_contain_text("has ended")
    # Correct a text in the story log; the earlier version stays in its history.
    page.click("nav >> text=Story")
    page.locator(".story-text.answer").first.locator("a:has-text('Correct this text')").click()
    page.fill("#fix-text", "Turn 1: *she sails at dawn*.")
    page.click("button:has-text('Save the correction')")
    expect(page.locator(".flash-success")).to_contain_text("correction")
    expect(page.locator(".story-text.answer").first.locator(".prose").first).to_contain_text(
        "she sails at dawn"
    )
    expect(page.locator(".story-text.answer").first.locator(".history summary")).to_be_visible()
    # The end page: the mark and the timeline with twelve rounds.
    page.click("nav >> text=The life")
    expect(page.locator(".mark-result")).to_contain_text("The Drowned Coast Atlas")
    expect(page.locator("svg.timeline polygon[fill='#c9a227']")).to_have_count(1)
    page.fill("#epilogue-text", "The atlas outlived her.")
    page.click("button:has-text('Keep the epilogue')")
    expect(page.locator("#epilogue .prose")).to_contain_text("The atlas outlived her.")


def test_live_update_reaches_a_second_page(page: Page, live_server: str) -> None:
    fill_setup(page, live_server)
    watcher = page.context.browser.new_context().new_page()  # a second device
    watcher.goto(page.url)
    draw(page)
    expect(watcher.locator(".drawn-card")).to_be_visible()
    watcher.fill("#answer", "typed on the second page")
    page.check("input[name=prompt][value='1']")
    page.click("button[value=save]")
    expect(watcher.locator("input[name=prompt][value='1']")).to_be_checked()
    expect(watcher.locator("#answer")).to_have_value(re.compile("typed on the second page"))


def test_a_seat_on_a_phone_rolls_and_the_host_sees_it_live(page: Page, live_server: str) -> None:
    fill_setup(page, live_server)
    table = page.url
    page.click("nav >> text=Links")
    page.click("button:has-text('Seat link: Ali')")
    seat_url = page.locator(".fresh-link code").inner_text()
    page.goto(table)
    phone_context = page.context.browser.new_context(viewport={"width": 375, "height": 740})
    phone = phone_context.new_page()
    phone.goto(seat_url)
    draw(phone)
    expect(page.locator(".drawn-card")).to_be_visible()
    compose_and_roll(phone, hit=True, answer="From the phone.")
    expect(page.locator(".rolls .roll")).to_have_count(1)
    expect(page.locator(".rolls .roll .die")).to_have_count(4)
    expect(page.locator(".outcome.success")).to_be_visible()
    phone_context.close()


@contextmanager
def ali_on_a_phone(page: Page, live_server: str) -> Iterator[Page]:
    """A new life whose first card is drawn on the table's screen (``page``, the host's), and
    Ali's seat link open on a phone of its own, closed again after."""
    fill_setup(page, live_server)
    table = page.url
    page.click("nav >> text=Links")
    page.click("button:has-text('Seat link: Ali')")
    seat_url = page.locator(".fresh-link code").inner_text()
    page.goto(table)
    draw(page)
    phone_context = page.context.browser.new_context(viewport={"width": 375, "height": 740})
    try:
        phone = phone_context.new_page()
        phone.goto(seat_url)
        yield phone
    finally:
        phone_context.close()


def test_a_page_still_says_its_draft_was_saved_after_another_device_types(
    page: Page, live_server: str
) -> None:
    """A seat's phone saves its answer and says so; the host then types the stakes on the
    table's screen, and the phone's page, refreshed to show who is writing, still says its own
    draft was saved (the words it keeps are still those the server stored)."""
    with ali_on_a_phone(page, live_server) as phone:
        phone.fill("#answer", "Ali's own words.")
        expect(phone.locator(".save-status").first).to_have_text("Draft saved")
        phone.locator("h1").click()  # out of the field: a refresh may show everyone's words
        page.fill("#stakes_success", "The host's stakes.")
        expect(phone.locator("#live")).to_contain_text("The host is writing for Ali")
        expect(phone.locator("#answer")).to_have_value("Ali's own words.")
        expect(phone.locator(".save-status").first).to_have_text("Draft saved")


def test_the_field_one_is_in_keeps_its_words_when_another_device_types(
    page: Page, live_server: str
) -> None:
    """A seat's phone is in its empty answer box when the host types the same answer on the
    table's screen: the phone's box stays as the phone left it, under its caret, and what the
    phone then types is its own, whole."""
    with ali_on_a_phone(page, live_server) as phone:
        phone.focus("#answer")
        page.fill("#answer", "The host's words.")
        expect(phone.locator("#live")).to_contain_text("The host is writing for Ali")
        expect(phone.locator("#answer")).to_be_focused()
        expect(phone.locator("#answer")).to_have_value("")
        phone.keyboard.insert_text("Ali's own words.")
        expect(phone.locator("#answer")).to_have_value("Ali's own words.")
