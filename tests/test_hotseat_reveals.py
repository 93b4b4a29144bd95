"""逆臣の炎 on one passed phone: what a move shows its player (a hand looked at with 鏡の間の密偵,
a card just drawn) is shown to that player before the device is passed, with a button to pass
it on; a move that shows nothing hands over at once."""

from __future__ import annotations

import html
import json
import re

from flask import Flask
from flask.testing import FlaskClient
from table_helpers import buttons, load, new_table, page

from companion.cardgames.traitors_flame import cards
from companion.web.tables.view import revealed_to

PEOPLE = {"seat-0-kind": "person", "seat-0-name": "あかり", "seat-1-kind": "person"}
PEOPLE |= {"seat-1-name": "そら"}


def take_device(client: FlaskClient, app: Flask, token: str) -> tuple[int, str]:
    """The person whose move it is takes the device: their seat and their page."""
    shown = page(client, f"/t/{token}/")
    if 'class="pass-on' in shown:
        client.post(f"/t/{token}/pass")
        shown = page(client, f"/t/{token}/")
    seat = load(app, token).acting_seats()[0]
    if 'class="cover-screen"' not in shown:  # the same person moves again
        return seat, shown
    client.post(f"/t/{token}/reveal", data={"seat": str(seat)})
    return seat, page(client, f"/t/{token}/")


def move(client: FlaskClient, app: Flask, token: str, action: dict[str, object]) -> str:
    version = load(app, token).version
    sent = client.post(
        f"/t/{token}/act", data={"version": str(version), "action": json.dumps(action)}
    )
    assert sent.status_code == 302, sent.get_data(as_text=True)[-800:]
    return html.unescape(page(client, f"/t/{token}/"))


def test_a_card_just_drawn_is_shown_before_the_device_is_passed(
    client: FlaskClient, app: Flask
) -> None:
    token = new_table(client, "traitors-flame", lang="ja", **PEOPLE)
    seat, _shown = take_device(client, app, token)
    name = ("あかり", "そら")[seat]
    after = move(client, app, token, {"type": "draw"})
    drawn = load(app, token).state["events"][-2]
    assert drawn["type"] == "drew" and drawn["private"]["seats"] == [seat]
    assert f"{name}の手番が終わりました" in after and 'class="cover-screen"' not in after
    assert "手札を隠して" in after and "に端末を渡す" in after
    mine = after.split('class="tf-own"')[1].split("</section>")[0]
    card = drawn["private"]["card"].rsplit("-", 1)[0]
    assert card in mine  # the card just drawn is in the hand on screen
    assert not buttons(after)  # nothing to press but "pass it on"
    assert client.post(f"/t/{token}/pass").status_code == 302
    handed = page(client, f"/t/{token}/")
    assert 'class="cover-screen"' in handed and 'class="tf-own"' not in handed


def test_the_spy_shows_the_hand_it_looked_at_before_the_device_is_passed(
    client: FlaskClient, app: Flask
) -> None:
    token = new_table(client, "traitors-flame", lang="ja", **PEOPLE)
    for _move in range(600):
        seat, shown = take_device(client, app, token)
        spies = [a for a in buttons(shown) if str(a.get("card", "")).startswith("spy-")]
        offered = buttons(shown)
        chosen = (
            spies[0] if spies else next((a for a in offered if a["type"] == "draw"), offered[0])
        )
        if spies:
            target = spies[0].get("target", 1 - seat)
            hand = [c for c in load(app, token).state["hands"][target] if not c.startswith("flame")]
            rounds = load(app, token).state.get("round")
        after = move(client, app, token, chosen)
        over = load(app, token)
        if spies and over.state.get("round") == rounds and over.game.result(over.state) is None:
            break  # (a spy whose play ends the round shows every hand anyway: look again)
        if over.game.result(over.state) is not None:
            client.post(f"/t/{token}/rematch", data={"version": str(over.version)})
    else:
        raise AssertionError("nobody ever held 鏡の間の密偵 in the middle of a round")
    assert "の手番が終わりました" in after, after[-3000:]
    looked = [e for e in load(app, token).state["events"] if e["type"] == "looked"][-1]
    assert looked["private"] == {"seats": [seat], "cards": hand}
    if hand:  # (a hand of Flames only shows nothing to name)
        seen = after.split('class="tf-known-label"')[1].split("</ul>")[0]
        assert sorted(re.findall(r"<span>([^<]+)</span>", seen)) == sorted(
            cards.kind_of(card)["name_ja"] for card in hand
        )


def test_only_the_mover_sees_it_and_a_quiet_move_passes_at_once() -> None:
    before = {"events": [{"type": "played", "seat": 0}]}
    drew = {"type": "drew", "seat": 0, "private": {"seats": [0], "card": "spy-1"}}
    assert revealed_to(0, before, {"events": [*before["events"], drew]})
    assert not revealed_to(1, before, {"events": [*before["events"], drew]})
    assert not revealed_to(0, before, {"events": [*before["events"], {"type": "played"}]})
    assert revealed_to(0, {"events": [drew, drew]}, {"events": [drew]})  # a new round's log
