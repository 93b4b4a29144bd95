"""Texts made mostly of markup are shown as written, escaped; prose keeps its Markdown."""

from __future__ import annotations

from companion.text.markdown import is_mostly_markup, plain, render_markdown


def test_a_long_text_of_markup_is_shown_as_written_and_escaped() -> None:
    text = "[*<script>alert(1)</script>_`" * 200
    html = str(render_markdown(text))
    assert "<script" not in html and "&lt;script&gt;" in html
    assert html.count("[*&lt;script&gt;alert(1)&lt;/script&gt;_`") == 200  # nothing lost
    assert plain(text) == text


def test_lines_and_paragraphs_survive_the_plain_rendering() -> None:
    text = ("- - -\n" * 200) + "\n\n" + ("> > >\n" * 200)
    html = str(render_markdown(text))
    assert html.count("<p>") == 2
    assert html.count("<br />") == 398
    assert "<ul>" not in html and "<blockquote>" not in html


def test_prose_and_a_long_list_of_links_keep_their_markdown() -> None:
    prose = "She wrote the *names* of the dead on the door, one by one.\n\n" * 40
    links = "- [The old map](https://example.org/maps/old-map.png)\n" * 40
    assert not is_mostly_markup(prose) and not is_mostly_markup(links)
    assert "<em>names</em>" in str(render_markdown(prose))
    assert str(render_markdown(links)).count("<li>") == 40


def test_short_texts_always_get_markdown() -> None:
    assert str(render_markdown("**a** " * 10)).count("<strong>") == 10
