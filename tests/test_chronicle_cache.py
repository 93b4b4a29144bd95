"""A chronicle's state always matches the version it is labelled with, even while others append."""

from __future__ import annotations

import random
from pathlib import Path

from companion.legacy import Setup
from companion.legacy.commands import DrawCard
from companion.legacy.setup import placeholder_keystones
from companion.packs.registry import get_pack
from companion.store import events as store
from companion.store.db import connect, init_db
from companion.streams import chronicles


def make_setup() -> Setup:
    return Setup(
        pioneer="Kaya",
        concept="",
        players=("Ali", "Brianna"),
        oldest=0,
        keystones=placeholder_keystones(),
        prompts=dict(get_pack("standard", "en").prompts),
    )


def test_a_load_racing_an_append_never_runs_ahead_of_its_version(
    tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "race.sqlite3"
    init_db(path)
    db = connect(path)
    created = chronicles.create(db, make_setup(), random.Random(1))
    chronicles.CACHE.clear()
    header_version = store.get_stream(db, created.id).version
    real_get_stream = store.get_stream

    def header_then_someone_appends(conn, sid):  # type: ignore[no-untyped-def]
        header = real_get_stream(conn, sid)
        monkeypatch.setattr(store, "get_stream", real_get_stream)
        other = connect(path)
        first = chronicles.load(other, sid)
        chronicles.execute(other, first, [DrawCard(0)])  # appended after our header was read
        chronicles.CACHE.clear()
        return header

    monkeypatch.setattr(store, "get_stream", header_then_someone_appends)
    loaded = chronicles.load(db, created.id)
    assert loaded.version == header_version
    assert loaded.state.version == header_version
    assert loaded.state.check is None  # the draw that came later is not in this state
