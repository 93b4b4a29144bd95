"""Bad input through the real server: every one gets a clear 4xx, never a 500.

Deeply nested JSON, lone surrogates (``"\\ud800"`` escapes), lists and objects where a card-table
action expects a word or a number, and control characters in a redirect target.
"""

from __future__ import annotations

import html
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from server_client import SETUP, Browser, Server, next_command, request

LONE = "a\ud800b"


def api_chronicle(server: Server) -> tuple[str, dict[str, Any]]:
    """A chronicle made through the API: its host token and state."""
    status, body = request(server.port, "POST", "/api/v1/chronicles", SETUP)
    assert status == 201, body
    return body["host_token"], body["state"]


def play_until(server: Server, token: str, state: dict[str, Any], kind: str) -> dict[str, Any]:
    """Play the chronicle through the API until a ``kind`` command is legal."""
    rng = random.Random(5)
    for _ in range(50):
        if kind in {item["type"] for item in state["legal"]}:
            return state
        body = {"version": state["version"], "command": next_command(state, rng)}
        status, state = request(server.port, "POST", f"/api/v1/chronicles/{token}/commands", body)
        assert status == 200, state
    raise AssertionError(f"{kind} never became legal")


def post_raw(server: Server, path: str, text: str) -> tuple[int, Any]:
    """POST a JSON body written by hand (the client's encoder would refuse some of them)."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        conn.request(
            "POST", path, body=text.encode("ascii"), headers={"Content-Type": "application/json"}
        )
        response = conn.getresponse()
        data = response.read()
        kind = response.getheader("Content-Type", "")
        return response.status, json.loads(data) if "json" in kind else data.decode()
    finally:
        conn.close()


def test_deeply_nested_api_command_is_refused_with_a_message(served: Server) -> None:
    token, state = api_chronicle(served)
    path = f"/api/v1/chronicles/{token}/commands"
    for depth in (3_000, 100_000):
        nested = "[" * depth + "]" * depth
        status, body = post_raw(
            served, path, f'{{"version": {state["version"]}, "command": {nested}}}'
        )
        assert status == 400, body
        assert body["code"] == "bad-json" and "nest" in body["error"]


def test_lone_surrogate_in_api_command_and_setup_is_refused(served: Server) -> None:
    token, state = api_chronicle(served)
    state = play_until(served, token, state, "answer-prompt")
    path = f"/api/v1/chronicles/{token}/commands"
    command = {"type": "answer-prompt", "answer": LONE}
    text = json.dumps({"version": state["version"], "command": command})
    assert "\\ud800" in text
    status, body = post_raw(served, path, text)
    assert status == 400, body
    assert body["code"] == "bad-json" and "Unicode" in body["error"]
    setup = json.dumps({**SETUP, "pioneer": {**SETUP["pioneer"], "name": LONE}})
    status, body = post_raw(served, "/api/v1/chronicles", setup)
    assert status == 400, body
    assert body["code"] == "bad-json"
    # Nothing was stored: the chronicle is still waiting for its answer.
    status, after = request(served.port, "GET", f"/api/v1/chronicles/{token}/state")
    assert after["version"] == state["version"]


def _backup_with(browser: Browser, served: Server, where: str) -> bytes:
    """A real backup of an answered chronicle, with a lone surrogate put in ``where``."""
    token, state = api_chronicle(served)
    state = play_until(served, token, state, "answer-prompt")
    body = {"version": state["version"], "command": {"type": "answer-prompt", "answer": "Yes."}}
    status, _ = request(served.port, "POST", f"/api/v1/chronicles/{token}/commands", body)
    assert status == 200
    response = browser.get(f"/c/{token}/export.json")
    assert response.status_code == 200
    document = json.loads(response.content)
    if where == "title":
        document["chronicle"]["title"] = LONE
    else:
        answered = [e for e in document["events"] if e["event"].get("type") == "prompt-answered"]
        assert answered, [e["event"].get("type") for e in document["events"]]
        answered[0]["event"]["answer"] = LONE
    text = json.dumps(document, ensure_ascii=True)
    assert "\\ud800" in text
    return text.encode("ascii")


@pytest.mark.parametrize("where", ["title", "answer"])
def test_backup_with_a_lone_surrogate_is_refused_by_the_import_page(
    browser: Browser, served: Server, where: str
) -> None:
    data = _backup_with(browser, served, where)
    response = browser.post(
        "/import",
        data={"csrf_token": browser.csrf("/")},
        files={"backup": ("backup.json", data, "application/json")},
    )
    assert "Unicode" in html.unescape(browser.followed(response))


def test_backup_with_a_lone_surrogate_is_refused_by_the_command(
    browser: Browser, served: Server, tmp_path: Path
) -> None:
    path = tmp_path / "backup.json"
    path.write_bytes(_backup_with(browser, served, "title"))
    companion = Path(sys.executable).parent / "companion"
    env = {**os.environ, "COMPANION_DATABASE": str(tmp_path / "cli.sqlite3")}
    done = subprocess.run(
        [str(companion), "import", str(path)], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "Unicode" in done.stderr, done.stderr


def hotseat_table(browser: Browser, game: str) -> tuple[str, int, list[dict[str, Any]]]:
    """A hot-seat table of Ann and a bot, Ann's hand shown: the token, version and buttons."""
    seats = {"seat-0-kind": "person", "seat-0-name": "Ann"}
    seats |= {"seat-1-kind": "heuristic", "seat-1-name": "Bo"}
    data = {"game": game, "language": "en", "mode": "hotseat", **seats}
    response = browser.post_form("/games/", data, token_page="/games/")
    assert response.status_code == 302, response.text[-800:]
    token = re.search(r"/t/([^/]+)/", response.headers["Location"]).group(1)  # type: ignore[union-attr]
    return (token, *ann_sees(browser, token))


