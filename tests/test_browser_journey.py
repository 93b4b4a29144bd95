"""A Japanese table's whole evening through `companion serve`: a host on a desktop, two phones."""

from __future__ import annotations

import io
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from playwright.sync_api import Browser, Page, expect
from pypdf import PdfReader
from racing import serving
from server_client import Server

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parent.parent
# Screenshots go to test-results/; UPDATE_SCREENSHOTS=1 refreshes the README's copies in docs/.
SHOTS = ROOT / ("docs" if os.environ.get("UPDATE_SCREENSHOTS") else "test-results") / "screenshots"
WAIT = 30_000
PLAYERS = ["あかり", "ぼたん", "ちひろ"]
ANSWER = "灯台守の娘は、嵐の夜に小舟を出した。"
SACRIFICE_WHY = "舟を手放さなければ、妹を救えなかった。"
LOSS = "波が形見の指輪を奪っていった。"
CORRECTED = "灯台守の娘は、夜明けに小舟を出した。"
EPILOGUE = "灯台はいまも岬に立っている。"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serving(tmp_path_factory.mktemp("journey")) as running:
        yield running


class Api:
    """The JSON API, used to play the bulk of the turns quickly."""

    def __init__(self, base: str, token: str) -> None:
        self.base, self.token = base, token

    def state(self) -> dict[str, Any]:
        response = requests.get(f"{self.base}/api/v1/chronicles/{self.token}/state", timeout=60)
        assert response.status_code == 200, response.text
        return response.json()  # type: ignore[no-any-return]

    def send(self, state: dict[str, Any], command: dict[str, Any]) -> None:
        response = requests.post(
            f"{self.base}/api/v1/chronicles/{self.token}/commands",
            json={"version": state["version"], "command": command},
            timeout=60,
        )
        assert response.status_code == 200, response.text

    def play_until(self, done: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Play the plainest legal command until `done` holds (failures are accepted)."""
        state = self.play_until_or_end(done)
        assert state is not None, "the life ended before the table got there"
        return state

    def play_until_or_end(self, done: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
        """``play_until``, or None when the life ends first (the app's dice decide)."""
        for _ in range(500):
            state = self.state()
            if done(state):
                return state
            if state["ended"]:
                return None
            self.send(state, plain_command({item["type"]: item for item in state["legal"]}))
        raise AssertionError("the table never got there")


SPARE_LIFE = {
    "pioneer": {"name": "汐見ナギ"},
    "players": PLAYERS,
    "oldest": 0,
    "keystones": [{"kind": kind, "name": name} for kind, name in (
        ("resource", "小舟"), ("attachment", "妹のミオ"), ("creed", "灯を絶やさない"))],
    "language": "ja",
    "mode": "digital",
}  # fmt: skip


def a_failure_to_spend_a_token_on(api: Api) -> tuple[Api, dict[str, Any]]:
    """A failure where a token may be spent: in ``api``'s life, or, when its dice build the eighth
    mark before another check fails (about one life in 500), in a fresh life whose keystone the
    story takes (which gives the token)."""
    for _ in range(5):
        state = api.play_until_or_end(at_failure_with("spend-token"))
        if state is not None:
            return api, state
        made = requests.post(f"{api.base}/api/v1/chronicles", json=SPARE_LIFE, timeout=60)
        assert made.status_code == 201, made.text
        api = Api(api.base, made.json()["host_token"])
        state = api.play_until(lambda s: s["step"] in ("success", "failure"))
        kept = [k["id"] for k in state["keystones"] if k["status"] == "kept"]
        api.send(state, {"type": "record-loss", "keystone": kept[0], "narration": LOSS})
    raise AssertionError("five lives ended before a check failed with a token in hand")


def plain_command(legal: dict[str, dict[str, Any]]) -> dict[str, Any]:
    if "draw-card" in legal:
        return {"type": "draw-card"}
    if "choose-prompt" in legal:
        return {"type": "choose-prompt", "index": legal["choose-prompt"]["options"]["indices"][0]}
    if "answer-prompt" in legal:
        return {"type": "answer-prompt", "answer": "潮の匂いがした。"}
    if "declare-stakes" in legal:
        return {"type": "declare-stakes", "success": "岬に着く。", "failure": "舟が沈む。"}
    if "roll-dice" in legal:
        return {"type": "roll-dice"}
    if "narrate-success" in legal:
        return {"type": "narrate-success", "narration": "なんとか切り抜けた。"}
    if "build-mark" in legal:
        return {"type": "build-mark", "name": "岬の灯", "description": "消えない灯り。"}
    assert "accept-failure" in legal, legal
    return {"type": "accept-failure", "narration": "それでも朝は来た。"}


def legal_types(state: dict[str, Any]) -> set[str]:
    return {item["type"] for item in state["legal"]}


def at_failure_with(kind: str) -> Callable[[dict[str, Any]], bool]:
    return lambda state: state["step"] == "failure" and kind in legal_types(state)


def reload(page: Page) -> None:
    page.reload()
    expect(page.locator("h1")).to_be_visible(timeout=WAIT)


def set_up_as_host(page: Page, base: str) -> str:
    page.goto(f"{base}/new?lang=ja")
    for seat, name in enumerate(PLAYERS):
        page.fill(f"#player-{seat}", name)
    page.check("input[name=oldest][value='0']")
    page.check("input[name=mode][value=digital]")
    page.fill("#pioneer", "汐見ナギ")
    page.fill("#concept", "灯台守の娘。海図を描く。")
    for kind, name in (
        ("resource", "小舟"),
        ("attachment", "妹のミオ"),
        ("creed", "灯を絶やさない"),
    ):
        rows = page.locator(f"input[id^={kind}-][id$=-name]")
        for i in range(rows.count()):
            rows.nth(i).fill(name if i == 0 else "")
    page.click("form button.primary[type=submit]")
    expect(page).to_have_url(re.compile(r"/c/[^/]+/links"), timeout=WAIT)
    match = re.search(r"/c/([^/]+)/links", page.url)
    assert match
    return match.group(1)


def links_for_everyone(page: Page) -> dict[str, str]:
    page.click("button[name=issue][value=everyone]")
    cards = page.locator(".fresh-link")
    expect(cards).to_have_count(len(PLAYERS) + 1, timeout=WAIT)
    links = {}
    for i in range(cards.count()):
        links[cards.nth(i).locator("h3").inner_text().strip()] = (
            cards.nth(i).locator("code").inner_text().strip()
        )
    return links


def pdf_text(base: str, token: str, edition: str) -> str:
    api = f"{base}/api/v1/chronicles/{token}/exports"
    job = requests.post(api, json={"format": "pdf", "edition": edition}, timeout=60)
    assert job.status_code in (200, 202), job.text
    body = job.json()
    deadline = time.monotonic() + 240
    while body["status"] != "done":
        assert body["status"] in ("queued", "running"), body
        assert time.monotonic() < deadline, "the book was not made in time"
        time.sleep(0.5)  # polling a job, not waiting for the page
        body = requests.get(f"{api}/{body['id']}", timeout=60).json()
    response = requests.get(f"{api}/{body['id']}/file", timeout=60)
    assert response.status_code == 200 and response.content.startswith(b"%PDF")
    reader = PdfReader(io.BytesIO(response.content))
    return "".join(page.extract_text() or "" for page in reader.pages).replace("\n", "")


def test_a_japanese_evening_from_setup_to_the_books(
    browser: Browser, server: Server, tmp_path: Path
) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    base = server.url
    desktop = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    host = desktop.new_page()
    token = set_up_as_host(host, base)
    links = links_for_everyone(host)
    api = Api(base, token)
    phones = []
    for name in PLAYERS[1:]:
        context = browser.new_context(
            viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
        )
        phone = context.new_page()
        phone.goto(links[name])
        expect(phone.locator(".waiting")).to_contain_text(PLAYERS[0], timeout=WAIT)
        phones.append(phone)
    brianna = phones[0]

    # あかり draws on the host's screen; ぼたん's phone may not take that draw back, the host may.
    host.goto(f"{base}/c/{token}/")
    host.click("button[value=draw]")
    expect(host.locator(".drawn-card")).to_be_visible(timeout=WAIT)
    expect(brianna.locator(".drawn-card")).to_be_visible(timeout=WAIT)  # the live update
    undo = brianna.locator(".undo-form button")
    expect(undo).to_be_disabled(timeout=WAIT)
    expect(brianna.locator("#undo-reason")).to_contain_text(PLAYERS[0])
    host.locator(".undo-form button").click()
    expect(host.locator(".flash-success")).to_be_visible(timeout=WAIT)
    expect(host.locator("button[value=draw]")).to_be_visible()
    assert api.state()["step"] == "draw"

    # Drawn again; ぼたん, whose turn it is not, veils the second prompt from her phone.
    host.click("button[value=draw]")
    expect(brianna.locator("button.xcard").nth(1)).to_be_visible(timeout=WAIT)
    brianna.locator("button.xcard").nth(1).click()
    expect(brianna.locator("button.xcard")).to_have_count(1, timeout=WAIT)
    check = api.state()["check"]
    assert check["veiled"] == [1], check
    reload(host)
    host.set_viewport_size({"width": 1280, "height": 800})
    host.screenshot(path=str(SHOTS / "play-desktop.png"), full_page=True)
    reload(brianna)
    brianna.screenshot(path=str(SHOTS / "play-phone.png"), full_page=True)

    # あかり answers in Japanese and rolls the app's dice.
    host.check("input[name=prompt][value='0']")
    host.fill("#answer", ANSWER)
    host.fill("#stakes_success", "妹を見つける。")
    host.fill("#stakes_failure", "舟を失う。")
    host.click("button[value=roll]")
    expect(host.locator(".rolls .roll")).to_have_count(1, timeout=WAIT)

    # The first failure that may be bought back: a keystone is sacrificed on the host's page.
    api.play_until(at_failure_with("sacrifice-keystone"))
    reload(host)
    host.locator(".failure-choices input[name=keystone]").first.check()
    host.fill("#why", SACRIFICE_WHY)
    host.fill("#outcome", "舟は沈み、ミオは岸に上がった。")
    with host.expect_navigation(timeout=WAIT):
        host.click("button[value=sacrifice]")
    assert any(k["status"] != "kept" for k in api.state()["keystones"])

    # The next decision: the story destroys a keystone, which gives a reroll token.
    state = api.play_until(lambda s: s["step"] in ("success", "failure"))
    tokens_before = state["tokens"]["count"]
    reload(host)
    form = host.locator(
        "form:has(button[value=narrate])"
        if state["step"] == "success"
        else "form:has(button[value=accept])"
    )
    form.locator("details.loss-fields summary").click()
    form.locator("#loss_keystone").select_option(index=1)
    form.locator("#loss_narration").fill(LOSS)
    with host.expect_navigation(timeout=WAIT):
        form.locator("button[name=action]").click()
    state = api.state()
    assert state["tokens"]["count"] == tokens_before + 1, state["tokens"]
    lost = [k for k in state["keystones"] if k["status"] != "kept"]
    assert len(lost) == 2, state["keystones"]

    # A later failure: the token is spent on the host's page.
    spending, state = a_failure_to_spend_a_token_on(api)
    tokens = state["tokens"]["count"]
    host.goto(f"{base}/c/{spending.token}/")
    with host.expect_navigation(timeout=WAIT):
        host.click("button[value=token]")
    assert spending.state()["tokens"]["count"] == tokens - 1
    host.goto(f"{base}/c/{token}/")

    # The rest of the life through the API, then the correction and the epilogue by hand.
    api.play_until(lambda s: s["ended"])
    host.goto(f"{base}/c/{token}/story")
    answer = host.locator(".story-text.answer", has_text=ANSWER).first
    answer.locator("a[href*='/text/']").first.click()
    expect(host).to_have_url(re.compile(r"/text/\d+/"), timeout=WAIT)
    host.fill("#fix-text", CORRECTED)
    host.click("form button.primary[type=submit]")
    expect(host.locator(".flash-success")).to_be_visible(timeout=WAIT)
    expect(host.locator(".story-text.answer", has_text=CORRECTED)).not_to_have_count(0)
    host.goto(f"{base}/c/{token}/end")
    host.fill("#epilogue-text", EPILOGUE)
    host.click("form:has(#epilogue-text) button.primary")
    expect(host.locator("#epilogue .prose")).to_contain_text(EPILOGUE, timeout=WAIT)

    # Every download, saved and opened.
    host.goto(f"{base}/c/{token}/story")
    with host.expect_download(timeout=WAIT) as markdown:
        host.click("#exports a[href$='export.md']")
    md_path = tmp_path / "life.md"
    markdown.value.save_as(md_path)
    md = md_path.read_text(encoding="utf-8")
    assert CORRECTED in md and EPILOGUE in md and SACRIFICE_WHY in md
    with host.expect_download(timeout=WAIT) as backup:
        host.click("#exports a[href$='export.json']")
    json_path = tmp_path / "life.json"
    backup.value.save_as(json_path)
    for edition in ("story", "annotated"):
        text = pdf_text(base, token, edition)
        assert CORRECTED in text and EPILOGUE in text, (edition, text[:400])
        if edition == "annotated":
            assert SACRIFICE_WHY in text and LOSS in text, text[:400]

    # The backup imports back through the start page and exports the very same file.
    host.goto(f"{base}/")
    host.set_input_files("#import-file", str(json_path))
    host.click("#import button[type=submit]")
    expect(host.locator(".flash-success")).to_be_visible(timeout=WAIT)
    match = re.search(r"/c/([^/]+)/", host.url)
    assert match and match.group(1) != token
    again = requests.get(f"{base}/c/{match.group(1)}/export.json", timeout=60)
    assert again.status_code == 200
    assert again.content == json_path.read_bytes()
    for phone in phones:
        phone.context.close()
    desktop.close()
