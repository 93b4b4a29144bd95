"""Hostile Markdown: previews only for links that write, bounded in size, rate and time."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from server_client import Browser, Server

from companion.text.markdown import MAX_NESTING, render_markdown

SLOW_BEFORE = {
    "brackets": "[" * 20_000,
    "link openers": "[a](" * 5_000,
    "backtick runs": "``a`" * 5_000,
    "list markers": "-\n" * 10_000,
    "image openers": "![" * 10_000,
    "emphasis runs": "*a" * 10_000,
    "quote markers": ">" * 20_000,
}


# Over plain HTTP a client keeps no Secure cookie, and with it no CSRF session.
PLAIN_HTTP = {"COMPANION_SESSION_COOKIE_SECURE": "false"}


@pytest.fixture(scope="module")
def writer_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = Server(tmp_path_factory.mktemp("previews") / "own.sqlite3", env=PLAIN_HTTP).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def browser(writer_server: Server) -> Browser:
    return Browser(writer_server.url)


def chronicle(browser: Browser) -> dict[str, str]:
    created = browser.post(
        "/api/v1/chronicles",
        json={"pioneer": {"name": "P", "concept": "c"}, "players": ["A"], "mode": "table"},
    )
    assert created.status_code == 201, created.text
    body: dict[str, str] = created.json()
    return body


def preview(browser: Browser, token: str, text: str, timeout: float = 60):  # type: ignore[no-untyped-def]
    return browser.post(
        f"/c/{token}/preview",
        data={"csrf_token": browser.csrf(), "text": text},
        timeout=timeout,
    )


def test_a_reader_link_cannot_preview(browser: Browser) -> None:
    links = chronicle(browser)
    assert preview(browser, links["reader_token"], "*hello*").status_code == 404
    host = preview(browser, links["host_token"], "*hello*")
    assert host.status_code == 200 and "<em>hello</em>" in host.json()["html"]


@pytest.mark.parametrize("name", sorted(SLOW_BEFORE))
def test_a_hostile_preview_is_answered_at_once(browser: Browser, name: str) -> None:
    # These took from 14 s to minutes each; ten seconds is a bound for a hang, not a speed target.
    token = chronicle(browser)["host_token"]
    try:
        answer = preview(browser, token, SLOW_BEFORE[name], timeout=10)
    except requests.Timeout:
        pytest.fail(f"the preview of {name} did not answer within 10 s")
    assert answer.status_code == 200
    assert answer.json()["html"].count("<blockquote>") <= MAX_NESTING


def test_a_text_over_the_limit_is_refused_before_rendering(browser: Browser) -> None:
    token = chronicle(browser)["host_token"]
    answer = preview(browser, token, "a" * 20_001)
    assert answer.status_code == 400
    assert answer.json() == {"error": "At most 20,000 characters.", "code": "too-long"}


@pytest.mark.slow
def test_previews_are_rate_limited_per_client(tmp_path: Path) -> None:
    server = Server(
        tmp_path / "own.sqlite3", env={**PLAIN_HTTP, "COMPANION_RATELIMIT_ENABLED": "true"}
    ).start()
    try:
        browser = Browser(server.url)
        token = chronicle(browser)["host_token"]
        csrf = browser.csrf()
        answers = [
            browser.post(f"/c/{token}/preview", data={"csrf_token": csrf, "text": "x"})
            for _ in range(260)  # two workers, each counting its own
        ]
    finally:
        server.stop()
    codes = [answer.status_code for answer in answers]
    assert codes[0] == 200 and set(codes) == {200, 429}
    refused = [answer.json()["code"] for answer in answers if answer.status_code == 429]
    assert set(refused) == {"too-many-previews"}


def test_nesting_is_flattened_below_the_cap_and_keeps_every_word() -> None:
    html = str(
        render_markdown("> " * 50 + "deep\n\n" + "".join(f"{'  ' * d}- w{d}\n" for d in range(60)))
    )
    assert html.count("<blockquote>") == MAX_NESTING
    assert html.count("<ul>") == MAX_NESTING
    assert "deep" in html and all(f"w{d}" in html for d in range(60))
