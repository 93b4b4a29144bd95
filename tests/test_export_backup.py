"""The JSON backup: byte-identical round trips, the upgrade from version 1, and every refusal."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlite_utils import Database

from companion.export import backup
from companion.export.backup import export_backup, import_backup, read_backup
from companion.export.errors import BackupError
from companion.legacy import ReviseText, Setup, Undo, iter_texts, placeholder_keystones
from companion.legacy.cards import CARDS
from companion.legacy.simulate import next_command
from companion.store.db import connect, init_db
from companion.streams import chronicles
from companion.streams.demo import create_demo
from companion.text import json_input


@pytest.fixture
def db(tmp_path: Path) -> Database:
    path = tmp_path / "backup.sqlite3"
    init_db(path)
    return connect(path)


def fresh(db: Database, stream_id: str) -> chronicles.Chronicle:
    """The chronicle replayed from the database, not from this process's cache."""
    chronicles.CACHE.clear()
    return chronicles.load(db, stream_id)


def counts(db: Database) -> tuple[int, int, int]:
    return tuple(  # type: ignore[return-value]
        db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        for table in ("streams", "events", "capabilities")
    )


def digital_life(db: Database, seed: int) -> str:
    """A whole digital-mode life (piles shuffled, dice rolled by the app), one command at a time."""
    setup = Setup(
        pioneer="Iori",
        concept="A rival founder.",
        players=("A", "B"),
        oldest=1,
        keystones=placeholder_keystones((2, 1, 1)),
        prompts={card: ("What happens?",) for card in CARDS},
        mode="digital",
    )
    rng = random.Random(seed)
    created = chronicles.create(db, setup, rng)
    chronicle = chronicles.load(db, created.id)
    while not chronicle.state.ended:
        policy = "always" if chronicle.state.version % 3 else "never"
        command = next_command(chronicle.state, policy)
        chronicle = chronicles.execute(db, chronicle, [command], rng)
    return created.id


@pytest.mark.parametrize("language", ["ja", "en"])
def test_export_import_export_is_byte_identical(db: Database, language: str) -> None:
    original = create_demo(db, language).id
    text = export_backup(db, original)
    copy = import_backup(db, text.encode("utf-8"))
    assert copy.id != original
    assert export_backup(db, copy.id) == text
    assert fresh(db, copy.id).state == fresh(db, original).state
    assert fresh(db, copy.id).title == fresh(db, original).title


