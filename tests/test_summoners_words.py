"""Age of Summoners words: one catalogue path for the board, and no words in the rules package."""

from __future__ import annotations

import ast
import html
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from flask import Flask, render_template
from summoners_helpers import speaking

import companion.cardgames.summoners as engine_package
from companion.cardgames.summoners import GAME
from companion.cardgames.summoners.engine import new
from companion.cardgames.summoners.scenario import arrange
from companion.cardgames.summoners.scoring import final_result
from companion.web.boards import summoners as board
from companion.web.boards.summoners.standing import START_WINS

NAMES = ["Ann", "Brianna"]
ENGINE = Path(engine_package.__file__).parent


def _is_ja(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == "ja"


def _language_branches(tree: ast.AST) -> list[int]:
    """Lines that compare something with "ja" (``lang == "ja"``, ``"ja" if … else``)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(_is_ja(n) for n in (node.left, *node.comparators)):
            lines.append(node.lineno)
        if isinstance(node, ast.IfExp) and (_is_ja(node.body) or _is_ja(node.orelse)):
            lines.append(node.lineno)
    return lines


def _imports(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("path", sorted(ENGINE.glob("*.py")), ids=lambda p: p.name)
def test_the_rules_package_holds_no_markup_and_no_language_branch(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert "markupsafe" not in _imports(tree), path.name
    assert _language_branches(tree) == [], path.name


def test_the_scan_sees_a_language_branch_and_a_markup_import() -> None:
    tree = ast.parse('from markupsafe import Markup\nx = "a" if lang == "ja" else "b"\n')
    assert "markupsafe" in _imports(tree) and _language_branches(tree) == [2]
    assert _language_branches(ast.parse('\n\ny = "ja" if ja else "en"')) == [3]


def _board_page(app: Flask, lang: str) -> tuple[str, list[str]]:
    """The board and the button labels of seat 0 holding Belial (its text has [black][any])."""
    s = new(2, 3, {"start": 0})
    arrange(s, 0, hand=["belial", "kelpie"], mana=["sphinx"])
    arrange(s, 1, hand=["redcap"], mana=["basilisk"])
    view = GAME.view(s, 0)
    match = SimpleNamespace(
        names=lambda: NAMES, seats=[SimpleNamespace(name=n, bot=None) for n in NAMES]
    )
    with app.test_request_context(f"/?lang={lang}"):
        text = render_template(
            "tables/age-of-summoners/_board.html", view=view, board=board, match=match, seat=0
        )
        labels = [board.label(a, view, NAMES) for a in GAME.legal_actions(s, 0)]
    return html.unescape(text), labels


def test_the_board_in_japanese_speaks_from_the_catalogue(app: Flask) -> None:
    text, labels = _board_page(app, "ja")
    assert "フェイズI：手札から1枚を出し、ペアのカードの隣に置いてください。" in text
    assert "あなたの手札" in text and "山札" in text and "アシスト先：Brianna" in text
    assert "ベリアル" in text and "Belial" not in text
    assert re.search(r'<tspan fill="#34343c" font-weight="bold">●黒</tspan>', text)
    assert re.search(r'<tspan fill="#6d6a75" font-weight="bold">◇任意</tspan>', text)
    assert any(
        re.fullmatch(r"ベリアル（\d）をスフィンクス（\d）の隣に出す：\d+・.+", t) for t in labels
    )
    assert "Phase" not in text and not any("Play" in t for t in labels)


def test_the_board_in_english_speaks_from_the_catalogue(app: Flask) -> None:
    text, labels = _board_page(app, "en")
    assert "Phase I: play a card from your hand beside your pairing card." in text
    assert "Your hand" in text and "Belial" in text and "ベリアル" not in text
    assert re.search(r'<tspan fill="#34343c" font-weight="bold">●black</tspan>', text)
    assert any(
        re.fullmatch(r"Play Belial \(\d\) beside Sphinx \(\d\): \d+, \w+.*", t) for t in labels
    )


def test_log_lines_standings_and_options_follow_the_language_asked_for() -> None:
    s = new(2, 5, {"start": 1})
    first = s["events"][0]
    row = {"chips": 3, "points": 5, "abilities": {"chimera": 2}}
    with speaking("ja"):
        assert board.describe(first, NAMES) == "2人のゲームを開始。スタートプレイヤーはBrianna。"
        assert board.standing_line(row).startswith("勝利点チップ3＋精霊の得点5＋")
        assert board.option_words("catch-up") == "後手の勝利点チップ（ハウスルール）"
        help_ja = board.option_words("catch-up-help")
        assert "おすすめ" in help_ja and help_ja.count("。") == 1  # one sentence
    with speaking("en"):
        assert board.describe(first, NAMES) == "A match for 2 players begins; Brianna starts."
        assert board.option_words("catch-up") == "Catch-up chips (house rule)"
        help_en = board.option_words("catch-up-help")
        assert help_en.startswith("Recommended") and help_en.count(".") == 1
        for rates in START_WINS.values():
            assert ", ".join(f"{n}%" for n in rates) in help_en


def test_the_thresholds_come_from_the_engine(app: Flask) -> None:
    s = new(2, 3, {"start": 0})
    view = GAME.view(s, 0)
    assert (view["end_spirits"], view["end_vp"], view["faith_cap"]) == (10, 30, 10)
    with app.test_request_context("/?lang=en"):
        line = board.board(view, NAMES, [None, None])["end"]["line"]
    assert "10 or more spirits or 30 or more VP" in line
    arrange(s, 1, vp=30)
    assert GAME.view(s, 0)["seats"][1]["can_declare"] is True


def test_every_refusal_reads_in_japanese_under_the_games_context() -> None:
    """The table translates a refusal's template in the game's message context."""
    from flask_babel import pgettext

    from companion.cardgames.summoners import refusals

    templates = [v for k, v in vars(refusals).items() if k.isupper() and isinstance(v, str)]
    assert "Nobody is to act now." in templates and len(templates) >= 10
    with speaking("ja"):
        untranslated = [t for t in templates if pgettext("age-of-summoners", t) == t]
    assert untranslated == []


def test_a_language_the_card_data_does_not_name_reads_the_default_languages_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from companion.web.boards.summoners import names

    monkeypatch.setattr(names, "DEFAULT", "ja")
    with speaking("fr"):
        assert board.kind_name("belial") == "ベリアル"
        assert names.colour_name("black") == "黒" and names.mana_name("black") == "雷光"
    with speaking("en"):
        assert board.kind_name("belial") == "Belial"


def test_card_text_symbols_are_read_in_every_language_of_the_card_data(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A third language's card texts write their colours in its own words: "[noir]"."""
    from companion.cardgames.summoners import cards
    from companion.web.boards.summoners import card_text

    words = {**cards.colour_words("black"), "name_fr": "noir"}
    monkeypatch.setattr(card_text, "colour_words", lambda s: words if s == "black" else {})
    card_text._placeholders.cache_clear()
    try:
        with speaking("en"):
            line = card_text.svg_line(card_text.marked("payez [noir]"))
        assert line.endswith('<tspan fill="#34343c" font-weight="bold">●black</tspan>')
    finally:
        card_text._placeholders.cache_clear()


def _texts_on_the_board(app: Flask, lang: str) -> list[str]:
    """The card texts of the hand list and of "What their spirits do", as the page has them."""
    s = new(2, 3, {"start": 0})
    arrange(s, 0, hand=["belial", "giant"], mana=["sphinx"])
    arrange(s, 1, hand=["redcap"], mana=["basilisk"], spirits=["gargoyle", "belial"])
    match = SimpleNamespace(
        names=lambda: NAMES, seats=[SimpleNamespace(name=n, bot=None) for n in NAMES]
    )
    with app.test_request_context(f"/?lang={lang}"):
        page = render_template(
            "tables/age-of-summoners/_board.html", view=GAME.view(s, 0), board=board, match=match
        )
    hand = re.findall(r'<p class="aos-rule">(.*?)</p>', page)
    spirits = re.findall(r'<details class="aos-abilities">.*?<ul>(.*?)</ul>', page, re.S)
    return hand + spirits


@pytest.mark.parametrize(("lang", "black", "green", "any_"), [
    ("en", "black", "green", "any"), ("ja", "黒", "緑", "任意"),
])  # fmt: skip
def test_card_texts_on_the_table_draw_their_colour_symbols(
    app: Flask, lang: str, black: str, green: str, any_: str
) -> None:
    texts = _texts_on_the_board(app, lang)
    assert len(texts) == 3  # Belial and Giant in hand, the rival's two spirits
    for text in texts:
        assert not re.search(r"\[[^\]]{1,6}\]", html.unescape(text)), text
    symbol = r'<span class="aos-symbol"><svg class="aos-pip"[^>]*>.*?</svg>{}</span>'
    belial, giant, spirits = texts
    assert re.search(symbol.format(black) + symbol.format(any_), belial)
    assert re.search(symbol.format(green), giant)
    assert re.search(symbol.format(any_), spirits) and re.search(symbol.format(black), spirits)


def test_a_kinds_text_for_markdown_names_its_symbols_and_holds_no_markup() -> None:
    from companion.web.boards.summoners.rules_text import markdown_text

    with speaking("en"):
        assert "pay ●black◇any from your mana" in markdown_text("belial")
        assert "[" not in markdown_text("gargoyle") and "◇any" in markdown_text("gargoyle")
    with speaking("ja"):
        assert "魔力から●黒◇任意を支払ってもよい" in markdown_text("belial")
        assert "●緑" in markdown_text("giant")


def test_the_amounts_the_words_tell_are_the_engines(monkeypatch: pytest.MonkeyPatch) -> None:
    """Labels and log lines take the rules' amounts from the engine, never their own copy."""
    from companion.cardgames.summoners import view as engine_view

    s = new(3, 2, {"start": 0})
    arrange(s, 0, hand=["asmodai", "kelpie"], mana=["selkie"])  # 5 + 1: prayer
    s = GAME.apply(s, 0, {"type": "play", "card": next(c for c in s["seats"][0]["hand"])})
    monkeypatch.setitem(engine_view.NUMBERS, "prayer_draw", 3)
    monkeypatch.setitem(engine_view.NUMBERS, "refill_to", 7)
    view = GAME.view(s, 0)
    with speaking("en"):
        labels = {board.label(a, view, NAMES) for a in GAME.legal_actions(s, 0)}
        done = board.describe({"type": "prayer-done", "turn": 1, "seat": 0}, NAMES)
    assert "Prayer (6): draw 3 cards" in labels
    assert "Prayer (6): discard any, then draw up to 7" in labels
    assert done == "Ann stops discarding and refills to 7."
    with speaking("ja"):
        labels = {board.label(a, view, NAMES) for a in GAME.legal_actions(s, 0)}
    assert any("カードを3枚引く" in t for t in labels) and any("7枚まで引く" in t for t in labels)


def test_the_end_of_a_match_names_every_seat_with_its_score() -> None:
    end = {"type": "game-end", "turn": 60, "seat": None, "reason": "declared",
           "totals": [37, 50], "winner": 1}  # fmt: skip
    with speaking("en"):
        assert board.describe(end, NAMES) == (
            "The match ends. Scores: Ann 37, Brianna 50; Brianna wins."
        )
    with speaking("ja"):
        assert (
            board.describe(end, NAMES)
            == "ゲーム終了。得点はAnn 37点、Brianna 50点。Briannaの勝利。"
        )


def test_the_board_leaves_out_empty_parts(app: Flask) -> None:
    """No empty panel under the status while the buttons say it all; no "+ 0 Chimera"."""
    s = new(2, 3, {"start": 0})
    match = SimpleNamespace(
        names=lambda: NAMES, seats=[SimpleNamespace(name=n, bot=None) for n in NAMES]
    )
    with app.test_request_context("/?lang=en"):
        page = render_template(
            "tables/age-of-summoners/_board.html", view=GAME.view(s, 0), board=board, match=match
        )
        row = {"chips": 3, "points": 5, "abilities": {"chimera": 0, "ankou": 2}, "total": 10}
        assert board.standing_line(row) == "3 VP chips + 5 spirit points + 2 Ankou"
    assert GAME.view(s, 0)["pending"] is not None and 'class="aos-choice"' not in page
    arrange(s, 0, spirits=["chimera"])
    s["result"] = final_result(s, "cap")
    assert s["result"]["breakdown"][0]["abilities"] == {"chimera": 0}
    with speaking("en"):
        rows = board.result_info(s["result"], GAME.view(s, 0), NAMES)["rows"]
    assert [part for row in rows for part in row["abilities"]] == []
