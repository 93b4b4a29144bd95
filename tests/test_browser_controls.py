"""Nothing a person sets or writes is dropped, through `companion serve` in Chromium, in Japanese.

- On the failure step, 健太's phone chooses a keystone, types the four dice faces, picks the
  keystone a failure would cost and writes an outcome, while the host types in its own copy of
  the sacrifice form: every live refresh the host's typing brings leaves the phone's controls as
  健太 set them (and the four face boxes stand on one line at 390 px). The rulebook leaves that
  choice to the player whose turn it is: 「他のプレイヤーに相談しても構いませんが、最終的な決定は
  そのターンのプレイヤー本人が行います。」
- The epilogue is saved as it is typed: another device gets it, a reload keeps it; taken back
  with 「取り消す：エピローグ」, its words wait in the end page's form.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests
from playwright.sync_api import Browser, Page, expect
from racing import serving
from server_client import Server

from companion.store import capabilities
from companion.store.db import connect
from companion.streams.demo import create_demo

pytestmark = pytest.mark.browser
WAIT = 30_000
SETUP = {
    "pioneer": {"name": "汐見ナギ", "people": "人間", "concept": "灯台守の娘。"},
    "players": ["健太", "美咲"],
    "oldest": 0,
    "language": "ja",
    "mode": "table",
}
SACRIFICE = "form:has(button[value=sacrifice])"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("controls")) as running:
        yield running


def _send(server: Server, token: str, commands: list[dict[str, Any]]) -> dict[str, Any]:
    url = f"{server.url}/api/v1/chronicles/{token}"
    version = requests.get(f"{url}/state", timeout=60).json()["version"]
    sent = requests.post(
        f"{url}/commands", json={"version": version, "commands": commands}, timeout=60
    )
    assert sent.status_code == 200, sent.text
    return sent.json()  # type: ignore[no-any-return]


def _failure_step(server: Server) -> tuple[str, str]:
    """A life at its first failure, keystones to pay with: (host link, 健太's seat link)."""
    made = requests.post(f"{server.url}/api/v1/chronicles", json=SETUP, timeout=60).json()
    host = made["host_token"]
    seat = capabilities.issue(connect(server.database), made["id"], "seat", 0)
    state = _send(server, host, [{"type": "draw-card", "card": "2H"}])
    dice = state["stage"]["dice"]
    state = _send(
        server,
        host,
        [
            {"type": "choose-prompt", "index": 0},
            {"type": "answer-prompt", "answer": "灯は消えなかった。"},
            {"type": "declare-stakes", "success": "船が戻る。", "failure": "船を失う。"},
            {"type": "roll-dice", "faces": [1] * dice},
        ],
    )
    assert state["step"] == "failure"
    return host, seat


def _phone_sets(phone: Page) -> dict[str, Any]:
    """健太 sets every kind of control the failure step has; returns what was set."""
    form = phone.locator(SACRIFICE)
    radio = form.locator("input[name=keystone]").first
    radio.check()
    faces = form.locator("input[type=number]")
    for i in range(faces.count()):
        faces.nth(i).fill(str(2 + i))
    phone.locator("details.loss-fields summary").click()  # a narrative loss, folded away
    loss = phone.locator("select[name=loss_keystone]")
    chosen = loss.locator("option").nth(1).get_attribute("value")
    loss.select_option(str(chosen))
    phone.fill("#outcome", "健太の言葉：島の地図が残った。")
    return {
        "keystone": radio.get_attribute("value"),
        "faces": [str(2 + i) for i in range(faces.count())],
        "loss": chosen,
    }


def _phone_holds(phone: Page, set_: dict[str, Any]) -> None:
    form = phone.locator(SACRIFICE)
    expect(form.locator(f"input[name=keystone][value='{set_['keystone']}']")).to_be_checked()
    faces = form.locator("input[type=number]")
    assert [faces.nth(i).input_value() for i in range(faces.count())] == set_["faces"]
    expect(phone.locator("select[name=loss_keystone]")).to_have_value(str(set_["loss"]))
    expect(phone.locator("#outcome")).to_have_value("健太の言葉：島の地図が残った。")


def test_another_device_typing_leaves_every_control_as_it_was_set(
    browser: Browser, server: Server
) -> None:
    host_link, seat_link = _failure_step(server)
    desk = browser.new_context(locale="ja-JP", viewport={"width": 1280, "height": 900})
    handheld = browser.new_context(locale="ja-JP", viewport={"width": 390, "height": 844})
    host, phone = desk.new_page(), handheld.new_page()
    try:
        phone.goto(f"{server.url}/c/{seat_link}/")
        expect(phone.locator("#why")).to_be_editable(timeout=WAIT)
        host.goto(f"{server.url}/c/{host_link}/")
        expect(host.locator("#why")).to_be_editable(timeout=WAIT)
        set_ = _phone_sets(phone)
        # The four face boxes of a form stand on one line on the phone.
        faces = phone.locator(f"{SACRIFICE} input[type=number]")
        tops = {round(faces.nth(i).bounding_box()["y"]) for i in range(faces.count())}  # type: ignore[index]
        assert len(tops) == 1 and faces.count() == 4, tops
        for n, words in enumerate(("ホストの理由、", "ひとつ目。", "ふたつ目の理由。")):
            host.locator("#why").press_sequentially(words, delay=40)
            typed = host.locator("#why").input_value()
            # the phone's page is refreshed with the host's words (they show in its #why)...
            expect(phone.locator("#why")).to_have_value(typed, timeout=WAIT)
            _phone_holds(phone, set_)  # ...and keeps everything 健太 set
            assert n < 3
    finally:
        desk.close()
        handheld.close()


def test_the_epilogue_is_kept_as_it_is_typed_and_an_undo_gives_it_back(
    browser: Browser, server: Server
) -> None:
    demo = create_demo(connect(server.database), "ja")
    host_link = demo.host_token
    seat_link = capabilities.issue(connect(server.database), demo.id, "seat", 0)
    desk = browser.new_context(locale="ja-JP", viewport={"width": 1280, "height": 900})
    handheld = browser.new_context(locale="ja-JP", viewport={"width": 390, "height": 844})
    host, phone = desk.new_page(), handheld.new_page()
    words = "ナギの灯台は、いまも夜ごとに海を照らしている。"
    try:
        host.goto(f"{server.url}/c/{host_link}/end")
        box = host.locator("#epilogue-text")
        box.fill("")
        box.press_sequentially(words, delay=20)
        expect(host.locator("#epilogue .save-status")).to_have_text(
            "下書きを保存しました", timeout=WAIT
        )
        phone.goto(f"{server.url}/c/{seat_link}/end")
        expect(phone.locator("#epilogue-text")).to_have_value(words, timeout=WAIT)
        host.reload()
        expect(host.locator("#epilogue-text")).to_have_value(words, timeout=WAIT)
        host.get_by_role("button", name="エピローグを保存").click()
        expect(host.locator("#epilogue .prose")).to_contain_text(words, timeout=WAIT)
        host.goto(f"{server.url}/c/{host_link}/")
        host.get_by_role("button", name="取り消す：エピローグ").click()
        expect(host.locator(".flash-success")).to_be_visible(timeout=WAIT)
        host.goto(f"{server.url}/c/{host_link}/end")
        expect(host.locator("#epilogue .prose")).to_have_count(0)
        expect(host.locator("#epilogue-text")).to_have_value(words, timeout=WAIT)
        phone.goto(f"{server.url}/c/{seat_link}/end")
        expect(phone.locator("#epilogue-text")).to_have_value(words, timeout=WAIT)
    finally:
        desk.close()
        handheld.close()
