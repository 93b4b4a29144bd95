"""On Japanese pages emphasis is 傍点 and nothing is slanted, the card games' notes included."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser
from served_app import Served, serve

pytestmark = pytest.mark.browser

NOTES = """<p lang="{lang}" id="probe"><em id="em">一度だけ</em>
<span class="veiled" id="veiled">伏せた問い</span>
<p class="tf-empty" id="tf">山札は空です</p><p class="aos-empty" id="aos">手札はありません</p></p>"""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serve(Path(tmp_path_factory.mktemp("emphasis"))) as s:
        yield s


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_emphasis_and_notes_are_upright_in_japanese(
    browser: Browser, served: Served, lang: str
) -> None:
    page = browser.new_page()
    try:
        page.goto(f"{served.base}/?lang={lang}")
        for sheet in ("traitors-flame.css", "age-of-summoners.css"):  # the games' own rules
            page.add_style_tag(url=f"{served.base}/static/css/{sheet}")
        page.evaluate(
            "html => document.body.insertAdjacentHTML('beforeend', html)", NOTES.format(lang=lang)
        )
        style = page.evaluate(
            """() => Object.fromEntries(['em', 'veiled', 'tf', 'aos'].map(id => {
                 const s = getComputedStyle(document.getElementById(id));
                 return [id, [s.fontStyle, s.textEmphasisStyle || s.webkitTextEmphasisStyle]];
               }))"""
        )
        if lang == "ja":
            assert {key: value[0] for key, value in style.items()} == dict.fromkeys(style, "normal")
            assert style["em"][1] in ("filled sesame", "sesame")  # filled is the default
        else:  # English keeps its italic
            assert style["em"][0] == "italic" and style["tf"][0] == "italic"
    finally:
        page.close()
