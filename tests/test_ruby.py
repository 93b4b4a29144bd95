"""Ruby (furigana) and emphasis dots as Japanese writers write them: the notation's edge cases,
the pages' HTML (and what an attacker could make of it), and the exports that keep it."""

from __future__ import annotations

import html as html_lib
import re

import nh3
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.export.markdown import player_text, ruby_as_html
from companion.export.typeset import finish, passes_for
from companion.text import ruby
from companion.text.markdown import ALLOWED_TAGS, plain, render_markdown


def html(text: str) -> str:
    return str(render_markdown(text)).strip()


def rb(base: str, reading: str) -> str:
    return f"<ruby>{base}<rp>（</rp><rt>{reading}</rt><rp>）</rp></ruby>"


# --- the notation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        ("｜親字《ルビ》", rb("親字", "ルビ")),
        ("|親字《ルビ》", rb("親字", "ルビ")),  # the ASCII bar too
        ("漢字《かんじ》です", rb("漢字", "かんじ") + "です"),
        ("これは漢字《かんじ》", "これは" + rb("漢字", "かんじ")),  # the run of kanji only
        ("佐々木《ささき》", rb("佐々木", "ささき")),  # 々 stands in a run of kanji
        ("｜Ruby《るびー》", rb("Ruby", "るびー")),  # any base with the bar
        ("《《傍点》》", '<em class="bouten">傍点</em>'),
        ("｜《ではない》", "《ではない》"),  # the escape: a literal 《, the bar dropped
        ("|《《ではない》》", "《《ではない》》"),
    ],
)
def test_the_notation_becomes_ruby(written: str, shown: str) -> None:
    assert html(written) == f"<p>{shown}</p>"


@pytest.mark.parametrize(
    "written",
    [
        "ひらがな《かな》",  # no bar and no kanji before 《
        "漢字《》",  # empty reading
        "｜《》",  # escape, then an empty pair: shows 《》
        "｜漢字《かんじ",  # unclosed
        "｜かな\nかな《かんじ》",  # a base across a line
        "｜" + "長" * 51 + "《ながい》",  # a base past MAX_BASE
        "漢字《" + "か" * 101 + "》",  # a reading past MAX_READING
        "《《》》",  # empty emphasis
        "》《",
    ],
)
def test_what_is_not_notation_is_left_as_written(written: str) -> None:
    shown = plain(written) if "\n" not in written else None
    assert "<ruby>" not in html(written)
    assert "bouten" not in html(written)
    if shown is not None and not written.startswith("｜《"):
        assert shown == written.strip()


def test_nested_notation_keeps_the_ruby_inside_the_dots() -> None:
    assert html("《《｜親字《ルビ》》》") == f'<p><em class="bouten">{rb("親字", "ルビ")}</em></p>'
    assert (
        html("《《漢字《かんじ》だ》》")
        == f'<p><em class="bouten">{rb("漢字", "かんじ")}だ</em></p>'
    )
    # ruby inside ruby is not ruby: the outer bar and brackets stay as written
    assert html("｜親《｜子《こ》》") == "<p>｜親《" + rb("子", "こ") + "》</p>"


def test_ruby_mixes_with_markdown() -> None:
    assert html("**｜親字《ルビ》**") == f"<p><strong>{rb('親字', 'ルビ')}</strong></p>"
    assert html("*波乃《なみの》*") == f"<p><em>{rb('波乃', 'なみの')}</em></p>"
    linked = html("[波乃《なみの》](https://example.com/)")
    assert f">{rb('波乃', 'なみの')}</a>" in linked
    assert 'href="https://example.com/"' in linked
    # in code the notation is text, as written
    assert html("`｜親字《ルビ》`") == "<p><code>｜親字《ルビ》</code></p>"
    assert "<ruby>" not in html("```\n漢字《かんじ》\n```")
    # in a list, a quote and a heading
    assert rb("漢字", "かんじ") in html("- 漢字《かんじ》")
    assert rb("漢字", "かんじ") in html("> 漢字《かんじ》")
    assert html("# 漢字《かんじ》") == f"<h3>{rb('漢字', 'かんじ')}</h3>"


def test_ruby_at_a_line_break_and_a_long_reading() -> None:
    assert html("一行目\n漢字《かんじ》") == f"<p>一行目\n{rb('漢字', 'かんじ')}</p>"
    assert html("漢字《かんじ》\n二行目") == f"<p>{rb('漢字', 'かんじ')}\n二行目</p>"
    reading = "あ" * 40
    assert html(f"｜凪子《{reading}》") == f"<p>{rb('凪子', reading)}</p>"


def test_plain_text_keeps_the_base_and_the_dotted_words() -> None:
    assert plain("｜波乃《なみの》は《《海》》へ｜《") == "波乃は海へ《"


def test_a_text_mostly_of_markup_still_shows_its_ruby_escaped() -> None:
    text = "|a《b》 " + "*" * 1200 + " <b>"
    shown = html(text)
    assert rb("a", "b") in shown and "&lt;b&gt;" in shown and "<b>" not in shown


# --- what an attacker can make of it ------------------------------------------------------

