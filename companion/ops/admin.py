"""``companion info``, ``backup`` and ``restore``: looking after an instance that runs for years."""

from __future__ import annotations

import platform
import sqlite3
from importlib import metadata
from pathlib import Path
from typing import Any

import click
from flask import current_app
from flask.cli import with_appcontext

from companion.base.paths import is_checkout
from companion.ops import archive, backup_check
from companion.store import pg, serverlock
from companion.store.db import check_schema


def version() -> str:
    """The companion's version (``companion.base.__version__``, which the wheel's metadata is built from)."""
    from companion.base import __version__

    return __version__


def instance_files() -> archive.Instance:
    """The current app's database, packs folder and secret key file."""
    config = current_app.config
    secret = Path(current_app.instance_path) / "secret_key"
    return archive.Instance(Path(config["DATABASE"]), Path(config["PACKS_DIR"]), secret)


@click.command("info", short_help="Show where the data lives and which versions run.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@with_appcontext
def info_command(as_json: bool) -> None:
    """Show the instance folder, database, exports and packs folders, the schema, what runs on
    it (the server; on PostgreSQL every server and supervisor connected), and the versions."""
    import json

    config = current_app.config
    facts = _shared_info(config["DATABASE"]) if pg.is_url(config["DATABASE"]) else _local_info()
    if as_json:
        click.echo(json.dumps(facts, ensure_ascii=False, sort_keys=True))
        return
    schema = facts["schema"]
    rows = [
        ("instance", facts["instance"]),
        ("database", facts["database"]),
        ("exports", facts["exports"]),
        ("packs", facts["packs"]),
        ("installed as", facts["installed_as"]),
        ("schema", _schema_line(schema["applied"], schema["known"])),
        *_running_rows(facts),
        ("companion", facts["companion"]),
        *[(name, facts["versions"][name]) for name in facts["versions"]],
    ]
    for name, value in rows:
        click.echo(f"{name + ':':<14}{value}")


def _running_rows(facts: dict[str, Any]) -> list[tuple[str, str]]:
    if "server" in facts:
        return [("server", facts["server"])]
    rows = []
    for role, label in (("server", "servers"), ("supervisor", "supervisors")):
        found = [c for c in facts["connected"] if c["role"] == role]
        machines = sorted({str(c["machine"]) for c in found})
        rows.append((label, f"{len(found)}" + (f" ({', '.join(machines)})" if found else "")))
    return rows


def _common(config: Any) -> dict[str, Any]:
    return {
        "exports": str(config["EXPORTS_DIR"]),
        "packs": str(config["PACKS_DIR"]),
        "installed_as": "a checkout" if is_checkout() else "a package",
        "companion": version(),
    }


def _local_info() -> dict[str, Any]:
    config = current_app.config
    database = Path(config["DATABASE"])
    instance = Path(current_app.instance_path)
    return {
        **_common(config),
        "instance": f"{instance}{'' if instance.is_dir() else ' (not created yet)'}",
        "database": f"{database}{'' if database.is_file() else ' (not created yet)'}",
        "schema": {"applied": _applied(database), "known": archive.known_migrations()},
        "server": "running" if serverlock.in_use(database) else "not running",
        "versions": {
            "python": platform.python_version(),
            "sqlite": sqlite3.sqlite_version,
            "flask": metadata.version("flask"),
            "weasyprint": metadata.version("weasyprint"),
        },
    }


def _shared_info(url: str) -> dict[str, Any]:
    """``info`` for a PostgreSQL store: its address (without a password), its schema and the
    servers and supervisors connected to it."""
    from companion.store.db import connect
    from companion.store.schema import applied_migrations, shown

    db = connect(url)
    try:
        applied = applied_migrations(db)
        server = str(db.execute("SHOW server_version").fetchone()[0])
        connected = pg.connected(db)  # type: ignore[arg-type]
    finally:
        db.conn.close()
    return {
        **_common(current_app.config),
        "instance": current_app.instance_path,
        "database": shown(url),
        "schema": {"applied": applied, "known": archive.known_migrations()},
        "connected": [{"role": r, "machine": m, "pid": p} for r, m, p in connected],
        "versions": {
            "python": platform.python_version(),
            "postgresql": server,
            "flask": metadata.version("flask"),
        },
    }


def _applied(database: Path) -> list[str]:
    """The migrations applied to the SQLite file, read without writing anything."""
    if not database.is_file():
        return []
    # Looking only: with no write-ahead log beside it (no server running) the file is opened
    # immutable, so not even the -shm and -wal files SQLite would make for a reader appear.
    quiet = "immutable=1" if not Path(f"{database}-wal").exists() else "mode=ro"
    conn = sqlite3.connect(f"{database.resolve().as_uri()}?{quiet}", uri=True)
    try:
        return archive.applied_migrations(conn)
    finally:
        conn.close()


def _schema_line(applied: list[str], known: list[str]) -> str:
    """``12 of 12 migrations applied``, or what a schema this version does not know means."""
    if not applied:
        return f"0 of {len(known)} migrations"
    unknown = [name for name in applied if name not in known]
    if unknown:
        return (
            f"{len(applied)} migrations applied, {len(unknown)} of them by a newer companion"
            f" (this version knows {len(known)}): it will not use this database"
        )
    return f"{len(applied)} of {len(known)} migrations applied"


@click.command("backup", short_help="Back up the whole instance into one file, even while served.")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--verify", is_flag=True,
    help="Check FILE instead: restore it into a scratch folder or database and count what it holds.",
)  # fmt: skip
@click.option(
    "--scratch", metavar="URL",
    help="With --verify, an empty PostgreSQL database to restore into (else one is created).",
)  # fmt: skip
@with_appcontext
def backup_command(file: Path, verify: bool, scratch: str | None) -> None:
    """Write the database (a consistent copy, taken while the server runs) and the packs to FILE.

    On PostgreSQL the copy is pg_dump's. With --verify, FILE is checked without touching the
    instance: restored into a scratch folder (SQLite) or database (PostgreSQL), its integrity
    checked and its rows counted against its manifest.
    """
    if verify:
        _verify(file, scratch)
        return
    database = current_app.config["DATABASE"]
    check_schema(database)  # a backup of a newer schema would not restore here: refused
    try:
        if pg.is_url(database):
            from companion.ops import pg_backup

            manifest = pg_backup.write_backup(database, instance_files().secret, file, version())
        else:
            _import_pack_files()
            manifest = archive.write_backup(instance_files(), file, version())
    except archive.ArchiveError as err:
        raise click.ClickException(str(err)) from None
    click.echo(
        f"Backup written: {file} (companion {manifest['companion_version']},"
        f" {backup_check.summary(manifest['counts'])})"
    )


