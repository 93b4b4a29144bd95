"""Drafts and kept words under attack, against `companion serve`: a link writes only what any
text may hold, within its chronicle's byte budget, at a typist's pace, and only on its turn.

- One seat link stored 20 texts of 4,000,000 characters as its kept words (a correction sent
  from a stale page keeps its words), and every page of the chronicle read them ever after.
- Drafts had no pace: 150 of 19,000 characters back to back were all taken.
- A seat whose turn it was not overwrote the acting player's draft.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_client import Browser, Server

from attacks.live_table import Table, Typist, narrating
from attacks.probe import answered
from companion.base.limits import TEXT_LIMIT
from companion.legacy import iter_texts
from companion.store.db import connect
from companion.streams import chronicles

KEPT = 4
ROOM = 100_000  # bytes the chronicle may take beyond its events
HUGE = "x" * 3_500_000  # under the 4 MB a request may take


@pytest.fixture(scope="module")
def budgeted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Table]]:
    """A chronicle waiting for its narration, on a server whose chronicles may take ROOM bytes
    past that chronicle's events, and whose links keep KEPT texts each."""
    folder = tmp_path_factory.mktemp("drafts")
    first = Server(folder / "drafts.sqlite3").start()
    try:
        table = narrating(first)
    finally:
        first.stop()
    db = connect(first.database)
    try:
        nbytes = chronicles.load(db, table.id).nbytes
    finally:
        db.conn.close()
    env = {
        "COMPANION_CHRONICLE_MAX_BYTES": str(nbytes + ROOM),
        "COMPANION_KEPT_PER_LINK": str(KEPT),
    }
    server = Server(first.database, env=env).start()
    try:
        yield server, table
    finally:
        server.stop()


def _drafts(server: Server, stream_id: str) -> list[tuple[str, int]]:
    with sqlite3.connect(server.database, timeout=10) as conn:
        rows = conn.execute(
            "SELECT key, length(text) FROM drafts WHERE stream_id = ?", [stream_id]
        ).fetchall()
    return [(str(key), int(length)) for key, length in rows]


def _budget(server: Server, stream_id: str) -> int:
    """What the chronicle may take: its events, and ROOM beside them."""
    db = connect(server.database)
    try:
        return chronicles.load(db, stream_id).nbytes + ROOM
    finally:
        db.conn.close()


def _held_bytes(server: Server, stream_id: str) -> int:
    with sqlite3.connect(server.database, timeout=10) as conn:
        (events,) = conn.execute("SELECT nbytes FROM streams WHERE id = ?", [stream_id]).fetchone()
        (drafts,) = conn.execute(
            "SELECT COALESCE(SUM(length(CAST(text AS BLOB))), 0) FROM drafts WHERE stream_id = ?",
            [stream_id],
        ).fetchone()
    return int(events) + int(drafts)


def test_kept_words_hold_what_a_text_may_within_the_budget(
    budgeted: tuple[Server, Table],
) -> None:
    server, table = budgeted
    seat = table.seats[table.acting]
    browser = Browser(server.url)
    db = connect(server.database)
    try:
        texts = list(iter_texts(chronicles.load(db, table.id).state))
    finally:
        db.conn.close()
    assert len(texts) >= 3
    probe = f"/c/{table.reader}/version"  # another link's page's poll: it reads the drafts
    sent = 0
    for text in texts * 2:  # corrections sent from a stale page: their words are kept
        form = {"target_seq": str(text.seq), "field": text.field, "text": HUGE, "version": "0"}
        answer = browser.post_form(f"/c/{seat}/revise", form, token_page=f"/c/{seat}/story")
        assert answer.status_code in (302, 303), answer.status_code
        sent += 1
        answered(server.port, probe)  # another link's page, within a second
    turn = {name: "y" * 100_000 for name in ("narration", "why", "outcome", "loss_narration")}
    answer = browser.post_form(f"/c/{seat}/turn", {**turn, "version": "0"}, f"/c/{seat}/")
    assert answer.status_code in (302, 303)
    answered(server.port, probe)
    kept = [(key, length) for key, length in _drafts(server, table.id) if key.startswith("kept:")]
    assert kept and all(length <= TEXT_LIMIT for _key, length in kept), kept
    assert len(kept) <= KEPT, kept
    assert _held_bytes(server, table.id) <= _budget(server, table.id)


def test_a_draft_past_the_budget_is_refused_and_said(budgeted: tuple[Server, Table]) -> None:
    server, table = budgeted
    typist = Typist(server, table.seats[table.acting])
    answers = [typist.save(field, "灯" * TEXT_LIMIT) for field in ("narration", "loss_narration")]
    answers += [typist.save("why", "灯" * TEXT_LIMIT), typist.save("outcome", "灯" * TEXT_LIMIT)]
    statuses = [answer.status_code for answer in answers]
    assert 400 in statuses, statuses
    refused = next(answer for answer in answers if answer.status_code == 400)
    assert refused.json()["code"] == "chronicle-full"
    assert _held_bytes(server, table.id) <= _budget(server, table.id)
    answered(server.port, f"/c/{table.reader}/version")


@pytest.fixture
def paced(tmp_path: Path) -> Iterator[Server]:
    env = {"COMPANION_RATELIMIT_ENABLED": "true", "COMPANION_RATELIMIT_DRAFTS": "3 per minute"}
    server = Server(tmp_path / "paced.sqlite3", env=env).start()
    try:
        yield server
    finally:
        server.stop()


def test_drafts_come_at_a_typists_pace(paced: Server) -> None:
    """Each worker counts its own: at most twice the pace is taken, whichever worker answers."""
    table = narrating(paced)
    typist = Typist(paced, table.seats[table.acting])
    answers = [typist.save("narration", f"{n} " + "w" * 19_000) for n in range(12)]
    statuses = [answer.status_code for answer in answers]
    assert set(statuses) <= {200, 429}, statuses
    assert statuses.count(200) <= 2 * 3, statuses
    refused = [answer for answer in answers if answer.status_code == 429]
    assert refused and all(int(a.headers["Retry-After"]) > 0 for a in refused)
    assert refused[0].json()["code"] == "drafts-too-fast"
    answered(paced.port)
    host = Typist(paced, table.host)  # another link types at its own pace
    assert host.save("narration", "The host's words.").status_code == 200


def test_a_seat_whose_turn_it_is_not_cannot_overwrite_the_draft(served: Server) -> None:
    table = narrating(served)
    acting = Typist(served, table.seats[table.acting])
    assert acting.save("narration", "The words of the player.").status_code == 200
    other = Typist(served, table.seats[(table.acting + 1) % len(table.seats)])
    refused = other.save("narration", "Words of another seat.")
    assert refused.status_code == 403 and refused.json()["code"] == "not-your-turn"
    page = Browser(served.url).get(f"/c/{table.seats[table.acting]}/").text
    assert "The words of the player." in page and "Words of another seat." not in page
    answered(served.port)
