"""One move, one transaction: a move's events and its draft bookkeeping commit together, and
open pages hear of the move once, never of a version whose drafts the move has not yet left.

Runs on SQLite and (``scripts/test``'s PostgreSQL lane) on the shared store.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from play_helpers import chronicle, create, post_turn, roll
from waiting import HANG, wait_until

from companion.store import drafts, signal
from companion.store.capabilities import resolve
from companion.store.db import connect
from companion.store.events import stream_version

SEAT = "beef01"  # another link's mark: the drafts it typed are handed back to it as kept words
END = "end-of-the-move"  # a signal sent after the move: every signal of the move came before it


def _drawn(client: FlaskClient, app: Flask) -> tuple[str, str, int]:
    """A chronicle at its first check, a card drawn; its host token, stream id and turn, with
    drafts typed by the host and by another link for the texts the roll sends."""
    token = create(client)
    state = chronicle(app, token).state
    assert post_turn(client, app, token, action="draw", card=state.pile_cards(state.pile)[0])
    db = connect(app.config["DATABASE"])
    cap = resolve(db, token)
    assert cap is not None
    turn = chronicle(app, token).state.turn_no
    drafts.save(db, cap.stream_id, turn, "answer", "The seat's answer.", by=f"seat:1 {SEAT}")
    drafts.save(db, cap.stream_id, turn, "stakes_success", "Half typed", by="host")
    return token, cap.stream_id, turn


def _roll(client: FlaskClient, app: Flask, token: str) -> None:
    """The host rolls with its texts: answer, both stakes and the dice."""
    roll(client, app, token, True, "The host's answer.")


def _seen(database: str, stream_id: str, turn: int) -> tuple[int, dict[str, str], list[str]]:
    """What a watcher woken now reads: the version, the turn's drafts and the seat's kept words."""
    db = connect(database)
    rows = drafts.rows_for_turn(db, stream_id, turn)
    kept = sorted(drafts.kept(db, stream_id, SEAT))
    return stream_version(db, stream_id), {d.field: d.text for d in rows}, kept


def _heard(
    database: str, stream_id: str, turn: int, move: Callable[[], None]
) -> list[tuple[int, dict[str, str], list[str]]]:
    """What watchers read each time ``move`` wakes them (a real listener, as a server's)."""
    seen: list[tuple[int, dict[str, str], list[str]]] = []
    ended = threading.Event()

    def wake(stream: str | None) -> None:
        if stream == END:
            ended.set()
        elif stream == stream_id:
            seen.append(_seen(database, stream_id, turn))

    listener = signal.Listener(database, wake).start()
    try:
        assert listener.ready.wait(HANG), "the listener did not start"
        move()
        signal.changed(connect(database), END)  # after the move's own signals, in order
        wait_until(ended.is_set, "the signal sent after the move")
    finally:
        listener.stop()
    return seen


def test_a_roll_with_texts_wakes_watchers_once_with_its_drafts_done(
    app: Flask, client: FlaskClient
) -> None:
    token, stream_id, turn = _drawn(client, app)
    before = chronicle(app, token).version
    seen = _heard(app.config["DATABASE"], stream_id, turn, lambda: _roll(client, app, token))
    after = chronicle(app, token).version
    assert after > before
    assert len(seen) == 1, f"one move, {len(seen)} signals: {seen}"
    version, held, kept = seen[0]
    assert version == after
    assert held == {}, "the drafts the roll sent are gone with it"
    assert kept == ["answer"], "the seat's different answer is handed back to it"


def test_an_undo_wakes_watchers_once_with_its_texts_back_as_drafts(
    app: Flask, client: FlaskClient
) -> None:
    token, stream_id, turn = _drawn(client, app)
    _roll(client, app, token)
    # The decision after the dice writes a text: taking it back gives the text back as a draft.
    if chronicle(app, token).state.step == "mark":
        field, text = "mark_name", "The Drowned Lighthouse"
        assert post_turn(client, app, token, action="mark", mark_name=text).status_code == 302
    else:
        field, text = "narration", "The boat held through the storm."
        assert post_turn(client, app, token, action="narrate", narration=text).status_code == 302
    before = chronicle(app, token).version

    def undo() -> None:
        response = client.post(f"/c/{token}/undo", data={"version": str(before)})
        assert response.status_code == 302

    seen = _heard(app.config["DATABASE"], stream_id, turn, undo)
    after = chronicle(app, token).version
    assert after > before
    assert [(version, held.get(field)) for version, held, _kept in seen] == [(after, text)]


@pytest.mark.sqlite_only
def test_no_watcher_sees_the_new_version_with_the_drafts_it_left_behind(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite sends each signal the moment its write commits: what the store holds then is
    what a watcher woken by it reads, whoever is quicker."""
    token, stream_id, turn = _drawn(client, app)
    database = app.config["DATABASE"]
    seen: list[tuple[int, dict[str, str], list[str]]] = []
    send = signal.send_local

    def observed(path: str, stream: str) -> Any:
        if stream == stream_id:
            seen.append(_seen(database, stream_id, turn))
        return send(path, stream)

    monkeypatch.setattr(signal, "send_local", observed)
    _roll(client, app, token)
    assert seen == [(chronicle(app, token).version, {}, ["answer"])]
