"""Uploaded packs live in the database: every app on one store sees them, old files come in once."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from conftest import make_app
from flask import Flask
from pg_server import fresh_database
from play_helpers import chronicle, create, post_turn
from test_packs_web import custom_pack_text, installed_name, upload

from companion.packs import stored
from companion.packs.registry import get_pack, list_packs, pack_to_text
from companion.store.db import connect


def two_apps(tmp_path: Path, **config: object) -> tuple[Flask, Flask]:
    """Two apps on one store, each with a packs folder of its own (two servers)."""
    database = fresh_database(tmp_path / "shared.sqlite3")
    return (
        make_app(tmp_path / "a", DATABASE=database, **config),
        make_app(tmp_path / "b", DATABASE=database, **config),
    )


def stored_rows(app: Flask) -> list[tuple[str, str, str | None, int, int]]:
    db = connect(app.config["DATABASE"])
    try:
        rows = db.execute(
            "SELECT name, language, owner, size, version FROM packs ORDER BY name, language"
        )
        return [tuple(row) for row in rows]  # type: ignore[misc]
    finally:
        db.conn.close()


def test_a_pack_uploaded_through_one_app_is_listed_and_played_through_the_other(
    tmp_path: Path,
) -> None:
    a, b = two_apps(tmp_path)
    name = installed_name(upload(a.test_client(), custom_pack_text()))
    other = b.test_client()
    assert name in other.get("/packs/").get_data(as_text=True)
    assert "HARBOUR" in other.get(f"/packs/{name}/en").get_data(as_text=True)
    assert f'value="{name}"' in other.get("/new").get_data(as_text=True)
    token = create(other, pack=name)
    post_turn(other, b, token, action="draw", card="AH")
    assert "HARBOUR" in other.get(f"/c/{token}/").get_data(as_text=True)
    assert chronicle(b, token).state.setup.pack_name == name
    assert not list(Path(a.config["PACKS_DIR"]).glob("*.md")), "the upload went to a file"


def test_the_row_records_owner_size_and_version(tmp_path: Path) -> None:
    a, _b = two_apps(tmp_path)
    client = a.test_client()
    name = installed_name(upload(client, custom_pack_text()))
    assert installed_name(upload(client, custom_pack_text(marker="FIXED"))) == name
    [(row_name, language, owner, size, version)] = stored_rows(a)
    with client.session_transaction() as session:
        assert (row_name, language, owner, version) == (name, "en", session["browser"], 2)
    text = pack_to_text(get_pack(name, "en", connect(a.config["DATABASE"])))
    assert "FIXED" in text and size == len(text.encode("utf-8"))


def test_the_limits_hold_across_apps_uploading_at_once(tmp_path: Path) -> None:
    apps = two_apps(tmp_path, PACKS_MAX=3, PACKS_PER_CLIENT=10)
    answers: list[int] = []

    def send(app: Flask, n: int) -> None:
        answers.append(upload(app.test_client(), custom_pack_text(name=f"p{n}")).status_code)

    threads = [threading.Thread(target=send, args=(apps[n % 2], n)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == [302] * 3 + [400] * 5
    assert len(stored_rows(apps[0])) == 3


def _old_file(folder: Path, name: str, marker: str = "OLD") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.en.md"
    path.write_text(custom_pack_text(name=name, marker=marker), encoding="utf-8")
    return path


def test_pack_files_of_an_older_version_are_imported_once(tmp_path: Path) -> None:
    a, b = two_apps(tmp_path)
    kept = _old_file(Path(a.config["PACKS_DIR"]), "kept")
    (Path(a.config["PACKS_DIR"]) / "broken.en.md").write_text("not a pack", encoding="utf-8")
    (Path(a.config["PACKS_DIR"]) / "standard.en.md").write_text(
        custom_pack_text(name="standard", marker="SHADOW"), encoding="utf-8"
    )
    assert "OLD" in a.test_client().get("/packs/kept/en").get_data(as_text=True)
    assert "OLD" in b.test_client().get("/packs/kept/en").get_data(as_text=True)
    assert [row[:3] for row in stored_rows(a)] == [("kept", "en", None)]
    kept.write_text(custom_pack_text(name="kept", marker="EDITED"), encoding="utf-8")
    again = make_app(tmp_path / "a", DATABASE=a.config["DATABASE"])
    page = again.test_client().get("/packs/kept/en").get_data(as_text=True)
    assert "OLD" in page and "EDITED" not in page
    assert "SHADOW" not in b.test_client().get("/packs/standard/en").get_data(as_text=True)


def test_the_command_line_installs_into_the_database(tmp_path: Path) -> None:
    a, b = two_apps(tmp_path)
    file = _old_file(tmp_path / "incoming", "cli-pack", marker="CLI")
    result = a.test_cli_runner().invoke(args=["packs", "install", str(file)])
    assert result.exit_code == 0, result.output
    assert "in the database" in result.output
    listed = b.test_cli_runner().invoke(args=["packs", "list"])
    assert "cli-pack (en)" in listed.output
    assert "CLI" in b.test_client().get("/packs/cli-pack/en").get_data(as_text=True)
    assert [row[:3] for row in stored_rows(a)] == [("cli-pack", "en", None)]


def test_each_stored_pack_is_parsed_once_until_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, _b = two_apps(tmp_path)
    db = connect(a.config["DATABASE"])
    for n in range(12):
        stored.put(db, f"pack-{n}", "en", custom_pack_text(name=f"pack-{n}"), owner=None)
    parsed: list[str] = []
    real = stored.parse_pack_bytes

    def counting(data: bytes, source: str, *rest: object) -> stored.Pack:
        parsed.append(source)
        return real(data, source, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(stored, "parse_pack_bytes", counting)
    for _ in range(4):
        assert len(list_packs(db)) == 2 + 12
    assert sorted(parsed) == sorted(f"pack-{n}.en.md" for n in range(12))
    parsed.clear()
    stored.put(db, "pack-3", "en", custom_pack_text(name="pack-3", marker="CHANGED"), owner=None)
    packs = list_packs(db)
    assert parsed == ["pack-3.en.md"]
    assert any("CHANGED" in p for pack in packs for texts in pack.prompts.values() for p in texts)
    db.conn.close()


def test_the_parse_cache_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.text.bytecache import ByteLRU, deep_size

    a, _b = two_apps(tmp_path)
    db = connect(a.config["DATABASE"])
    stored.put(db, "pack-0", "en", custom_pack_text(name="pack-0"), owner=None)
    one = deep_size(stored.load(db, "pack-0", "en"))
    monkeypatch.setattr(stored, "_cache", ByteLRU(5 * one + 5 * 1000))  # room for about five
    for n in range(9):
        stored.put(db, f"pack-{n}", "en", custom_pack_text(name=f"pack-{n}"), owner=None)
    assert len(list_packs(db)) == 2 + 9
    assert 4 <= len(stored._cache) <= 5
    assert stored._cache.nbytes <= stored._cache.max_bytes
    db.conn.close()
