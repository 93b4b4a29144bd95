"""The stylesheet and the timeline name the bundled Japanese faces; the timeline names its signs."""

from __future__ import annotations

import re
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient
from play_helpers import create, play_turn

from companion.text.svg import TimelineRound, timeline

CSS = (Path(__file__).resolve().parent.parent / "static" / "css" / "app.css").read_text("utf-8")


def face_ranges(family: str) -> list[tuple[int, int]]:
    rule = re.search(r'@font-face \{ font-family: "' + re.escape(family) + r'";[^}]*\}', CSS)
    assert rule, family
    assert "ipaex" in rule.group(0)
    spans = re.findall(r"U\+([0-9A-F]+)-([0-9A-F]+)", rule.group(0))
    return [(int(a, 16), int(b, 16)) for a, b in spans]


def test_japanese_faces_cover_kana_and_kanji_and_lead_every_stack() -> None:
    for family in ("Ijin Gothic", "Ijin Mincho"):
        ranges = face_ranges(family)
        for char in "日本語青年期あアー、。！":
            assert any(a <= ord(char) <= b for a, b in ranges), (family, char)
    root = re.search(r":root \{([^}]*)\}", CSS)
    assert root
    assert re.search(r'--serif: "Ijin Mincho",', root.group(1))
    assert re.search(r'--sans: "Ijin Gothic",', root.group(1))


def test_timeline_text_names_the_bundled_face() -> None:
    rounds = [TimelineRound(0, 1, "An atlas", (), (), True)]
    svg = str(timeline(rounds, ["青年期", "壮年期", "熟年期", "老年期"], "t"))
    assert 'font-family="IPAexGothic, sans-serif"' in svg
    assert 'sans-serif"' not in svg.replace("IPAexGothic, sans-serif", "")


def test_end_page_lists_each_sign_by_name(client: FlaskClient, app: Flask) -> None:
    token = create(client)
    for _ in range(3):
        play_turn(client, app, token, hit=True)
    html = client.get(f"/c/{token}/end").get_data(as_text=True)
    legend = re.search(r'<ol class="timeline-legend">(.*?)</ol>', html, re.S)
    assert legend, "no legend"
    assert "✦ Mark 1" in legend.group(1)
    assert "Hover" not in html


def test_every_symbol_on_the_card_tables_is_drawn_by_both_bundled_faces() -> None:
    """A symbol a face lacks shows as a box (tofu) on a phone with no font that has it."""
    import unicodedata

    from fontTools.ttLib import TTFont

    root = Path(__file__).resolve().parent.parent
    faces = [
        set(TTFont(root / "static" / "fonts" / name).getBestCmap())
        for name in ("ipaexg.ttf", "ipaexm.ttf")
    ]
    used = {
        char
        for path in (root / "templates" / "tables").rglob("*.html")
        for char in path.read_text("utf-8")
        if ord(char) > 127 and unicodedata.category(char)[0] in "SP"
    }
    assert {"◀", "▶"} <= used
    missing = sorted(f"{c} U+{ord(c):04X}" for c in used if not all(ord(c) in f for f in faces))
    assert not missing
