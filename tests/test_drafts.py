"""Drafts: the words typed for a turn, kept on the server as they are typed."""

from __future__ import annotations

from flask import Flask


def test_the_same_words_saved_again_change_nothing_an_open_page_watches(app: Flask) -> None:
    """A page puts its typed words back after a live refresh and saves them again: the drafts'
    signature (in every version answer) stays, so that refresh does not set off another."""
    from companion.store import drafts
    from companion.store.db import connect
    from companion.store.events import create_stream

    db = connect(app.config["DATABASE"])
    stream = create_stream(db, "chronicle", [{"type": "created"}], "t")
    drafts.save(db, stream, 1, "answer", "嵐の夜に", by="seat:1")
    before = drafts.signature(db, stream)
    drafts.save(db, stream, 1, "answer", "嵐の夜に", by="seat:1")
    assert drafts.signature(db, stream) == before
    drafts.save(db, stream, 1, "answer", "嵐の夜に小舟を", by="seat:1")
    assert drafts.signature(db, stream) != before
