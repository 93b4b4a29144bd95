"""The pages the accessibility check visits, set up through the test client, and axe's runner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from play_helpers import chronicle, create, faces, play_to_the_end, play_turn, post_turn
from playwright.sync_api import Page
from table_helpers import new_table

from companion.legacy import legal_commands

AXE = (Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js").read_text("utf-8")
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


def roll_fields(hit: bool, dice: int) -> dict[str, str]:
    fields = {"prompt": "0", "answer": "A", "stakes_success": "S", "stakes_failure": "F"}
    return {**fields, **faces(dice, hit)}


def pages(client: FlaskClient, app: Flask) -> dict[str, str]:
    """Name -> path of every kind of page, each play step included."""
    host = create(client)
    steps = {"play-draw": f"/c/{host}/"}
    # Each play step gets its own chronicle, stopped at that step.
    chosen = create(client)
    post_turn(client, app, chosen, action="draw", card="2H")
    steps["play-compose"] = f"/c/{chosen}/"
    won = create(client)
    post_turn(client, app, won, action="draw", card="2H")
    post_turn(client, app, won, action="roll", **roll_fields(True, 4))
    steps["play-success"] = f"/c/{won}/"
    lost = create(client)
    post_turn(client, app, lost, action="draw", card="2H")
    post_turn(client, app, lost, action="roll", **roll_fields(False, 4))
    steps["play-failure"] = f"/c/{lost}/"
    steps["play-failure-choices"] = failure_with_every_choice(client, app)
    mark = create(client)
    for _ in range(2):
        play_turn(client, app, mark, hit=True)
    state = chronicle(app, mark).state
    post_turn(client, app, mark, action="draw", card=state.pile_cards(state.pile)[0])
    post_turn(client, app, mark, action="roll", **roll_fields(True, 4))
    steps["play-mark"] = f"/c/{mark}/"
    ended = create(client)
    play_to_the_end(client, app, ended)
    kept, writing = words_kept_and_being_written(client, app)
    flame = new_table(client, "traitors-flame")
    summoners = new_table(client, "age-of-summoners")
    return {
        "start": "/",
        "new": "/new",
        **steps,
        "story": f"/c/{ended}/story",
        "end": f"/c/{ended}/end",
        "play-ended": f"/c/{ended}/",
        "links": f"/c/{host}/links",
        "delete": f"/c/{host}/delete",
        "packs": "/packs/",
        "pack-preview": "/packs/standard/ja",
        "games": "/games/",
        "traitors-flame": f"/t/{flame}/",
        "age-of-summoners": f"/t/{summoners}/",
        "table-replay": f"/t/{flame}/replay",
        "table-links": f"/t/{summoners}/links",
        "table-delete": f"/t/{summoners}/delete",
        "rules": "/games/traitors-flame/rules",
        "not-found": "/c/no-such-link/",
        "play-kept": kept,
        "play-writing": writing,
        "offline": "/offline",
        "start-listed": "/",  # by now it lists every chronicle and table this browser opened
    }


def words_kept_and_being_written(client: FlaskClient, app: Flask) -> tuple[str, str]:
    """A seat's page after the host rolled first (its words beside the story), and a reader's
    page while the seat writes the narration (who is writing, and the words so far)."""
    from companion.store import capabilities
    from companion.store.db import connect

    token = create(client)
    post_turn(client, app, token, action="draw", card="2H")
    db = connect(app.config["DATABASE"])
    sid = chronicle(app, token).id
    seat = capabilities.issue(db, sid, "seat", 0)
    reader = capabilities.issue(db, sid, "reader")
    seen = chronicle(app, token).version
    post_turn(client, app, token, action="roll", **roll_fields(True, 4))
    late = {"version": str(seen), "action": "roll", **roll_fields(True, 4), "answer": "Mine."}
    assert client.post(f"/c/{seat}/turn", data=late).status_code == 303
    state = chronicle(app, token).state
    typed = {"field": "narration", "text": "*Still* writing.", "turn": str(state.turn_no)}
    assert client.post(f"/c/{seat}/draft", data=typed).get_json()["saved"] is True
    return f"/c/{seat}/", f"/c/{reader}/"


def axe(page: Page) -> list[dict[str, Any]]:
    """axe-core's violations on the page (evaluated, so the page's strict CSP does not block it)."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(AXE)
    result: list[dict[str, Any]] = page.evaluate(
        """async () => {
          const r = await axe.run(document, {resultTypes: ['violations']});
          return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map(n => n.target.join(' ') + ' :: ' + n.failureSummary.slice(0, 200))}));
        }"""
    )
    return result


def failure_with_every_choice(client: FlaskClient, app: Flask) -> str:
    """A failed roll that may be bought back with a keystone or a token, or accepted."""
    token = create(client)
    post_turn(client, app, token, action="draw", card="2H")
    post_turn(client, app, token, action="roll", **roll_fields(True, 4))
    creed = next(k.id for k in chronicle(app, token).state.keystones if k.kind == "creed")
    post_turn(client, app, token, action="narrate", loss_keystone=creed, loss_narration="Gone.")
    state = chronicle(app, token).state
    post_turn(client, app, token, action="draw", card=state.pile_cards(state.pile)[0])
    post_turn(client, app, token, action="roll", **roll_fields(False, 4))
    state = chronicle(app, token).state
    offered = {legal.kind for legal in legal_commands(state)}
    assert state.step == "failure" and state.usable_tokens() == 1, (state.step, state.tokens)
    assert {"sacrifice-keystone", "spend-token", "accept-failure"} <= offered, offered
    return f"/c/{token}/"
