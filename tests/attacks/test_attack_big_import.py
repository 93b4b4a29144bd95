"""A backup larger than the 4 MB request cap, made by the app, imports through its own page."""

from __future__ import annotations

import json
from typing import Any

from server_client import Browser, Server, request

import companion.export.backup as backup
from attacks.test_attack_bad_input import api_chronicle, play_until

LONG = "灯" * 20_000  # the longest text a chronicle accepts, three bytes a character


def post_json(browser: Browser, path: str, body: dict[str, Any]):  # type: ignore[no-untyped-def]
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    return browser.post(path, data=data, headers={"Content-Type": "application/json"})


def big_backup(browser: Browser, served: Server) -> bytes:
    """A real backup of about 5 MB: one answer revised many times at full length."""
    token, state = api_chronicle(served)
    state = play_until(served, token, state, "answer-prompt")
    answer = {"type": "answer-prompt", "answer": "A short answer."}
    status, state = request(
        served.port,
        "POST",
        f"/api/v1/chronicles/{token}/commands",
        {"version": state["version"], "command": answer},
    )
    assert status == 200
    target = state["version"]
    revision = {"type": "revise-text", "target_seq": target, "field": "answer", "text": LONG}
    for _batch in range(5):
        body = {"version": state["version"], "commands": [revision] * 17}
        response = post_json(browser, f"/api/v1/chronicles/{token}/commands", body)
        assert response.status_code == 200, response.text[-500:]
        state = response.json()
    response = browser.get(f"/c/{token}/export.json")
    assert response.status_code == 200
    return response.content


def test_a_backup_over_four_megabytes_imports_through_the_page(
    browser: Browser, served: Server
) -> None:
    data = big_backup(browser, served)
    assert 4 * 1024 * 1024 < len(data) < backup.MAX_BYTES
    response = browser.post(
        "/import",
        data={"csrf_token": browser.csrf("/")},
        files={"backup": ("big.json", data, "application/json")},
    )
    assert response.status_code == 302, response.text[-800:]
    host = response.headers["Location"].split("/c/")[1].strip("/")
    status, story = request(served.port, "GET", f"/api/v1/chronicles/{host}/state")
    assert status == 200 and story["version"] > 85


def test_other_requests_stay_capped_at_four_megabytes(browser: Browser) -> None:
    big = b"x" * (4 * 1024 * 1024 + 1)
    response = browser.post(
        "/packs/upload",
        data={"csrf_token": browser.csrf("/packs/")},
        files={"pack": ("big.md", big, "text/markdown")},
    )
    assert response.status_code == 413
    response = browser.post(
        "/api/v1/chronicles", data=big, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 413


def test_a_file_over_the_backup_limit_is_refused_with_a_message(browser: Browser) -> None:
    response = browser.post(
        "/import",
        data={"csrf_token": browser.csrf("/")},
        files={"backup": ("huge.json", b" " * (backup.MAX_BYTES + 1), "application/json")},
    )
    if response.status_code != 413:  # the file is read, then refused with its sentence
        assert 'class="flash flash-error"' in browser.followed(response)
