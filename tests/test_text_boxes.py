"""Every text box in the app keeps its words as they are typed (a reload, a closed tab or a lost
connection loses nothing): each is marked for the script that keeps it, ``data-draft`` (saved
to the server as a draft every device of the group gets back, and on this device) or
``data-keep`` (kept on this device), and every page that shows one loads that script.

The boxes are listed twice: from the templates' source, and from the pages as the app serves
them, crawled from the start page, a sample life and a life played to each of its steps.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

from flask import Flask
from flask.testing import FlaskClient
from play_helpers import chronicle, create, faces, post_turn

from companion.store.db import connect
from companion.streams.demo import create_demo

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
TEXT_TYPES = {"text", "search", "email", "url", "tel"}
# The boxes that do not keep their words, each with its reason.
EXEMPT = {
    ("delete.html", "name"): "a deletion is confirmed by typing the name afresh, every time",
}


def _boxes_in_source() -> list[tuple[str, str, str]]:
    """(template, the box's name, its tag) for every text box the templates write."""
    found = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        source = path.read_text("utf-8")
        for tag in re.findall(r"<(?:textarea|input)\b[^>]*>", source):
            kind = re.search(r'\btype="([^"]+)"', tag)
            if tag.startswith("<input") and kind is not None and kind.group(1) not in TEXT_TYPES:
                continue
            name = re.search(r'\bname="([^"]*)"', tag)
            found.append((str(path.relative_to(TEMPLATES)), name.group(1) if name else "", tag))
    return found


def test_every_text_box_in_the_templates_keeps_its_words() -> None:
    boxes = _boxes_in_source()
    assert len(boxes) >= 20  # the play page's, the end page's, set-up, lobby, corrections...
    bare = [
        (template, name)
        for template, name, tag in boxes
        if "data-draft" not in tag and "data-keep" not in tag
        and (template, name) not in EXEMPT
    ]  # fmt: skip
    assert bare == [], "text boxes that lose their words on a reload"
    assert any("end.html" in t and "data-draft" in tag for t, _n, tag in boxes)  # the epilogue


def _named(src: str, script: str) -> bool:
    """Whether ``src`` is the app's ``js/<script>.js``, under its plain or its content name."""
    return re.search(rf"/js/{script}(\.[0-9a-f]{{12}})?\.js$", src) is not None


class _Boxes(HTMLParser):
    """The text boxes of a page, each with its form's attributes and whether it sits in the
    play page's live part; and the scripts the page loads."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, str | None]] = []
        self.live = 0
        self.depth = 0
        self.boxes: list[tuple[dict[str, str | None], dict[str, str | None], bool]] = []
        self.scripts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.depth += tag not in ("input", "meta", "link", "br", "img", "hr")
        if a.get("id") == "live":
            self.live = self.depth
        if tag == "form":
            self.forms.append(a)
        if tag == "script" and a.get("src"):
            self.scripts.append(str(a["src"]))
        text = tag == "input" and (a.get("type") or "text") in TEXT_TYPES
        if tag == "textarea" or text:
            self.boxes.append((a, self.forms[-1] if self.forms else {}, bool(self.live)))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self.forms:
            self.forms.pop()
        if self.live and self.depth == self.live and tag in ("div", "section", "main"):
            self.live = 0
        self.depth -= tag not in ("input", "meta", "link", "br", "img", "hr")


def _check_page(url: str, text: str) -> int:
    """Every box of the page keeps its words; returns how many it holds."""
    page = _Boxes()
    page.feed(text)
    for box, form, live in page.boxes:
        name = box.get("name") or ""
        if (urlsplit(url).path.endswith("/delete"), name) == (True, "name"):
            continue  # EXEMPT: the deletion's confirmation
        assert "data-draft" in box or "data-keep" in box, f"{url}: the box {name!r} keeps nothing"
        if "data-draft" in box and not live:
            assert form.get("data-draft-url"), f"{url}: the draft {name!r} has nowhere to go"
        assert any(_named(src, "keep") for src in page.scripts), url
        if live:
            assert any(_named(src, "play") for src in page.scripts), url
    return len(page.boxes)


def _links(text: str) -> list[str]:
    return [
        href
        for href in re.findall(r'href="(/[^"#?]*)', text)
        if not href.startswith(("/static/", "/api/"))
        and not href.endswith((".pdf", ".json", ".md"))
    ]


def _crawl(client: FlaskClient, seeds: list[str], limit: int = 160) -> dict[str, int]:
    seen: dict[str, int] = {}
    queue = list(seeds)
    while queue and len(seen) < limit:
        url = queue.pop(0)
        if url in seen:
            continue
        response = client.get(url)
        if response.status_code != 200 or "html" not in response.content_type:
            seen[url] = 0
            continue
        text = response.get_data(as_text=True)
        seen[url] = _check_page(url, text)
        queue += [link for link in _links(text) if link not in seen and "/download" not in link]
    return seen


def test_every_text_box_the_app_serves_keeps_its_words(client: FlaskClient, app: Flask) -> None:
    db = connect(app.config["DATABASE"])
    demo = create_demo(db, "en").host_token
    token = create(client, mode="table")
    steps = {}
    steps["draw"] = client.get(f"/c/{token}/").get_data(as_text=True)
    post_turn(client, app, token, action="draw", card="2H")
    steps["compose"] = client.get(f"/c/{token}/").get_data(as_text=True)
    state = chronicle(app, token).state
    words = {"prompt": "0", "answer": "A.", "stakes_success": "S.", "stakes_failure": "F."}
    post_turn(client, app, token, action="roll", **words, **faces(state.dice, False))
    steps[chronicle(app, token).state.step] = client.get(f"/c/{token}/").get_data(as_text=True)
    boxes = {step: _check_page(f"/c/{token}/ ({step})", text) for step, text in steps.items()}
    assert boxes["compose"] >= 3 and boxes["failure"] >= 3  # answer, stakes; why, outcome...
    seen = _crawl(client, ["/?lang=en", "/new", "/games/", f"/c/{demo}/", f"/c/{token}/"])
    with_boxes = {url for url, n in seen.items() if n}
    assert any(url.endswith("/end") for url in with_boxes)  # the epilogue
    assert any("/text/" in url for url in with_boxes)  # a correction
    assert {"/new", "/games/"} <= with_boxes