def test_backup_is_versioned_and_holds_the_whole_log(db: Database) -> None:
    original = create_demo(db, "en").id
    document = json.loads(export_backup(db, original))
    assert document["format"] == "ijinsho-chronicle" and document["format_version"] == 3
    events = document["events"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert document["chronicle"]["version"] == len(events) == fresh(db, original).version
    assert events[0]["event"]["type"] == "chronicle-started"
    assert document["chronicle"]["language"] == "en"
    assert "created" not in json.dumps(document)  # nothing volatile


def test_digital_life_with_shuffle_dice_and_sacrifices_round_trips(db: Database) -> None:
    original = digital_life(db, seed=7)
    text = export_backup(db, original)
    assert '"piles-shuffled"' in text and '"keystone-sacrificed"' in text
    copy = import_backup(db, text.encode("utf-8"))
    assert fresh(db, copy.id).state == fresh(db, original).state
    assert export_backup(db, copy.id) == text


def test_corrections_and_undo_round_trip(db: Database) -> None:
    created = create_demo(db, "en")
    chronicle = fresh(db, created.id)
    answer = chronicle.state.story[0].answer
    assert answer is not None
    revise = ReviseText(0, answer.seq, "answer", "Corrected: the bell was *not* cracked.")
    chronicles.execute(db, chronicle, [revise, Undo(0)])
    text = export_backup(db, created.id)
    assert '"decision-undone"' in text and '"text-revised"' in text
    copy = import_backup(db, text.encode("utf-8"))
    assert fresh(db, copy.id).state == fresh(db, created.id).state


def version_1(text: str) -> dict[str, Any]:
    """The same backup in the older shape: a title and a bare list of events, no metadata."""
    document = json.loads(text)
    return {
        "format": "ijinsho-chronicle",
        "format_version": 1,
        "title": document["chronicle"]["title"],
        "events": [entry["event"] for entry in document["events"]],
    }


def test_version_1_file_is_upgraded_and_imported(db: Database) -> None:
    original = create_demo(db, "ja").id
    text = export_backup(db, original)
    old = json.dumps(version_1(text), ensure_ascii=False).encode("utf-8")
    upgraded = backup.upgrade(backup.parse(old))
    assert upgraded["format_version"] == 3 and "withdrawn" not in upgraded
    assert upgraded["chronicle"]["language"] == "ja"
    copy = import_backup(db, old)
    assert fresh(db, copy.id).state == fresh(db, original).state
    assert export_backup(db, copy.id) == text


Mutation = Callable[[dict[str, Any]], Any]


def set_path(path: str, value: Any) -> Mutation:
    def mutate(document: dict[str, Any]) -> dict[str, Any]:
        target: Any = document
        *parents, last = path.split(".")
        for key in parents:
            target = target[int(key) if key.isdigit() else key]
        target[int(last) if last.isdigit() else last] = value
        return document

    return mutate


def first_event(kind: str, document: dict[str, Any]) -> dict[str, Any]:
    return next(e["event"] for e in document["events"] if e["event"]["type"] == kind)


def with_event(kind: str, change: Callable[[dict[str, Any]], None]) -> Mutation:
    def mutate(document: dict[str, Any]) -> dict[str, Any]:
        change(first_event(kind, document))
        return document

    return mutate


def drop_event(index: int) -> Mutation:
    def mutate(document: dict[str, Any]) -> dict[str, Any]:
        del document["events"][index]
        return document

    return mutate


def too_many(document: dict[str, Any]) -> dict[str, Any]:
    filler = document["events"][-1]
    document["events"] += [dict(filler) for _ in range(backup.MAX_EVENTS)]
    return document


def restart(document: dict[str, Any]) -> dict[str, Any]:
    document["events"][1]["event"] = document["events"][0]["event"]
    return document


def sacrifice_a_creed_first(event: dict[str, Any]) -> None:
    event["keystone"] = "c1"


BAD_DOCUMENTS: list[tuple[str, Mutation, str, str]] = [
    ("foreign", lambda d: {"format": "tabletop-sim", "events": []}, "foreign", "'tabletop-sim'"),
    ("array", lambda d: [1, 2, 3], "foreign", "not an object"),
    ("newer", set_path("format_version", 99), "bad-version", "99"),
    ("version-text", set_path("format_version", "2"), "bad-version", "'2'"),
    ("events-text", set_path("events", "all of them"), "bad-field", "events"),
    ("seq-text", set_path("events.3.seq", "4"), "bad-field", "events[3].seq"),
    ("meta-type", set_path("chronicle.version", "181"), "bad-field", "chronicle.version"),
    ("unknown-field", set_path("extra", 1), "unknown-field", "'extra'"),
    ("huge-title", set_path("chronicle.title", "x" * 5000), "too-long", "5000"),
    ("no-events", set_path("events", []), "no-events", "no events"),
    ("too-many", too_many, "too-many-events", f"at most {backup.MAX_EVENTS} "),
    ("broken-sequence", drop_event(5), "broken-sequence", "Event number 6 has seq 7"),
    (
        "unknown-event",
        with_event("dice-rolled", lambda e: e.update(type="dice-loaded")),
        "bad-event",
        "unknown event type 'dice-loaded'",
    ),
    (
        "wrong-type-in-event",
        with_event("dice-rolled", lambda e: e.update(faces="six")),
        "bad-event",
        "faces",
    ),
    (
        "huge-string",
        with_event("prompt-answered", lambda e: e.update(answer="鐘" * 30_000)),
        "refused",
        "30000 characters",
    ),
    (
        "invalid-setup",
        with_event("chronicle-started", lambda e: e["setup"].update(players=[])),
        "bad-setup",
        "1 to 8 players",
    ),
    (
        "card-not-in-pile",
        with_event("card-drawn", lambda e: e.update(card="KS")),
        "refused",
        "KS is not among the cards",
    ),
    (
        "sacrifice-order",
        with_event("keystone-sacrificed", sacrifice_a_creed_first),
        "refused",
        "Resources must all be gone",
    ),
    ("wrong-count", set_path("chronicle.version", 12), "bad-meta", "12 events"),
    ("wrong-language", set_path("chronicle.language", "fr"), "bad-meta", "'fr'"),
    ("second-start", restart, "misplaced", "Event 2 (chronicle-started)"),
]


@pytest.mark.parametrize(
    ("mutate", "code", "fragment"),
    [case[1:] for case in BAD_DOCUMENTS],
    ids=[case[0] for case in BAD_DOCUMENTS],
)
def test_bad_backup_is_refused_with_its_reason_and_nothing_written(
    db: Database, mutate: Mutation, code: str, fragment: str
) -> None:
    original = create_demo(db, "en").id
    document = mutate(json.loads(export_backup(db, original)))
    data = json.dumps(document, ensure_ascii=False).encode("utf-8")
    before = counts(db)
    with pytest.raises(BackupError) as refused:
        import_backup(db, data)
    assert refused.value.code == code
    assert fragment in str(refused.value)
    assert counts(db) == before


BAD_BYTES = [
    ("not-utf8", b'{"format": "ijinsho-chronicle", "title": "\xff\xfe"}', "not-utf8", "not UTF-8"),
    ("not-json", b"Dear diary, today the bell rang.", "not-json", "line 1, column 1"),
    ("nan", b'{"format": "ijinsho-chronicle", "format_version": NaN}', "not-json", "JSON"),
    ("deep", b"[" * 100_000 + b"]" * 100_000, "not-json", "JSON"),
]


@pytest.mark.parametrize(
    ("data", "code", "fragment"), [case[1:] for case in BAD_BYTES], ids=[c[0] for c in BAD_BYTES]
)
def test_unreadable_file_is_refused(db: Database, data: bytes, code: str, fragment: str) -> None:
    before = counts(db)
    with pytest.raises(BackupError) as refused:
        import_backup(db, data)
    assert refused.value.code == code and fragment in str(refused.value)
    assert counts(db) == before


def test_truncated_file_is_refused(db: Database) -> None:
    text = export_backup(db, create_demo(db, "ja").id).encode("utf-8")
    before = counts(db)
    for cut in (len(text) // 2, len(text) - 3):
        with pytest.raises(BackupError) as refused:
            import_backup(db, text[:cut])
        assert refused.value.code in ("not-json", "not-utf8")
    assert counts(db) == before


def test_too_large_file_is_refused_before_parsing(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(backup, "import_limits", lambda: (1000, backup.MAX_EVENTS))
    with pytest.raises(BackupError, match="at most 1000"):
        read_backup(b" " * 1001)


def _exact_values(document: Any) -> int:
    if isinstance(document, dict):
        return 1 + sum(1 + _exact_values(value) for value in document.values())
    if isinstance(document, list):
        return 1 + sum(_exact_values(value) for value in document)
    return 1


@pytest.mark.parametrize(
    "document",
    [
        {"x": [{}] * 300},
        {"x": [[]] * 300, "y": "a,b:c[d{e" * 40},
        ["a"] * 300,
        ['"', 'q"uo\\"te', "\\", ",:,:[{"] * 80,
        {
            "events": [
                {"seq": n, "event": {"type": "t", "text": ",,::[[{{" * 30}} for n in range(40)
            ]
        },
    ],
)
def test_values_are_counted_before_parsing_as_the_parser_would(document: Any) -> None:
    data = json.dumps(document).encode()
    exact = _exact_values(document)
    assert json_input.values_over(data, exact - 1)
    assert not json_input.values_over(data, exact + 301)  # an empty object or list counts one more


def test_millions_of_empty_objects_are_refused_before_parsing(db: Database) -> None:
    data = b'{"x":[' + b"{}," * 3_000_000 + b"{}]}"  # under the import's size, not a backup
    assert len(data) < backup.import_limits()[0]
    with pytest.raises(BackupError) as refused:
        import_backup(db, data)
    assert refused.value.code == "too-many-values"
    texts = b"[" + b'"",' * 3_000_000 + b'""]'
    with pytest.raises(BackupError) as refused:
        import_backup(db, texts)
    assert refused.value.code == "too-many-values"


def test_a_long_life_full_of_punctuation_is_counted_exactly(db: Database) -> None:
    original = digital_life(db, seed=5)
    chronicle = chronicles.load(db, original)
    texts = [t for t in iter_texts(chronicle.state)][:3]
    marks = ",:[{" * 5_000  # 20,000 characters, every one a mark JSON also writes
    batch = [ReviseText(0, t.seq, t.field, marks) for t in texts for _ in range(20)]
    chronicles.execute(db, chronicle, batch)
    data = export_backup(db, original).encode()
    assert 1 + json_input.structure_marks(data) > 1_000_000  # past any cheap count
    assert chronicles.load(db, import_backup(db, data).id).version == chronicle.version + 60


def test_digital_card_other_than_the_top_of_the_pile_is_refused(db: Database) -> None:
    original = digital_life(db, seed=3)
    document = json.loads(export_backup(db, original))
    drawn = first_event("card-drawn", document)
    shuffled = first_event("piles-shuffled", document)["piles"]["hearts-low"]
    assert drawn["card"] == shuffled[0]
    drawn["card"] = shuffled[1]
    with pytest.raises(BackupError) as refused:
        read_backup(json.dumps(document).encode("utf-8"))
    assert refused.value.code == "mismatch" and "card-drawn" in str(refused.value)


def test_digital_dice_that_no_die_shows_are_refused(db: Database) -> None:
    document = json.loads(export_backup(db, digital_life(db, seed=5)))
    first_event("dice-rolled", document)["faces"][0] = 7
    with pytest.raises(BackupError) as refused:
        read_backup(json.dumps(document).encode("utf-8"))
    assert refused.value.code == "mismatch" and "dice-rolled" in str(refused.value)


def test_a_shuffle_in_table_mode_is_refused(db: Database) -> None:
    table = json.loads(export_backup(db, create_demo(db, "en").id))
    digital = json.loads(export_backup(db, digital_life(db, seed=1)))
    shuffle = {"seq": 2, "event": first_event("piles-shuffled", digital)}
    table["events"] = [table["events"][0], shuffle] + [
        {**entry, "seq": entry["seq"] + 1} for entry in table["events"][1:]
    ]
    table["chronicle"]["version"] += 1
    with pytest.raises(BackupError) as refused:
        read_backup(json.dumps(table, ensure_ascii=False).encode("utf-8"))
    assert refused.value.code == "misplaced" and "piles-shuffled" in str(refused.value)


def test_a_slow_log_is_given_up(db: Database) -> None:
    from companion.export import verify

    document = json.loads(export_backup(db, create_demo(db, "en").id))
    events = [backup.event_from_dict(e["event"]) for e in document["events"]]
    with pytest.raises(BackupError) as refused:
        verify.verified_state(events, seconds=-1.0)
    assert refused.value.code == "too-slow"


def test_rules_refusal_keeps_the_rule_error_for_translation(db: Database) -> None:
    document = json.loads(export_backup(db, create_demo(db, "en").id))
    first_event("card-drawn", document)["card"] = "QS"
    with pytest.raises(BackupError) as refused:
        read_backup(json.dumps(document, ensure_ascii=False).encode("utf-8"))
    assert refused.value.cause is not None and refused.value.cause.code == "card-not-in-pile"


def test_cli_exports_and_imports_a_backup(app: Flask, tmp_path: Path) -> None:
    db = connect(app.config["DATABASE"])
    original = create_demo(db, "ja").id
    runner = app.test_cli_runner()
    path = tmp_path / "life.json"
    result = runner.invoke(args=["export", original, "--format", "json", "-o", str(path)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(args=["import", str(path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    new_id = lines[0].removeprefix("chronicle ")
    assert lines[1].startswith("host link: http") and "/c/" in lines[1]
    assert export_backup(db, new_id) == path.read_text(encoding="utf-8")


def test_cli_import_of_a_bad_file_says_why(app: Flask, tmp_path: Path) -> None:
    path = tmp_path / "notes.json"
    path.write_text('{"format": "spreadsheet"}', encoding="utf-8")
    result = app.test_cli_runner().invoke(args=["import", str(path)])
    assert result.exit_code != 0
    assert "'spreadsheet', not an Ijinshō chronicle" in result.output
    db = connect(app.config["DATABASE"])
    assert db.execute("SELECT count(*) FROM streams").fetchone()[0] == 0


def test_cli_export_of_an_unknown_chronicle_fails(app: Flask) -> None:
    result = app.test_cli_runner().invoke(args=["export", "nope", "--format", "md"])
    assert result.exit_code != 0 and "no chronicle 'nope'" in result.output
