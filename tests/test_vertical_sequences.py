"""The vertical book sets a character and what joins it (ZWJ, variation selectors, skin tones,
keycaps, tags) as one glyph down the column, as the horizontal books do."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser

from companion.base.paths import CHECKOUT as ROOT
from companion.export.vertical import tate_chu_yoko

SEQUENCES = (
    "👩\u200d👩\u200d👧",  # a family: three heads when split
    "🏳\u200d🌈",
    "👨🏽\u200d💻",
    "🐈\u200d⬛",
    "👍🏽",
    "❤\ufe0f",
    "葛\U000e0100",  # an ideographic variation sequence
)


def test_each_sequence_is_wrapped_whole_and_short_numbers_still_stand_upright() -> None:
    text = "".join(f"あ{sequence}い" for sequence in SEQUENCES) + " 12歳 1\ufe0f\u20e3 🦊"
    html = tate_chu_yoko(f'<p title="👩\u200d👧">{text}</p>')
    for sequence in SEQUENCES:
        assert f'<span class="upright">{sequence}</span>' in html
    assert '<span class="tcy">12</span>' in html
    assert '<span class="upright">1\ufe0f\u20e3</span>' in html  # a keycap, not 縦中横
    assert " 🦊</p>" in html  # a lone emoji needs nothing
    assert 'title="👩\u200d👧"' in html  # never inside a tag


@pytest.mark.browser
def test_chromium_draws_each_sequence_as_one_glyph_down_the_column(
    browser: Browser, tmp_path: Path
) -> None:
    """Each sequence takes the length of one glyph in the column (a lone emoji's), not several."""
    css = (ROOT / "static" / "css" / "vertical.css").as_uri()
    rows = "".join(f'<p>あ<span class="seq">{s}</span>い</p>' for s in ("🦊", *SEQUENCES))
    page_file = tmp_path / "page.html"
    page_file.write_text(
        f'<html lang="ja"><head><link rel="stylesheet" href="{css}"></head>'
        f"<body>{tate_chu_yoko(rows)}</body></html>",
        encoding="utf-8",
    )
    # The session's Chromium (pytest-playwright's, Debian's own): a second Playwright of its
    # own would find the session's event loop running.
    page = browser.new_page()
    try:
        page.goto(page_file.as_uri(), wait_until="load")
        # Every face the column may take a glyph from, loaded for the very characters shown
        # (on a busy machine the load event can come before a face the text needs).
        page.evaluate(
            """async () => {
              const text = [...document.querySelectorAll('.seq')]
                .map(span => span.textContent).join('') + 'あい';
              const faces = ['IPAexMincho', 'Ijin Hangul', 'Ijin Emoji', 'Ijin Symbols'];
              await Promise.all(faces.map(face => document.fonts.load(`16px "${face}"`, text)));
              await document.fonts.ready;
              await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
            }"""
        )
        lengths = page.evaluate(
            "() => [...document.querySelectorAll('.seq')].map(span => [getComputedStyle("
            "span).writingMode, span.getBoundingClientRect().height])"
        )
    finally:
        page.close()
    assert {mode for mode, _ in lengths} == {"vertical-rl"}
    one = lengths[0][1]  # a lone emoji
    assert one > 0
    for sequence, (_, length) in zip(SEQUENCES, lengths[1:], strict=True):
        assert length <= one * 1.05, f"{sequence!r} takes {length / one:.1f} glyphs"
