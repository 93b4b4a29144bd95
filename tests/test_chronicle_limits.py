"""A chronicle's limits: past its events or bytes it takes nothing more, a text takes only so many
corrections, and a chronicle at its limits always has a backup the import takes."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import make_app
from flask import Flask

from companion.export.backup import export_backup, import_backup, import_limits
from companion.legacy import ReviseText, iter_texts
from companion.legacy.setup import Keystone, Setup
from companion.legacy.simulate import next_command
from companion.packs.registry import get_pack
from companion.store import events as store
from companion.store.db import connect
from companion.streams import chronicle_limits, chronicles

LONG_JA = "灯" * 20_000
LONG_EN = "w" * 20_000


def _setup(players: int = 3, language: str = "ja") -> Setup:
    keystones = tuple(
        Keystone(f"{kind[0]}{n}", kind, f"{kind}「{n}」" * 5, "大切なもの。" * 20)
        for kind in ("resource", "attachment", "creed")
        for n in range(1, 7)
    )
    return Setup(
        pioneer="カヤ・レン" * 10,
        concept="溺れた海岸の地図を描く人。" * 20,
        players=tuple(f"プレイヤー{n}" for n in range(players)),
        oldest=0,
        keystones=keystones,
        prompts=dict(get_pack("standard", language).prompts),
        language=language,
    )


def _life(db: Any, seed: int, players: int = 3, policy: str = "always") -> chronicles.Chronicle:
    created = chronicles.create(db, _setup(players), random.Random(seed))
    chronicle = chronicles.load(db, created.id)
    rng = random.Random(seed)
    while not chronicle.state.ended:
        chronicle = chronicles.execute(db, chronicle, [next_command(chronicle.state, policy)], rng)
    return chronicle


def _correct(db: Any, chronicle: chronicles.Chronicle, value: str, n: int) -> chronicles.Chronicle:
    texts = list(iter_texts(chronicle.state))
    batch = [ReviseText(0, t.seq, t.field, f"{value}{n}") for t in texts[n % len(texts) :][:3]]
    return chronicles.execute(db, chronicle, batch, random.Random(n))


def _rolls_taken_back(db: Any, cycles: int) -> chronicles.Chronicle:
    """A life whose every roll is taken back and rolled again: the backup lists each."""
    from dataclasses import replace

    from companion.legacy import RollDice, Undo

    created = chronicles.create(db, replace(_setup(), forgiving_undo=True), random.Random(7))
    chronicle = chronicles.load(db, created.id)
    rng = random.Random(7)
    while chronicle.state.step != "roll":
        chronicle = chronicles.execute(db, chronicle, [next_command(chronicle.state, "never")], rng)
    seat = chronicle.state.seat
    for _ in range(cycles):
        chronicle = chronicles.execute(db, chronicle, [RollDice(seat), Undo(seat)], rng)
    return chronicle


def _overheads(db: Any, chronicle: chronicles.Chronicle) -> tuple[int, float]:
    """What the backup adds to the stored JSON: once (the header, the setup and the piles),
    and per later event (its wrapper and indentation, a withdrawn roll's entry)."""
    from companion.export.backup import backup_document, dump

    stored = store.load_events(db, chronicle.id)
    header = store.get_stream(db, chronicle.id)
    start = len(dump(backup_document(header, stored[:2], None)).encode("utf-8"))
    start_bytes = sum(len(store._data(e.data)[0].encode("utf-8")) for e in stored[:2])
    whole = len(export_backup(db, chronicle.id).encode("utf-8"))
    later = (whole - start) - (chronicle.nbytes - start_bytes)
    return start - start_bytes, later / (len(stored) - 2)


def _values(item: Any) -> int:
    """The keys and values of a JSON document, itself included."""
    if isinstance(item, dict):
        return 1 + sum(1 + _values(value) for value in item.values())
    if isinstance(item, list):
        return 1 + sum(_values(value) for value in item)
    return 1


def test_a_backup_holds_no_more_values_than_the_import_counts_on(tmp_path: Path) -> None:
    """Pinned on a pack of four prompts a card, rolls taken back, every kind of life: an
    import counts a file's keys and values before parsing it, against these figures."""
    from dataclasses import replace

    db = connect(make_app(tmp_path).config["DATABASE"])
    four = {card: (f"{card}?",) * 4 for card in _setup().prompts}
    full = chronicles.create(db, replace(_setup(8), prompts=four), random.Random(3))
    lives = [chronicles.load(db, full.id), _rolls_taken_back(db, 150)]
    lives += [_life(db, seed, players=2 + seed % 7, policy="never") for seed in range(3)]
    for chronicle in lives:
        document = json.loads(export_backup(db, chronicle.id))
        events = document["events"]
        withdrawn = {roll["seq"]: roll for roll in document["withdrawn"]}
        each = []
        for entry in events[2:]:
            taken_back = withdrawn.get(entry["seq"])
            each.append(_values(entry) + 1 + (_values(taken_back) + 1 if taken_back else 0))
        assert max(each, default=0) <= chronicle_limits.BACKUP_VALUES_PER_EVENT
        # the header, the set-up and the piles
        assert _values(document) - sum(each) <= chronicle_limits.BACKUP_VALUES_FIXED
        limits = chronicle_limits.Limits(chronicle.version, chronicle.nbytes)
        assert _values(document) <= chronicle_limits.backup_values(limits)


def test_a_backup_adds_no_more_than_the_import_limits_allow_for(tmp_path: Path) -> None:
    """Pinned on chronicles of every shape: short events (dice, draws), long texts in both
    scripts, rolls taken back, many players and keystones, many corrections."""
    db = connect(make_app(tmp_path).config["DATABASE"])
    lives = [_rolls_taken_back(db, 150)]
    for seed in range(6):
        chronicle = _life(db, seed, players=2 + seed % 7, policy="always" if seed % 2 else "never")
        for n in range(seed * 6):
            chronicle = _correct(db, chronicle, LONG_JA[: 50 * n] if n % 2 else "短い。", n)
        lives.append(chronicle)
    for chronicle in lives:
        once, per_event = _overheads(db, chronicle)
        assert once <= chronicle_limits.BACKUP_FIXED
        assert per_event <= chronicle_limits.BACKUP_PER_EVENT
        limits = chronicle_limits.Limits(chronicle.version, chronicle.nbytes)
        size = len(export_backup(db, chronicle.id).encode("utf-8"))
        assert size <= chronicle_limits.backup_bytes(limits)
    assert chronicles.load(db, lives[0].id).state.undone  # the rolls were taken back


@pytest.fixture
def small(tmp_path: Path) -> Flask:
    """An app whose chronicles may hold 300 events and 1 MiB, a text 3 corrections."""
    return make_app(
        tmp_path,
        CHRONICLE_MAX_EVENTS=300,
        CHRONICLE_MAX_BYTES=1024 * 1024,
        CORRECTIONS_PER_TEXT=3,
        CORRECTIONS_PER_MINUTE=1000,
    )


def _fill(db: Any, chronicle: chronicles.Chronicle, value: str) -> tuple[Any, Any]:
    """Correct until the chronicle refuses: the last chronicle it took, and the refusal."""
    for n in range(400):
        texts = [t for t in iter_texts(chronicle.state) if len(t.revisions) < 3]
        command = ReviseText(0, texts[n % len(texts)].seq, texts[n % len(texts)].field, value)
        try:
            chronicle = chronicles.execute(db, chronicle, [command], random.Random(n))
        except chronicle_limits.LimitError as err:
            return chronicle, err
    raise AssertionError("the chronicle never filled")


@pytest.mark.parametrize("value", ["Short.", LONG_JA, LONG_EN])
def test_a_full_chronicle_takes_nothing_more_and_its_backup_imports(
    small: Flask, value: str
) -> None:
    db = connect(small.config["DATABASE"])
    with small.app_context():
        chronicle, refused = _fill(db, _life(db, 1), value)
        assert refused.code == "chronicle-full"
        header = store.get_stream(db, chronicle.id)
        assert (header.version, header.nbytes) == (chronicle.version, chronicle.nbytes)
        assert header.version <= 300 and header.nbytes <= 1024 * 1024
        data = export_backup(db, chronicle.id).encode("utf-8")
        assert len(data) <= import_limits()[0]
        copy = import_backup(db, data)
    assert chronicles.load(db, copy.id).state == chronicle.state


def test_a_text_takes_so_many_corrections(small: Flask) -> None:
    db = connect(small.config["DATABASE"])
    with small.app_context():
        chronicle = _life(db, 2)
        text = next(iter_texts(chronicle.state))
        for n in range(3):
            chronicle = chronicles.execute(
                db, chronicle, [ReviseText(0, text.seq, text.field, f"Fix {n}.")]
            )
        with pytest.raises(chronicle_limits.LimitError) as refused:
            chronicles.execute(db, chronicle, [ReviseText(0, text.seq, text.field, "Again.")])
        assert refused.value.code == "text-corrected-enough"
        assert store.get_stream(db, chronicle.id).version == chronicle.version
        two = [
            ReviseText(0, t.seq, t.field, "Both.")
            for t in list(iter_texts(chronicle.state))[1:2] * 4
        ]
        with pytest.raises(chronicle_limits.LimitError):  # four of one text in one batch
            chronicles.execute(db, chronicle, two)


def test_a_chronicle_takes_so_many_corrections_a_minute(tmp_path: Path) -> None:
    app = make_app(tmp_path, CORRECTIONS_PER_MINUTE=5)
    db = connect(app.config["DATABASE"])
    with app.app_context():
        chronicle = _life(db, 3)
        texts = list(iter_texts(chronicle.state))
        for n in range(5):
            fix = ReviseText(0, texts[n].seq, texts[n].field, f"Fix {n}.")
            chronicle = chronicles.execute(db, chronicle, [fix])
        with pytest.raises(chronicle_limits.LimitError) as refused:
            chronicles.execute(db, chronicle, [ReviseText(0, texts[6].seq, texts[6].field, "x")])
        assert refused.value.code == "corrections-too-fast"
        # A minute later the window has passed: corrections are taken again.
        db.execute(
            "UPDATE events SET created = '2000-01-01T00:00:00.000+00:00' WHERE stream_id = ?",
            [chronicle.id],
        )
        chronicles.execute(db, chronicle, [ReviseText(0, texts[6].seq, texts[6].field, "x")])


def test_an_import_over_a_chronicles_limits_is_refused_and_writes_nothing(
    tmp_path: Path, small: Flask
) -> None:
    big = make_app(tmp_path / "big", CORRECTIONS_PER_MINUTE=1000, CORRECTIONS_PER_TEXT=1000)
    db = connect(big.config["DATABASE"])
    with big.app_context():
        chronicle = _life(db, 4)
        for n in range(30):
            chronicle = _correct(db, chronicle, LONG_JA[:-5], n)
        data = export_backup(db, chronicle.id).encode("utf-8")
    target = connect(small.config["DATABASE"])
    with small.app_context():
        before = target.execute("SELECT count(*) FROM streams").fetchone()[0]
        from companion.export.errors import BackupError

        with pytest.raises(BackupError) as refused:
            import_backup(target, data)
        assert refused.value.code in ("too-large", "too-many-events")
        assert target.execute("SELECT count(*) FROM streams").fetchone()[0] == before


def test_tools_outside_the_app_are_held_to_the_sizes_only() -> None:
    limits = chronicle_limits.from_settings()
    assert limits.corrections_per_text is None and limits.corrections_per_minute is None
    assert limits.events == chronicle_limits.DEFAULTS["CHRONICLE_MAX_EVENTS"]
