"""The stylesheet and the timeline name the bundled Japanese faces; the timeline names its signs."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient
from play_helpers import create, play_turn

from companion.text.svg import TimelineRound, timeline

ROOT = Path(__file__).resolve().parent.parent
CSS = (ROOT / "static" / "css" / "app.css").read_text("utf-8")
SCREEN = ROOT / "static" / "fonts" / "screen"
FACES = (SCREEN / "faces.css").read_text("utf-8")
sys.path.insert(0, str(ROOT / "scripts"))
import screen_fonts  # noqa: E402


def face_ranges(family: str) -> list[tuple[int, int]]:
    """Every span the slices of ``family`` claim in the screen's stylesheet."""
    rules = re.findall(r'@font-face\{font-family:"' + re.escape(family) + r'";[^}]*\}', FACES)
    assert rules, family
    spans = []
    for rule in rules:
        assert re.search(r'src:url\("[\w-]+\.[0-9a-f]{12}\.woff2"\) format\("woff2"\)', rule), rule
        assert "font-display:optional" in rule  # never swapped in later: nothing moves
        for item in rule.split("unicode-range:")[1].rstrip("}").split(","):
            low, _, high = item.removeprefix("U+").partition("-")
            spans.append((int(low, 16), int(high or low, 16)))
    return spans


def test_japanese_faces_cover_kana_and_kanji_and_lead_every_stack() -> None:
    for family in ("Ijin Gothic",):
        ranges = face_ranges(family) + face_ranges("Ijin Names")
        for char in "日本語青年期あアー、。！":
            assert any(a <= ord(char) <= b for a, b in ranges), (family, char)
        # Japanese only: a Latin letter never asks for a Japanese face.
        assert not any(a <= ord("A") <= b or a <= ord("é") <= b for a, b in ranges), family
    root = re.search(r":root \{([^}]*)\}", CSS)
    assert root
    assert re.search(r'--serif: "Ijin Names", "Ijin Gothic",', root.group(1))
    assert re.search(r'--sans: "Ijin Names", "Ijin Gothic",', root.group(1))
    assert re.search(r'html:lang\(ja\) \{ --serif: "Ijin Names", "Ijin Gothic",', CSS)
    # No character in two faces of a stack: a browser loads the next face while one loads.
    gothic = {c for a, b in face_ranges("Ijin Gothic") for c in range(a, b + 1)}
    assert not gothic & {c for a, b in face_ranges("Ijin Names") for c in range(a, b + 1)}
    # Pages never name a print face: those are the books' (book-fonts.css).
    assert not re.search(r"url\([^)]*\.(ttf|otf)", CSS) and '"IPAex' not in CSS


def test_the_slices_draw_every_japanese_character_of_the_fonts_and_carry_no_ipa_name() -> None:
    """A derived font may not bear the original's name (IPA Font License, Article 3.1 (4))."""
    from fontTools.ttLib import TTFont

    for face in screen_fonts.TEXT_FACES:
        original, family = screen_fonts.FACES[face]
        wanted = {
            code
            for code in TTFont(ROOT / "static" / "fonts" / original).getBestCmap()
            if screen_fonts.japanese(code)
        }
        drawn: set[int] = set()
        for path in sorted([*SCREEN.glob(f"{face}-c*.woff2"), *SCREEN.glob(f"{face}-r*.woff2")]):
            assert "ipa" not in path.name.lower()
            font = TTFont(path)
            drawn |= set(font.getBestCmap())
            # Its names (family, full, PostScript, unique): the copyright and licence keep theirs.
            names = " ".join(str(r) for r in font["name"].names if r.nameID in (1, 3, 4, 6, 16))
            assert "IPA" not in names, (path.name, names)
            assert font["name"].getDebugName(1) == family
        for path in SCREEN.glob("names.*.woff2"):  # the names English pages show, Gothic too
            drawn |= set(TTFont(path).getBestCmap())
        assert wanted <= drawn, (face, len(wanted - drawn))
    assert (SCREEN / "LICENSE-IPA.txt").read_bytes() == (
        ROOT / "static" / "fonts" / "LICENSE-IPA.txt"
    ).read_bytes()
    assert "scripts/screen_fonts.py" in (SCREEN / "README.txt").read_text("utf-8")


def test_the_slices_are_made_from_the_fonts_characters_and_script_of_this_checkout() -> None:
    """scripts/setup makes them again when any of those changed (a stale set fails here)."""
    stamp = screen_fonts.stamp_of(ROOT, ROOT / "static")
    assert FACES.startswith(f"/* {stamp} */"), (FACES[:60], stamp)


def test_english_pages_draw_their_japanese_names_from_a_face_of_those_names_alone() -> None:
    """The game's title and the language's own name, on every English page, come from a face
    of the few names the English words hold, not from a Japanese text face; the brand mark is
    Mincho."""
    named = {chr(code) for low, high in face_ranges("Ijin Names") for code in range(low, high + 1)}
    assert set("遺燼抄日本語") <= named
    assert len(named) < 200  # names, not text
    assert face_ranges("Ijin Mark") == [(ord(c), ord(c)) for c in sorted("遺燼抄")]
    assert re.search(r'\.brand-mark \{[^}]*font-family: "Ijin Mark"', CSS)


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