def _verify(file: Path, scratch: str | None) -> None:
    from companion.ops import pg_backup

    database = current_app.config["DATABASE"]
    try:
        with archive.opened(file) as opened:
            store = archive.store_of(archive.read_manifest(opened))
        if store == archive.POSTGRESQL:
            url = database if pg.is_url(database) else None
            manifest, found = pg_backup.verify_backup(file, url, scratch)
        else:
            manifest, found = archive.verify_backup(file)
    except archive.ArchiveError as err:
        raise click.ClickException(f"{file}: {err}") from None
    click.echo(
        f"{file} is a good backup: companion {manifest.get('companion_version')},"
        f" taken {manifest.get('created')} from {store}; it restores with"
        f" {backup_check.summary(found)}."
    )


def _import_pack_files() -> None:
    """Pack files an older version kept in PACKS_DIR go into the database before it is copied."""
    from companion.packs.registry import shipped_names
    from companion.packs.stored import import_folder
    from companion.store.db import connect
    from companion.store.schema import applied_migrations, known_migrations

    config = current_app.config
    if not Path(config["DATABASE"]).is_file() or not Path(config["PACKS_DIR"]).is_dir():
        return
    db = connect(config["DATABASE"])
    try:
        # A backup never migrates: an older schema is copied as it is (the server imports the
        # files when it has brought it up to date, and a restore imports them too).
        if applied_migrations(db) == known_migrations():
            import_folder(db, config["PACKS_DIR"], shipped_names())
    finally:
        db.conn.close()


@click.command("restore", short_help="Replace the instance's data with a backup file.")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@with_appcontext
def restore_command(file: Path) -> None:
    """Restore FILE over this instance, keeping the previous data aside; stop the server first."""
    database = current_app.config["DATABASE"]
    try:
        if pg.is_url(database):
            from companion.ops import pg_backup

            restored = pg_backup.restore_backup(file, database, instance_files().secret)
        else:
            restored = archive.restore_backup(file, instance_files())
    except archive.ArchiveError as err:
        raise click.ClickException(str(err)) from None
    manifest = restored.manifest
    click.echo(
        f"Restored the backup of {manifest.get('created')} from {file}"
        f" (written by companion {manifest.get('companion_version') or 'before 0.2.0'})."
    )
    for path in restored.kept_aside:
        if str(path).startswith("schema "):  # PostgreSQL: a schema, renamed
            schema = str(path).removeprefix("schema ")
            click.echo(
                f"The previous data is kept in the schema {schema}: drop it once the restore is"
                f' checked (DROP SCHEMA "{schema}" CASCADE).'
            )
        else:
            click.echo(f"The previous data is kept at {path}")


@click.command("check", short_help="Replay every chronicle and table; name any damaged one.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@with_appcontext
def check_command(as_json: bool) -> None:
    """Replay every stream the store holds, from its first event, and name the damaged ones.

    Reads only. Exits with status 1 when a stream is damaged: restore a backup taken before the
    damage (docs/deploy.md, section 6), or delete the stream (`companion chronicles delete`).
    """
    import json

    from companion.ops.check import check_streams
    from companion.store.db import connect

    database = current_app.config["DATABASE"]
    if not pg.is_url(database) and not Path(database).is_file():
        raise click.ClickException(f"There is no database at {database} to check.")
    check_schema(database)
    db = connect(database)
    try:
        report = check_streams(db)
    finally:
        db.conn.close()
    if as_json:
        click.echo(json.dumps(report.as_json(), ensure_ascii=False, sort_keys=True))
    else:
        for damage in report.damaged:
            click.echo(f"Damaged: {damage.sentence()}")
        verdict = "every one replays" if not report.damaged else f"{len(report.damaged)} damaged"
        click.echo(f"Checked {report.streams} streams, {report.events} events: {verdict}.")
    if report.damaged:
        raise click.exceptions.Exit(1)


COMMANDS = (info_command, backup_command, restore_command, check_command)
