"""A card table's refusals, through the real server, say nothing about where hidden cards lie.

Ann names a card in a discard from her stones (face down, unseen even by her): whether the card
is one of her stones or still in the deck, the table must answer with the same words.
"""

from __future__ import annotations

import html
import json
import random
import re

from server_client import Browser, Server

from attacks.test_attack_bad_input import act_raw, ann_sees, hotseat_table
from companion.store.capabilities import resolve
from companion.store.db import connect
from companion.streams import matches


def load(served: Server, token: str) -> matches.Match:
    db = connect(str(served.database))
    cap = resolve(db, token)
    assert cap is not None
    return matches.load(db, cap.stream_id)


def refusal(browser: Browser, token: str, version: int, action: dict[str, object]) -> str:
    response = act_raw(browser, token, version, json.dumps(action))
    found = re.findall(r'<p class="flash flash-error">(.*?)</p>', browser.followed(response), re.S)
    assert found
    return html.unescape(found[-1]).strip().replace(str(action["card"]), "<card>")


def test_naming_a_hidden_stone_is_refused_like_any_other_card(
    browser: Browser, served: Server
) -> None:
    rng = random.Random(3)
    token, version, actions = hotseat_table(browser, "age-of-summoners")
    for _move in range(600):
        match = load(served, token)
        ann = match.state["seats"][0]
        if ann["stones"] and match.state["await"]["seat"] == 0:
            break
        if not actions:  # boxes to tick (a discard-down), not buttons: one legal move
            actions = match.game.legal_actions(match.state, match.acting_seats()[0])[:1]
        assert actions, "Ann has nothing to do"
        assert act_raw(browser, token, version, json.dumps(rng.choice(actions))).status_code == 302
        over = load(served, token)
        if over.state["result"] is not None:  # over before Ann held a stone: deal again
            form = {"version": str(over.version)}
            dealt = browser.post_form(f"/t/{token}/rematch", form, token_page=f"/t/{token}/")
            assert dealt.status_code == 302
        version, actions = ann_sees(browser, token)
    else:
        raise AssertionError("Ann never had a stone on her turn")
    stone, unseen = ann["stones"][0], match.state["deck"][0]
    for zone in ("stones", "hand", "mana"):
        answers = {
            refusal(browser, token, version, {"type": "discard", "zone": zone, "card": card})
            for card in (stone, unseen)
        }
        assert len(answers) == 1, (zone, answers)
    keep = {refusal(browser, token, version, {"type": "keep", "card": c}) for c in (stone, unseen)}
    assert len(keep) == 1, keep