def ann_sees(browser: Browser, token: str) -> tuple[int, list[dict[str, Any]]]:
    """Pass the device to Ann: the table's version and the actions her buttons offer."""
    shown = browser.post_form(f"/t/{token}/reveal", {"seat": "0"}, token_page=f"/t/{token}/")
    assert shown.status_code == 302
    page = browser.get(f"/t/{token}/").text
    actions = [
        json.loads(html.unescape(v))
        for v in re.findall(r'<button name="action" value="([^"]+)"', page)
    ]
    version = browser.get(f"/t/{token}/version").json()["version"]
    return version, actions


def act_raw(browser: Browser, token: str, version: int, action: str):  # type: ignore[no-untyped-def]
    form = {"version": str(version), "action": action}
    return browser.post_form(f"/t/{token}/act", form, token_page=f"/t/{token}/")


def test_deeply_nested_table_action_is_refused(browser: Browser) -> None:
    token, version, _actions = hotseat_table(browser, "traitors-flame")
    response = act_raw(browser, token, version, "[" * 100_000 + "]" * 100_000)
    assert "could not be read" in html.unescape(browser.followed(response))


def test_lone_surrogate_in_table_action_is_refused(browser: Browser) -> None:
    token, version, _actions = hotseat_table(browser, "age-of-summoners")
    action = json.dumps({"type": "play", "card": LONE})
    response = act_raw(browser, token, version, action)
    assert "could not be read" in html.unescape(browser.followed(response))


def test_list_target_in_traitors_flame_is_refused(browser: Browser) -> None:
    token, version, actions = hotseat_table(browser, "traitors-flame")
    for _turn in range(30):  # draw until Ann holds a card played at someone
        aimed = [a for a in actions if "target" in a]
        if aimed:
            break
        assert act_raw(browser, token, version, json.dumps({"type": "draw"})).status_code == 302
        version, actions = ann_sees(browser, token)
    else:
        pytest.fail("Ann never held a card that takes a target")
    for bad in ([1], {}, [[0]], 1.5):
        action = json.dumps({**aimed[0], "target": bad})
        response = act_raw(browser, token, version, action)
        assert 'class="flash flash-error"' in browser.followed(response)
    response = act_raw(browser, token, version, json.dumps({"type": "play", "card": ["x"]}))
    assert 'class="flash flash-error"' in browser.followed(response)


def test_object_zone_in_summoners_is_refused(browser: Browser) -> None:
    token, version, _actions = hotseat_table(browser, "age-of-summoners")
    for action in (
        {"type": "discard", "zone": {}},
        {"type": "discard", "zone": ["hand"], "card": "kobold-1"},
        {"type": "play", "card": {"a": 1}},
        {"type": "keep", "card": [1]},
        {"type": "pay", "pay": [1]},
    ):
        response = act_raw(browser, token, version, json.dumps(action))
        assert "not" in html.unescape(browser.followed(response)), action


@pytest.mark.parametrize("target", ["/story\n/x", "/a\r\nSet-Cookie: x=1", "/\t/evil.example"])
def test_language_switch_goes_nowhere_strange(browser: Browser, target: str) -> None:
    response = browser.post_form("/language", {"lang": "en", "next": target}, token_page="/")
    assert response.status_code == 302
    location = response.headers["Location"]
    assert location.startswith("/") and not location.startswith(("//", "/\\"))
    assert "evil" not in location and "\n" not in location
    assert "x=1" not in response.headers.get("Set-Cookie", "")


def test_language_switch_still_returns_to_a_page_of_the_site(browser: Browser) -> None:
    response = browser.post_form(
        "/language", {"lang": "ja", "next": "/games/?x=1#top"}, token_page="/"
    )
    assert response.status_code == 302
    assert response.headers["Location"] == "/games/?x=1#top"
