"""Japanese set as a careful typesetter would: no slanted emphasis, full-width punctuation in
sentences, headings and short lines broken between phrases, no last line of one or two characters."""

from __future__ import annotations

import html as html_lib
import io
import random
import re
import zipfile
from types import SimpleNamespace

import pytest
from babel.messages.pofile import read_po
from flask import Flask, render_template
from pypdf import PdfReader
from table_helpers import act, buttons, load, new_table
from table_helpers import finish as finish_match
from table_helpers import page as read_page

from companion.base.paths import CHECKOUT as ROOT
from companion.export.book import book_html, render_document
from companion.export.markdown import story_markdown
from companion.export.typeset import Passes, finish, phrases
from companion.export.vault import make_vault
from companion.legacy.texts import iter_texts
from companion.store.db import connect
from companion.streams import chronicles
from companion.streams.demo import create_demo

STATIC = ROOT / "static"
JAPANESE = r"[\u3000-\u30ff\u3400-\u9fff\uff00-\uffef]"
HALF_WIDTH = re.compile(rf".{{0,10}}(?:{JAPANESE}[ \t]*[:,()!?]|[:,()!?][ \t]*{JAPANESE}).{{0,10}}")
PLACEHOLDER = re.compile(r"%\([a-z_]+\)[sd]|%[sd]|\{[a-z_]+\}")


def half_width_beside_japanese(text: str) -> list[str]:
    return [m.group(0) for m in HALF_WIDTH.finditer(PLACEHOLDER.sub("X", text))]


def test_the_catalogue_has_no_half_width_punctuation_in_japanese() -> None:
    path = ROOT / "companion" / "translations" / "ja" / "LC_MESSAGES" / "messages.po"
    found = []
    for message in read_po(path.open("rb")):
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        found += [hit for s in strings if s for hit in half_width_beside_japanese(s)]
    assert found == [], found


@pytest.fixture(scope="module")
def japanese(tmp_path_factory: pytest.TempPathFactory) -> tuple[Flask, chronicles.Created]:
    from conftest import make_app

    app = make_app(tmp_path_factory.mktemp("typography"))
    return app, create_demo(connect(app.config["DATABASE"]), "ja")


def _visible(html: str) -> str:
    html = re.sub(r"<(script|style|svg|head)\b.*?</\1>", " ", html, flags=re.S)
    return html_lib.unescape(re.sub(r"<[^>]+>", " ", html))


def test_what_the_app_writes_in_japanese_has_full_width_punctuation(
    japanese: tuple[Flask, chronicles.Created],
) -> None:
    """The exports, the book, its metadata and the chronicle's pages, players' texts left out
    (they are as the players wrote them)."""
    app, created = japanese
    state = chronicles.load(connect(app.config["DATABASE"]), created.id).state
    setup = state.setup
    typed = {t.value for t in iter_texts(state)} | {setup.pioneer, setup.people, setup.concept}
    typed |= {setup.lines, setup.veils} | {tp.prompt or "" for tp in state.story}
    typed |= {k.keystone.name for k in state.keystones} | {
        k.keystone.description for k in state.keystones
    }
    written = {}
    with app.app_context():
        written["markdown"] = story_markdown(state)
        written["book"] = _visible(book_html(state, "annotated", "a5"))
        written["metadata"] = " ".join(
            re.findall(
                r'<(?:title|meta name="author" content=")([^<"]*)', book_html(state, "story", "a5")
            )
        )
        vault = zipfile.ZipFile(io.BytesIO(make_vault(state)))
        written["vault"] = "\n".join(vault.read(n).decode() for n in vault.namelist())
    client = app.test_client()
    for page in ("", "story", "end", "links"):
        written[page or "play"] = _visible(
            client.get(f"/c/{created.host_token}/{page}?lang=ja").get_data(as_text=True)
        )
    found = []
    for where, text in written.items():
        for value in sorted(typed, key=len, reverse=True):
            if value:
                text = text.replace(value, "〓")
        found += [(where, hit) for hit in half_width_beside_japanese(text)]
    assert found == [], found


def _seen_board(app: Flask) -> str:
    """A Traitor's Flame board whose seat has seen cards in a hand and in the deck, after a
    round whose hands are summed: the lines a few random moves seldom reach."""
    from companion.cardgames.traitors_flame import GAME
    from companion.cardgames.traitors_flame.scenario import make_state
    from companion.web.boards import traitors_flame as board

    st = make_state(3, hands=[["spy"], ["flame", "queen"], []], deck=["flame", "jester"], night=0)
    st["known"][0] = [st["hands"][1][1], st["deck"][-2]]
    hands = [
        {"seat": s, "flames": 0, "kinds": [], "night": s == 1, "dawn": False} for s in range(3)
    ]
    st["rounds"] = [
        {"round": 1, "ended_by": "flame", "ender": 1, "raw": [-3, 7, 0], "scores": [0, 7, 0]}
        | {"totals": [0, 7, 0], "hands": hands}
    ]
    match = SimpleNamespace(names=lambda: ["〓"] * 3, seats=[SimpleNamespace(bot=None)] * 3)
    with app.test_request_context("/?lang=ja"):
        view = GAME.view(st, 0)
        return render_template(
            "tables/traitors-flame/_board.html", view=view, board=board, match=match, seat=0
        )


