"""Ruby in prompt packs: a pack's prompts may hold the notation (｜親字《ルビ》, 漢字《かんじ》,
《《傍点》》), which every page and book shows as ruby and every file kept as written keeps as
typed; and a hostile pack cannot open a tag of its own through it anywhere."""

from __future__ import annotations

import html as html_lib
import io
import json
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import cmarkgfm
import pytest
import yaml
from cmarkgfm.cmark import Options
from flask import Flask
from flask.testing import FlaskClient
from play_helpers import chronicle, create, faces, post_turn
from ruby_life import ruby_life

from companion.export.book import book_html, render_book, static_dir
from companion.export.epub import make_epub
from companion.export.markdown import escape_notation, story_markdown
from companion.export.vault import make_vault
from companion.packs.format import CARDS, PackError, pack_to_text, parse_pack
from companion.text import ruby

RUBY = "｜波乃《なみの》は|凪《なぎ》の海で何を《《失った》》のか、漢字《かんじ》で？"
ATTACKS = (
    "｜<x-evil data-pwned=1>《x》",
    "漢字《</rt></ruby><x-evil data-pwned=2>》",
    "｜\"'><x-evil data-pwned=3>《\"'><x-evil data-pwned=4>》",
    "《《<x-evil data-pwned=5>》》",
    "<x-evil data-pwned=6>｜親《</rp><x-evil data-pwned=7>》",
)
HOSTILE = " ".join(ATTACKS)


def rb(base: str, reading: str) -> str:
    return f"<ruby>{base}<rp>（</rp><rt>{reading}</rt><rp>）</rp></ruby>"


SHOWN = (
    f"{rb('波乃', 'なみの')}は{rb('凪', 'なぎ')}の海で何を"
    f'<em class="bouten">失った</em>のか、{rb("漢字", "かんじ")}で？'
)
BOOK_RUBY = '<span class="ruby"><span class="rt">なみの</span><span class="rb">波乃</span></span>'


def prompt(card: str) -> str:
    """The card's one prompt: the notation, then every attack (500 characters at most)."""
    return f"{card} {RUBY} {HOSTILE}"


PROMPTS = {card: (prompt(card),) for card in CARDS}


def pack_text(name: str = "rubies", language: str = "ja") -> str:
    lines = ["---", f"name: {name}", f"language: {language}", "title: Ruby pack", "---"]
    for card in CARDS:
        lines += ["", f"## {card}", f"- {prompt(card)}"]
    return "\n".join(lines) + "\n"


class Tags(HTMLParser):
    """Every tag and attribute a browser would make of a page, and its text."""

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[str] = []
        self.text: list[str] = []
        self.feed(page)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [name for name, _value in attrs]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def assert_nothing_injected(page: str) -> None:
    """No tag or attribute of the attacks was made, and their words are there to read."""
    parsed = Tags(page)
    assert "x-evil" not in parsed.tags
    assert "data-pwned" not in parsed.attributes
    assert "<x-evil data-pwned=1>" in "".join(parsed.text)


# --- the pack file ------------------------------------------------------------------------


def test_a_pack_may_write_ruby_and_keeps_it_as_typed() -> None:
    pack = parse_pack(pack_text())
    assert pack.prompts["AH"] == (prompt("AH"),)
    assert parse_pack(pack_to_text(pack)) == pack  # the download keeps the notation too


def test_a_prompts_length_counts_the_notation_as_typed() -> None:
    long = "｜親《おや》" + "あ" * (500 - len("｜親《おや》"))
    lines = pack_text().replace(f"- {prompt('AH')}", f"- {long}")
    assert parse_pack(lines).prompts["AH"] == (long,)
    with pytest.raises(PackError) as refused:
        parse_pack(lines.replace(f"- {long}", f"- {long}あ"))
    assert [p.code for p in refused.value.problems] == ["prompt-too-long"]
    assert "501 characters" in str(refused.value)


def test_a_prompt_with_readings_is_the_same_prompt_without_them() -> None:
    text = pack_text().replace(
        f"- {prompt('AH')}", "- 凪《なぎ》の海で何を見たか？\n- 凪の海で何を見たか？"
    )
    with pytest.raises(PackError) as refused:
        parse_pack(text)
    assert [p.code for p in refused.value.problems] == ["duplicate-prompt"]


