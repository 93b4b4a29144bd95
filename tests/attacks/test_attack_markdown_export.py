"""Hostile Markdown in the Markdown export: no raw HTML survives and no text swallows the next."""

from __future__ import annotations

from flask import Flask
from flask_babel import force_locale
from markdown_it import MarkdownIt

from attacks.hostile_life import hostile_life
from companion.export.markdown import story_markdown
from companion.web.terms import card_name

HOSTILE_TEXTS = [
    "<script>window.__xss=1</script> after the script",
    "An open fence:\n\n```\n<script>window.__xss=1</script>",
    "<div>\nan open div <script>window.__xss=1</script>",
    "A trailing backslash \\",
    "<!-- an open comment",
    "~~~~ tildes\n<img src=x onerror=alert(1)>\n~~~",
    "<pre>\n\n\n# not a heading",
    "Code `<b>` stays code.",
]


def commonmark(markdown: str) -> str:
    return MarkdownIt("commonmark").render(markdown)  # raw HTML on, as most viewers have it


def test_no_raw_html_survives_and_every_turning_point_keeps_its_heading(app: Flask) -> None:
    state = hostile_life(HOSTILE_TEXTS)
    with app.app_context():
        markdown = story_markdown(state)
        with force_locale("en"):
            headings = [f"<h3>{card_name(tp.card)}</h3>" for tp in state.story]
    html = commonmark(markdown)
    assert "<script" not in html.lower() and "<img" not in html.lower()
    assert "<div" not in html and "<!--" not in html and "<pre>\n" not in html
    assert "&lt;script&gt;" in html  # shown as written
    assert "<code>&lt;b&gt;</code>" in html
    missing = [heading for heading in headings if heading not in html]
    assert missing == []