@pytest.mark.parametrize("game", ["traitors-flame", "age-of-summoners"])
def test_the_card_game_pages_in_japanese_have_full_width_punctuation(
    japanese: tuple[Flask, chronicles.Created], game: str
) -> None:
    """The lobby, the rules, every board of a match played to its end, its result and replay."""
    app, _created = japanese
    client = app.test_client()
    token = new_table(client, game, lang="ja")
    written = {"lobby": read_page(client, "/games/?lang=ja")}
    written["rules"] = read_page(client, f"/games/{game}/rules?lang=ja")
    rng = random.Random(11)
    for turn in range(40):
        match = load(app, token)
        if match.game.result(match.state) is not None:
            break
        text = read_page(client, f"/t/{token}/")
        if 'class="cover-screen"' in text:
            client.post(f"/t/{token}/reveal", data={"seat": str(match.acting_seats()[0])})
            text = read_page(client, f"/t/{token}/")
        written[f"turn {turn}"] = text
        act(client, token, match, rng.choice(buttons(text)))
    finish_match(app, token)
    written["result"] = read_page(client, f"/t/{token}/")
    written["replay"] = read_page(client, f"/t/{token}/replay")
    if game == "traitors-flame":
        written["seen"] = _seen_board(app)
    found = []
    for where, html in written.items():
        text = _visible(html).replace("Ann", "〓").replace("Bo", "〓")
        found += [(where, hit) for hit in half_width_beside_japanese(text)]
    assert sum(where.startswith("turn") for where in written) >= 10  # boards were read
    assert "seen" not in written or "上から2枚目" in _visible(written["seen"])
    assert found == [], "\n".join(sorted({hit for _where, hit in found}))


def test_japanese_emphasis_is_sesame_dots_in_the_book_never_italic() -> None:
    html = finish(
        '<!doctype html><html lang="ja"><head><link rel="stylesheet" href="css/book.css">'
        "<style>@page { size: 105mm 148mm }</style></head>"
        "<body><p>鐘は<em>一度だけ</em>鳴った。</p></body></html>",
        Passes(japanese=True, kenten=True),
    )
    assert html.count('<span class="kt">') == 4  # 一度だけ: a dot beside each character
    pdf = render_document(html, STATIC).write_pdf()
    text = PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
    assert text.count("\ufe45") == 4  # the sesame dots are drawn
    from pdf_glyphs import drawn

    assert not [name for name in drawn(pdf).chars if "Italic" in name]


def test_headings_break_between_phrases_and_keep_a_last_line_whole() -> None:
    assert phrases("今日は天気です。") == ["今日は", "天気です。"]
    html = finish(
        '<html lang="ja"><body><h1>遠い山の向こうから来た人</h1>'
        "<p>長い文章が続いて最後にようやく終わるのである。</p></body></html>",
        Passes(japanese=True),
    )
    heading = re.search(r"<h1>(.*?)</h1>", html).group(1)  # type: ignore[union-attr]
    assert heading.count('<span class="ph">') >= 2
    assert re.sub(r"<[^>]+>", "", heading) == "遠い山の向こうから来た人"
    paragraph = re.search(r"<p>(.*?)</p>", html).group(1)  # type: ignore[union-attr]
    tail = re.search(r'<span class="ph">([^<]*)</span>$', paragraph)
    assert tail and len(tail.group(1)) >= 4  # 「る。」 never stands alone


@pytest.mark.parametrize("paper", ["a5", "b6", "a6"])
def test_the_print_shops_title_page_breaks_between_phrases(
    japanese: tuple[Flask, chronicles.Created], paper: str
) -> None:
    """On the title page the concept's lines end between phrases, the last of at least four
    characters."""
    app, created = japanese
    state = chronicles.load(connect(app.config["DATABASE"]), created.id).state
    from companion.export.print_shop import print_document

    with app.app_context():
        document = print_document(state, "story", paper, STATIC)
    pdf = document.copy(document.pages[:1]).write_pdf()
    lines = [
        line.strip() for line in PdfReader(io.BytesIO(pdf)).pages[0].extract_text().splitlines()
    ]
    concept = [line for line in lines if line and line in state.setup.concept]
    assert len(concept) >= 2 and "".join(concept) == state.setup.concept
    assert not [line for line in concept if len(line) < 4], concept
    # Each line ends where a phrase ends (no 「故」 / 「郷を出て」 split inside a word).
    bounds, at = set(), 0
    for phrase in phrases(state.setup.concept):
        at += len(phrase)
        bounds.add(at)
    ends, at = [], 0
    for line in concept:
        at += len(line)
        ends.append(at)
    assert set(ends) <= bounds, concept


def test_english_punctuation_is_typographic_never_in_code() -> None:
    html = finish(
        '<html lang="en"><body><p>"Akane\'s bell," she said -- ages 20-32... \'Not yet.\'</p>'
        '<p><code>x = "raw" -- \'kept\'...</code> and <em>"styled"</em></p></body></html>',
        Passes(japanese=False, smart=True),
    )
    assert "<p>“Akane’s bell,” she said – ages 20–32… ‘Not yet.’</p>" in html
    assert "<code>x = \"raw\" -- 'kept'...</code>" in html
    assert "<em>“styled”</em>" in html


def test_the_english_book_prints_curly_quotes(japanese: tuple[Flask, chronicles.Created]) -> None:
    app, _created = japanese
    from test_export_pdf import sample_state

    with app.app_context():
        html = book_html(sample_state("en"), "story", "a5")
    text = _visible(html)
    assert "’" in text and "“" in text and "ages 20–32" in text
    assert not re.search(r"\w'\w", text)  # no straight apostrophe left in a word
