"""Hostile text in every field comes out inert: in the HTML, and in a real browser with the CSP off.

The payloads (tests/xss_payloads.py) follow the families of the OWASP filter-evasion list. The
browser check switches the Content-Security-Policy off, so it proves the sanitizer alone suffices.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import make_app, plain_static
from flask import Flask
from flask.testing import FlaskClient
from play_helpers import chronicle, faces, post_turn
from werkzeug.serving import make_server
from xss_payloads import payloads

ALL = "\n\n".join(payloads())
OUR_SCRIPTS = {
    "/static/js/play.js",
    "/static/js/links.js",
    "/static/js/site.js",
    "/static/js/keep.js",
    "/static/js/live.js",
}
DANGEROUS_TAGS = {
    "script",
    "iframe",
    "object",
    "embed",
    "style",
    "base",
    "frame",
    "frameset",
    "applet",
    "math",
    "svg",
    "template",
    "xmp",
    "plaintext",
    "noscript",
    "isindex",
    "marquee",
    "img",
    "video",
    "audio",
    "source",
    "picture",
    "dialog",
}
URL_ATTRIBUTES = {
    "href",
    "src",
    "action",
    "formaction",
    "xlink:href",
    "data",
    "background",
    "srcset",
}


def chunks(limit: int) -> Iterator[str]:
    """The payloads packed into texts of at most ``limit`` characters."""
    current = ""
    for payload in payloads():
        if current and len(current) + len(payload) + 1 > limit:
            yield current
            current = ""
        current = f"{current} {payload}".strip() if len(payload) < limit else payload[:limit]
    if current:
        yield current


def hostile_setup() -> dict[str, str]:
    """A setup form with payloads in every field, short ones spread across the name fields."""
    short = list(chunks(200))
    form = {
        "language": "en",
        "mode": "table",
        "oldest": "0",
        "pack": "standard",
        "concept": ALL,
        "lines": ALL,
        "veils": ALL,
    }
    names = iter(short * 3)
    form["pioneer"] = next(names)
    form["people"] = next(names)
    for i in range(8):
        form[f"player-{i}"] = f"P{i} {next(names)}"[:200]
    for kind in ("resource", "attachment", "creed"):
        for i in range(6):
            form[f"{kind}-{i}-name"] = f"{kind[0]}{i} {next(names)}"[:200]
            form[f"{kind}-{i}-description"] = ALL
    return form


class _Audit(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if tag == "script" and plain_static(names.get("src")) not in OUR_SCRIPTS:
            self.problems.append(f"script tag {attrs}")
        for name, value in attrs:
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}>")
            if (
                name in URL_ATTRIBUTES
                and value
                and re.match(r"\s*(javascript|data|vbscript):", value, re.I)
            ):
                self.problems.append(f"<{tag} {name}={value[:40]}>")


def audit(html: str) -> list[str]:
    """Script tags, event handlers and script URLs in a page, ours excepted."""
    parser = _Audit()
    parser.feed(html)
    problems = parser.problems
    main = html.split('<main id="main"', 1)[1].split("</main>", 1)[0]
    for tag in sorted(DANGEROUS_TAGS):
        if re.search(rf"<{tag}[\s>/]", main, re.I) and tag not in ("svg",):
            problems.append(f"<{tag}> in the page body")
    return problems


def play_hostile_life(client: FlaskClient, app: Flask) -> str:
    response = client.post("/new", data=hostile_setup())
    assert response.status_code == 302, response.get_data(as_text=True)[-2000:]
    token = response.headers["Location"].split("/c/")[1].split("/")[0]
    texts = {"answer": ALL, "stakes_success": ALL, "stakes_failure": ALL}
    # Turn 1: veil both prompts, ask our own hostile question, fail, sacrifice, lose, accept.
    post_turn(client, app, token, action="draw", card="AH")
    post_turn(client, app, token, action="veil:0")
    post_turn(client, app, token, action="veil:1")
    post_turn(
        client, app, token, action="roll", prompt="own", question=ALL, **texts, **faces(4, False)
    )
    post_turn(
        client,
        app,
        token,
        action="sacrifice",
        keystone="r1",
        why=ALL,
        outcome=ALL,
        **faces(4, False),
    )
    post_turn(
        client, app, token, action="accept", narration=ALL, loss_keystone="a1", loss_narration=ALL
    )
    # Round 2: three successes and a hostile legacy mark.
    for card in ("2H", "6H", "JH"):
        post_turn(client, app, token, action="draw", card=card)
        post_turn(client, app, token, action="roll", prompt="1", **texts, **faces(4, True))
        state = chronicle(app, token).state
        if state.step == "mark":
            post_turn(
                client,
                app,
                token,
                action="mark",
                mark_name=next(chunks(200)),
                mark_description=ALL,
                narration=ALL,
            )
        else:
            post_turn(client, app, token, action="narrate", narration=ALL)
    state = chronicle(app, token).state
    assert len(state.marks) == 1 and len(state.story) == 4, "the hostile texts were refused"
    answer = state.story[0].answer
    client.post(
        f"/c/{token}/revise",
        data={
            "target_seq": answer.seq,
            "field": "answer",
            "text": ALL + " revised",
            "version": str(chronicle(app, token).version),
        },
    )
    return token


PAGES = ("/", "/story", "/end", "/links")


def test_there_are_over_a_hundred_payloads() -> None:
    assert len(payloads()) >= 100


def test_every_page_is_clean_with_payloads_in_every_field(client: FlaskClient, app: Flask) -> None:
    token = play_hostile_life(client, app)
    for path in PAGES:
        html = client.get(f"/c/{token}{path}").get_data(as_text=True)
        assert audit(html) == [], path
        assert "&lt;script&gt;" in html or path == "/links"


def test_drafts_and_previews_are_clean(client: FlaskClient, app: Flask) -> None:
    token = play_hostile_life(client, app)
    client.post(f"/c/{token}/draft", data={"field": "answer", "text": ALL})
    assert audit(client.get(f"/c/{token}/").get_data(as_text=True)) == []
    preview = client.post(f"/c/{token}/preview", data={"text": ALL}).json["html"]
    assert audit(f'<main id="main">{preview}</main>') == []


# Resolves once the page has rendered two frames and run the task queued after them.
TWO_FRAMES = """() => new Promise(
  r => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r)))
)"""


@pytest.mark.browser
def test_no_payload_runs_in_chromium_even_without_the_csp(page, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    app = make_app(tmp_path, CSP_ENABLED=False)
    token = play_hostile_life(app.test_client(), app)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        for path in PAGES:
            page.goto(f"http://127.0.0.1:{server.server_port}/c/{token}{path}")
            page.mouse.move(200, 300)
            page.keyboard.press("Tab")
            page.evaluate(TWO_FRAMES)  # handlers run on a rendered frame (animations) have run
            assert page.evaluate("window.__xss") is None, path
            handlers = page.evaluate(
                "[...document.querySelectorAll('*')].flatMap(e => [...e.attributes]"
                ".filter(a => a.name.startsWith('on')).map(a => e.tagName + ' ' + a.name))"
            )
            assert handlers == [], path
            scripts = page.evaluate("[...document.scripts].map(s => s.getAttribute('src'))")
            assert {plain_static(src) for src in scripts} <= OUR_SCRIPTS, path
        assert dialogs == []
    finally:
        server.shutdown()
        thread.join(timeout=5)


def test_the_audit_catches_raw_payloads() -> None:
    raw = f'<main id="main">{ALL}</main>'
    problems = audit(raw)
    assert any("onerror" in p for p in problems)
    assert any("script tag" in p for p in problems)
    assert any("javascript" in p.lower() for p in problems)


def test_payloads_come_back_from_the_json_api_as_plain_strings(client: FlaskClient) -> None:
    created = client.post(
        "/api/v1/chronicles",
        json={"pioneer": {"name": "P", "concept": ALL}, "players": ["A"], "mode": "table"},
    )
    assert created.status_code == 201, created.get_json()
    token = created.get_json()["host_token"]
    state = client.get(f"/api/v1/chronicles/{token}/state")
    assert state.mimetype == "application/json"
    assert state.headers["X-Content-Type-Options"] == "nosniff"
    assert state.get_json()["pioneer"]["concept"] == ALL  # data, never markup
    story = client.get(f"/api/v1/chronicles/{token}/story")
    assert story.mimetype == "application/json"
