"""Japanese glyphs are drawn in the bundled faces (slices of IPAex), never as boxes, on a machine
without CJK fonts; English words in the device's own faces."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from play_helpers import create, play_turn
from playwright.sync_api import Browser, Page
from served_app import Served, fonts_for, serve

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serve(Path(tmp_path_factory.mktemp("fonts"))) as s:
        yield s


# Tags every visible leaf element holding kana or kanji; returns their tags.
MARK_JAPANESE = """() => [...document.querySelectorAll('body *')].filter((e, i) => {
  if (e.children.length || !/[\\u3040-\\u30ff\\u4e00-\\u9fff]/.test(e.textContent)) return false;
  if (!e.getClientRects().length || e.closest('select')) return false;
  e.setAttribute('data-probe', String(i));
  return true;
}).map(e => e.getAttribute('data-probe'))"""


def bundled(fonts: list[dict[str, object]]) -> bool:
    return bool(fonts) and all(
        f["isCustomFont"] and str(f["familyName"]).startswith("Ijin ") for f in fonts
    )


def _open(page: Page, url: str) -> None:
    """Open ``url`` as a returning visitor does: the faces are `font-display: optional`, so a
    first visit on a slow machine may draw in the device's face by design; once the faces the
    page asked for are in the browser's cache, a reload draws with them at once."""
    page.goto(url)
    page.evaluate("() => document.fonts.ready.then(() => true)")
    page.reload()


def test_japanese_glyphs_use_the_bundled_faces(browser: Browser, served: Served) -> None:
    token = create(served.client, language="ja")
    for hit in (True, True, True):
        play_turn(served.client, served.app, token, hit=hit)
    page = browser.new_page()
    try:
        # The language button on an English page.
        _open(page, f"{served.base}/?lang=en")
        button = fonts_for(page, ".lang-switch button")
        assert bundled(button), button
        # The stage labels of the timeline: the Gothic face on the Japanese end page, the
        # device's own on the English one.
        _open(page, f"{served.base}/c/{token}/end?lang=ja")
        label = fonts_for(page, "svg.timeline text")
        # Its kana and kanji in the Gothic slices (its digits in the device's own face).
        assert any(f["familyName"] == "Ijin Gothic" and f["isCustomFont"] for f in label), label
        _open(page, f"{served.base}/c/{token}/end?lang=en")
        label = fonts_for(page, "svg.timeline text")
        assert label and not any(f["isCustomFont"] for f in label), label
        # The mark's name is readable without hovering: a visible legend beside the picture.
        assert page.locator(".timeline-legend .legend-mark").first.is_visible()
        # Every element with Japanese text on English pages draws it in a bundled face.
        for path in ("/", "/new", f"/c/{token}/end", f"/c/{token}/story", "/games/"):
            _open(page, f"{served.base}{path}?lang=en")
            probes = page.evaluate(MARK_JAPANESE)
            assert probes or path != "/", path
            for probe in probes:
                used = fonts_for(page, f"[data-probe='{probe}']")
                assert any(str(f["familyName"]).startswith("Ijin ") for f in used), (path, used)
    finally:
        page.close()
