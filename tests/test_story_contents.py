"""The story of a long life has a contents bar: every stage and round, one tap away on a phone."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from play_helpers import chronicle, create, play_to_the_end
from playwright.sync_api import Browser
from served_app import Served, serve


def contents(html: str) -> str:
    found = re.search(r'<nav class="story-toc" aria-label="[^"]+">(.*?)</nav>', html, re.S)
    assert found, "no contents"
    return found.group(1)


def test_the_contents_name_every_stage_and_round_and_each_link_lands(
    client: FlaskClient, app: Flask
) -> None:
    token = create(client)
    play_to_the_end(client, app, token)
    html = client.get(f"/c/{token}/story?lang=ja").get_data(as_text=True)
    toc = contents(html)
    targets = re.findall(r'href="#([\w-]+)"', toc)
    state = chronicle(app, token).state
    stages = {f"stage-{n}" for n in range(4) if f'id="stage-{n}"' in html}
    assert stages and stages <= set(targets)
    rounds = [t for t in targets if "-round-" in t]
    assert len(rounds) >= len(stages)  # at least one round in each stage
    assert "第1ラウンド" in toc
    for target in targets:  # every link lands on something on the page
        assert f'id="{target}"' in html, target
    assert state.ended


def test_a_story_with_nothing_yet_has_no_contents(client: FlaskClient) -> None:
    token = create(client)
    html = client.get(f"/c/{token}/story").get_data(as_text=True)
    assert 'class="story-toc"' not in html


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serve(Path(tmp_path_factory.mktemp("contents"))) as s:
        yield s


@pytest.mark.browser
def test_the_contents_stay_on_screen_and_take_a_reader_to_a_round(
    browser: Browser, served: Served
) -> None:
    token = create(served.client)
    play_to_the_end(served.client, served.app, token)
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        page.goto(f"{served.base}/c/{token}/story")
        bar = page.locator(".story-toc summary")
        page.mouse.wheel(0, 20000)  # far down the story
        page.wait_for_function("window.scrollY > 2000")
        box = bar.bounding_box()
        assert box is not None and 0 <= box["y"] < 844, box  # still on screen
        bar.click()
        last = page.locator(".story-toc .toc-rounds a").last
        target = str(last.get_attribute("href"))
        last.click()
        page.wait_for_function(f"location.hash === {target!r}")
        assert page.locator(".story-toc details").get_attribute("open") is None  # folded away
        anchor = page.locator(target).bounding_box()
        assert anchor is not None and 0 <= anchor["y"] < 844 / 2, anchor
    finally:
        page.close()