ATTACKS = [
    "｜<script>alert(1)</script>《x》",
    "｜x《<img src=x onerror=alert(1)>》",
    '漢字《"><svg onload=alert(1)>》',
    "｜<rt>《</rt><script>alert(1)</script>》",
    "漢字《</rt></ruby><script>alert(1)</script>》",
    "｜&lt;script&gt;《&#x3C;img src=x onerror=alert(1)&#x3E;》",
    "《《<a href=javascript:alert(1)>x</a>》》",
    "[｜x《y》](javascript:alert(1))",
    '｜x《y" onmouseover="alert(1)》',
    "｜<ruby onclick=alert(1)>《y》",
    '《《x" class="evil》》',
]


@pytest.mark.parametrize("attack", ATTACKS)
def test_ruby_opens_no_script(attack: str) -> None:
    shown = html(attack)
    tags = re.findall(r"<([a-z0-9]+)([^>]*)>", shown)
    for name, attributes in tags:
        assert name in ALLOWED_TAGS, shown
        if name in ("ruby", "rt", "rp", "p"):
            assert attributes == "", shown
        if name == "em":
            assert attributes in ("", ' class="bouten"'), shown
    assert "javascript:" not in shown.lower().replace("&", "")
    assert "onerror" not in re.sub(r">[^<]*<", "><", shown)  # only as text, never an attribute


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="｜|《》漢字かなab<>\"'&=/ \n*`[]()"))
def test_any_text_is_clean_html_and_reads_back(text: str) -> None:
    shown = html(text)
    # nh3 leaves it unchanged: nothing outside the allowlist was made
    assert (
        nh3.clean(
            shown,
            tags=ALLOWED_TAGS,
            attributes={"a": {"href", "title", "rel"}, "ol": {"start"}},
            allowed_classes={"em": {"bouten"}},
            link_rel=None,
        )
        == shown
        or "<a " in shown
    )
    for attributes in re.findall(r"<(?:ruby|rt|rp)([^>]*)>", shown):
        assert attributes == ""


def test_long_runs_that_never_close_are_left_as_written() -> None:
    # Every alternative of the scan is bounded or starts a run of kanji, so these cost what
    # their length does; none of them is notation.
    for text in ("漢" * 20000, "《《" + "a" * 20000, "《" * 20000, "｜" * 20000, "｜a《" * 5000):
        assert ruby.pieces(text) == [text]
    # a run of more kanji than MAX_BASE takes no reading
    assert ruby.pieces("漢" * (ruby.MAX_BASE + 1) + "《かん》") == ["漢" * 51 + "《かん》"]
    assert ruby.pieces("か" + "漢" * ruby.MAX_BASE + "《かん》")[1] == ruby.Piece(
        "ruby", "漢" * 50 + "《かん》", "漢" * 50, "かん"
    )


# --- the books and the exports ------------------------------------------------------------


def test_weasyprint_gets_ruby_as_an_inline_block_reading_over_base() -> None:
    page = f"<p>{html('春、｜波乃《なみの》は《《海》》へ')[3:-4]}</p>"
    ja = finish(page, passes_for("ja", kenten=True))
    assert (
        '<span class="ruby"><span class="rt">なみの</span><span class="rb">波乃</span></span>' in ja
    )
    assert '<span class="kt">海</span>' in ja  # the dots, as WeasyPrint's 傍点
    en = finish(page, passes_for("en", kenten=True))
    assert '<span class="kt">海</span>' in en  # 《《…》》 is 傍点 in any language
    # Chromium (the vertical book) and the EPUB keep the HTML ruby
    assert rb("波乃", "なみの") in finish(page, passes_for("ja"))
    assert rb("波乃", "なみの") in finish(page, passes_for("ja", phrases=False))


def test_the_phrase_passes_leave_ruby_whole() -> None:
    short = f'<p class="lede">{html("長い物語の主人公、｜波乃《なみの》という名の娘")[3:-4]}</p>'
    shown = finish(short, passes_for("ja"))
    assert rb("波乃", "なみの") in shown


def test_the_markdown_export_keeps_the_notation_as_written() -> None:
    text = "　春、｜波乃《なみの》は|凪《なぎ》の《《海》》へ。｜《括弧》\n　二行目。"
    assert player_text(text) == text


def test_the_vault_shows_ruby_outside_code() -> None:
    text = "｜波乃《なみの》と `漢字《かんじ》`\n```\n凪《なぎ》\n```\n《《海》》<b>"
    shown = ruby_as_html(player_text(text))
    assert shown.startswith(rb("波乃", "なみの") + "と `漢字《かんじ》`")
    assert "\n凪《なぎ》\n" in shown
    assert '<em class="bouten">海</em>&lt;b>' in shown
    assert ruby_as_html(player_text("｜<b>《<i>》")) == rb("&lt;b>", "&lt;i>")


def test_ruby_html_escapes_what_it_holds() -> None:
    assert ruby.ruby_html('<"&>', "<'>") == (
        "<ruby>&lt;&quot;&amp;&gt;<rp>（</rp><rt>&lt;&#x27;&gt;</rt><rp>）</rp></ruby>"
    )
    assert html_lib.unescape(ruby.to_plain("｜<b>《x》")) == "<b>"
