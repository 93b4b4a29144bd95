"""Hostile Markdown in the Markdown export: no raw HTML survives and no text swallows the next."""

from __future__ import annotations

from flask import Flask
from flask_babel import force_locale
from markdown_it import MarkdownIt

from attacks.hostile_life import hostile_life
from companion.export.markdown import story_markdown
from companion.text.terms import card_name

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


IMAGES = [
    "![](http://tracker.example/pixel.png) a pixel",
    "![alt *text*](https://tracker.example/a.png 'title')",
    "[![a linked image](http://tracker.example/b.png)](http://example.org)",
    "![by reference][pic]\n\n[pic]: http://tracker.example/c.png",
    "![shortcut]\n\n[shortcut]: http://tracker.example/d.png",
    "\\\\![after an escaped backslash](http://tracker.example/e.png)",
    "Code keeps it: `![](http://x.example/f.png)`\n\n```\n![](http://x.example/g.png)\n```",
]


def test_no_image_a_viewer_would_load_survives(app: Flask) -> None:
    state = hostile_life(IMAGES)
    with app.app_context():
        markdown = story_markdown(state)
    html = commonmark(markdown)
    assert "<img" not in html.lower()
    assert "tracker.example/pixel.png" in markdown  # the text stays, to read
    assert "<code>![](http://x.example/f.png)</code>" in html  # code is shown as written
    assert "![](http://x.example/g.png)\n</code></pre>" in html
    import cmarkgfm

    assert "<img" not in cmarkgfm.github_flavored_markdown_to_html(markdown).lower()