def test_the_ruby_filter_escapes_everything_but_its_own_tags() -> None:
    assert str(ruby.shown(RUBY)) == SHOWN
    assert str(ruby.shown("a < b & 'c' \"d\"")) == "a &lt; b &amp; &#39;c&#39; &#34;d&#34;"
    assert_nothing_injected(str(ruby.shown(HOSTILE)))


# --- the pages ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def books_app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    from conftest import make_app

    return make_app(tmp_path_factory.mktemp("ruby-prompts"))


@pytest.fixture(scope="module")
def played(books_app: Flask) -> tuple[FlaskClient, str, dict[str, str]]:
    """A Japanese chronicle with the ruby pack uploaded, a card drawn, a prompt chosen and
    rolled; the pages seen on the way."""
    app, client = books_app, books_app.test_client()
    response = client.post(
        "/packs/upload",
        data={"pack": (io.BytesIO(pack_text().encode("utf-8")), "rubies.ja.md")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 302
    preview = client.get(response.headers["Location"]).get_data(as_text=True)
    name = response.headers["Location"].rstrip("/").split("/")[-2]
    token = create(client, language="ja", pack=name)
    state = chronicle(app, token).state
    card = state.pile_cards(state.pile)[0]
    assert post_turn(client, app, token, action="draw", card=card).status_code == 302
    choosing = client.get(f"/c/{token}/").get_data(as_text=True)
    rolled = post_turn(
        client,
        app,
        token,
        action="roll",
        prompt="0",
        answer="答え。",
        stakes_success="成る。",
        stakes_failure="成らぬ。",
        **faces(chronicle(app, token).state.dice, True),
    )
    assert rolled.status_code == 302
    assert chronicle(app, token).state.step in ("success", "mark")
    declared = client.get(f"/c/{token}/").get_data(as_text=True)
    story = client.get(f"/c/{token}/story").get_data(as_text=True)
    pages = {"preview": preview, "choosing": choosing, "declared": declared, "story": story}
    return client, token, pages


@pytest.mark.parametrize("where", ["preview", "choosing", "declared", "story"])
def test_every_page_shows_a_packs_prompt_as_ruby_and_nothing_more(
    played: tuple[FlaskClient, str, dict[str, str]], where: str
) -> None:
    shown = played[2][where]
    assert SHOWN in shown
    assert "《なみの》" not in shown and "《《" not in shown  # no notation is left as typed
    assert_nothing_injected(shown)


def test_the_backup_and_the_api_keep_the_prompt_as_typed(
    played: tuple[FlaskClient, str, dict[str, str]], books_app: Flask
) -> None:
    app = books_app
    client, token, _pages = played
    chosen = chronicle(app, token).state.turning_points[0].prompt
    assert chosen is not None and RUBY in chosen
    backup = client.get(f"/c/{token}/export.json").get_data(as_text=True)
    started = json.loads(backup)["events"][0]["event"]
    assert started["setup"]["prompts"]["AH"] == [prompt("AH")]
    assert RUBY in backup  # not even escaped as \\uXXXX
    state = client.get(f"/api/v1/chronicles/{token}/state").get_json()
    assert state["check"]["prompt"] == chosen


# --- the books and the files --------------------------------------------------------------


@pytest.mark.parametrize("edition", ["story", "annotated"])
@pytest.mark.parametrize("vertical", [False, True])
def test_every_book_sets_the_prompt_as_ruby(books_app: Flask, edition: str, vertical: bool) -> None:
    state = ruby_life("ja", text="短い答え。", prompts=PROMPTS)
    with books_app.app_context():
        html = book_html(state, edition, "a5", vertical=vertical)
    prompts = html.count('<blockquote class="prompt">')
    assert prompts == 2
    if vertical:  # Chromium sets HTML ruby beside the column itself
        assert html.count(rb("波乃", "なみの")) == prompts
    else:  # WeasyPrint gets each ruby as an inline block, the dots as 傍点
        assert html.count(BOOK_RUBY) == prompts and "<ruby>" not in html
        assert html.count('<span class="kt">失</span>') == prompts
    assert_nothing_injected(html)


def test_the_pdf_prints_the_reading_over_its_base(books_app: Flask) -> None:
    from pypdf import PdfReader

    state = ruby_life("ja", turning_points=1, text="短い答え。", prompts=PROMPTS)
    with books_app.app_context():
        pdf = render_book(book_html(state, "story", "a5"), static_dir())
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)
    text = "".join(text.split())
    # each reading is its own line of the text layer, before its base; no notation is left
    assert "なみの波乃" in text and "かんじ漢字" in text
    assert "《なみの》" not in text and "｜波乃" not in text
    assert "<x-evildata-pwned=1>" in text  # the attack printed as the words it is


@pytest.mark.parametrize("vertical", [False, True])
def test_the_epub_sets_the_prompt_as_native_ruby(books_app: Flask, vertical: bool) -> None:
    state = ruby_life("ja", text="短い答え。", prompts=PROMPTS)
    with books_app.app_context():
        data = make_epub(state, "story", static_dir(), vertical=vertical)
    archive = zipfile.ZipFile(io.BytesIO(data))
    chapters = [n for n in archive.namelist() if n.endswith(".xhtml") and "stage" in n]
    xhtml = "".join(archive.read(name).decode("utf-8") for name in chapters)
    assert xhtml.count(rb("波乃", "なみの")) == 2
    assert_nothing_injected(xhtml)
    opf = next(archive.read(n).decode() for n in archive.namelist() if n.endswith(".opf"))
    assert "rubyAnnotations" in opf


@pytest.mark.slow  # EPUBCheck starts a Java virtual machine for each book
def test_the_epub_with_a_hostile_packs_prompts_passes_epubcheck(
    books_app: Flask, tmp_path: Path
) -> None:
    from test_export_editions import epubcheck

    with books_app.app_context():
        data = make_epub(ruby_life("ja", text="短い答え。", prompts=PROMPTS), "story", static_dir())
    report = epubcheck(tmp_path, data)
    assert "ERROR" not in report and "WARNING" not in report, report


def unsafe_html(markdown: str) -> str:
    """What a Markdown viewer that shows raw HTML (Obsidian, many editors) makes of a file."""
    return str(
        cmarkgfm.markdown_to_html_with_extensions(
            markdown, options=Options.CMARK_OPT_UNSAFE, extensions=["table", "strikethrough"]
        )
    )


def test_the_markdown_export_keeps_the_notation_as_typed(books_app: Flask) -> None:
    state = ruby_life("ja", text="短い答え。", prompts=PROMPTS)
    with books_app.app_context():
        markdown = story_markdown(state, "story")
    assert markdown.count(f"> {state.turning_points[0].card} {RUBY} ") == 1
    shown = unsafe_html(markdown)
    assert "<ruby>" not in shown  # a Markdown viewer shows the notation as the writer typed it
    assert_nothing_injected(shown)


def test_the_vault_shows_the_prompt_as_ruby_and_keeps_it_in_its_facts(books_app: Flask) -> None:
    state = ruby_life("ja", text="短い答え。", prompts=PROMPTS)
    with books_app.app_context():
        vault = zipfile.ZipFile(io.BytesIO(make_vault(state, "story")))
    notes = [vault.read(n).decode("utf-8") for n in vault.namelist() if n.endswith(".md")]
    points = [note for note in notes if "ijinsho/turning-point" in note]
    assert len(points) == 2
    for note, tp in zip(points, state.turning_points, strict=True):
        facts = yaml.safe_load(note.split("---\n")[1])
        assert facts["prompt"] == tp.prompt  # the facts keep it as typed
        shown = unsafe_html(note.split("---\n", 2)[2])
        assert f"<blockquote>\n<p>{tp.card} {SHOWN}" in shown
        assert_nothing_injected(shown)


@pytest.mark.parametrize(
    "written",
    [RUBY, "a|b *c* ｜《 ｜x《y|z》", "《《｜強《つよ》い》》", HOSTILE, "<x>漢《か<y>》"],
)
def test_a_prompt_escaped_for_markdown_reads_back_as_written(written: str) -> None:
    rendered = str(cmarkgfm.markdown_to_html(escape_notation(written)))
    assert html_lib.unescape(rendered.strip().removeprefix("<p>").removesuffix("</p>")) == written
