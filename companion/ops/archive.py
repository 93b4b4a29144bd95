"""Whole-instance backups: the database (uploaded packs included) in one zip file, and restore.

A backup copies the database with SQLite's online backup API inside one read transaction, so
the copy is the database as it stood at one moment, while the server goes on taking writes
(WAL lets writers continue beside a reader). A restore checks the file completely before it
touches anything: its format, the integrity of the database, and that the code knows every
migration the backup has; it refuses while a server holds the instance's lock, keeps the
previous database and packs beside the new ones, and brings the schema up to date.

Uploaded packs live in the database's ``packs`` table. Backups of older versions also hold them
as files under ``packs/``: a restore imports those files into the table.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from companion.ops import backup_check
from companion.ops.members import (
    MAX_MANIFEST_BYTES,
    MAX_PACKS,
    MAX_SECRET_BYTES,
    copy_member,
    read_member,
)
from companion.ops.members import ArchiveError as ArchiveError  # where every caller finds it
from companion.store import schema, serverlock
from companion.store.db import BUSY_TIMEOUT_MS, connect, init_db

FORMAT = "ijinsho-instance"
# 2: the manifest names its store ("sqlite" or "postgresql", whose backups hold a pg_dump) and
# counts the rows it holds. Version 1 backups (0.1.0) are SQLite ones without counts.
FORMAT_VERSION = 2
SQLITE, POSTGRESQL = "sqlite", "postgresql"
DATABASE_MEMBER = "companion.sqlite3"
MANIFEST_MEMBER = "manifest.json"
SECRET_MEMBER = "secret_key"
PACKS_PREFIX = "packs/"
MAX_PACK_BYTES = 1024 * 1024
# A restored database with nothing to copy the mode from: the owner writes, its group reads
# (as the systemd unit's UMask=0027 makes the server's own files).
DATABASE_MODE = 0o640


@dataclass(frozen=True)
class Instance:
    """The files a backup holds: the database, the packs folder and the secret key file."""

    database: Path
    packs: Path
    secret: Path


@dataclass(frozen=True)
class Restored:
    """What a restore did: the manifest it read and where the previous files were put."""

    manifest: dict[str, Any]
    kept_aside: list[Path]


def known_migrations() -> list[str]:
    """The names of every migration this code can apply, in order."""
    return schema.known_migrations()


def applied_migrations(conn: sqlite3.Connection) -> list[str]:
    """The migrations recorded in a database, in the order they were applied."""
    return schema.applied_migrations(conn)


def copy_database(source: Path, target: Path) -> None:
    """A consistent copy of ``source`` at ``target``, taken while others keep writing."""
    src = sqlite3.connect(source, timeout=BUSY_TIMEOUT_MS / 1000)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)  # all pages in one step: one read transaction, one moment
        dst.execute("PRAGMA journal_mode = DELETE")  # a single file, no -wal beside it
    finally:
        dst.close()
        src.close()


def check_database(path: Path) -> list[str]:
    """Integrity and foreign keys of the database at ``path``; its applied migrations."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        result = [str(row[0]) for row in conn.execute("PRAGMA integrity_check").fetchall()]
        if result != ["ok"]:
            raise ArchiveError(f"The database in the backup is damaged: {'; '.join(result[:3])}")
        if conn.execute("PRAGMA foreign_key_check").fetchone() is not None:
            raise ArchiveError("The database in the backup has rows that point at missing rows.")
        return applied_migrations(conn)
    except sqlite3.DatabaseError as err:
        raise ArchiveError(f"The backup does not hold a usable database: {err}") from None
    finally:
        conn.close()


def write_backup(instance: Instance, target: Path, version: str) -> dict[str, Any]:
    """Write the backup zip to ``target`` (whole or not at all); its manifest."""
    if not instance.database.is_file():
        raise ArchiveError(f"There is no database at {instance.database} to back up.")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".backup-") as work:
        copy = Path(work) / DATABASE_MEMBER
        copy_database(instance.database, copy)
        applied = check_database(copy)
        packs = _stored_packs(copy)
        conn = sqlite3.connect(f"{copy.resolve().as_uri()}?mode=ro", uri=True)
        try:
            counted = backup_check.counts(conn)
        finally:
            conn.close()
        manifest = new_manifest(SQLITE, version, applied, sorted(packs), counted)
        zip_backup(target, Path(work), manifest, (copy, DATABASE_MEMBER), instance.secret)
    return manifest


def new_manifest(
    store: str, version: str, applied: list[str], packs: list[str], counted: dict[str, int]
) -> dict[str, Any]:
    """The manifest of a backup taken now."""
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "store": store,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "companion_version": version,
        "migrations": applied,
        "packs": packs,
        "counts": counted,
    }


def zip_backup(
    target: Path, work: Path, manifest: dict[str, Any], data: tuple[Path, str], secret: Path
) -> None:
    """The backup zip at ``target``, whole or not at all: manifest, data member, secret key.

    Only its owner may read it (mode 0600): it holds every story and the secret key."""
    partial = work / "backup.zip"
    partial.touch(mode=0o600)
    partial.chmod(0o600)  # whatever the umask
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(MANIFEST_MEMBER, json.dumps(manifest, indent=1, sort_keys=True))
        archive.write(data[0], data[1])
        if secret.is_file():
            archive.write(secret, SECRET_MEMBER)
    os.replace(partial, target)


def newer(manifest: dict[str, Any], unknown: list[str] | None = None) -> ArchiveError:
    """The refusal of a backup from a newer companion, naming both versions."""
    from companion.base import __version__

    theirs = manifest.get("companion_version") or "a newer version"
    if unknown:
        known = f"companion {__version__} does not know ({', '.join(unknown)})"
        why = f", whose database has changes {known}"
    else:
        why = f", newer than this one ({__version__})"
    return ArchiveError(
        f"This backup was written by companion {theirs}{why}: upgrade the companion before"
        " restoring it."
    )


def _stored_packs(database: Path) -> list[str]:
    """The file names (``<name>.<language>.md``) of the packs stored in the database."""
    conn = sqlite3.connect(f"{database.resolve().as_uri()}?mode=ro", uri=True)
    try:
        exists = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'packs'"
        ).fetchone()
        rows = conn.execute("SELECT name, language FROM packs").fetchall() if exists else []
    finally:
        conn.close()
    return [f"{name}.{language}.md" for name, language in rows]


def read_manifest(archive: zipfile.ZipFile) -> dict[str, Any]:
    """The manifest of an opened backup; ArchiveError when it is not one this code can read."""
    try:
        manifest = json.loads(read_member(archive, MANIFEST_MEMBER, MAX_MANIFEST_BYTES))
    except (KeyError, ValueError):
        raise ArchiveError("This file is not a companion backup (it has no manifest).") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ArchiveError("This file is not a companion backup.")
    version = manifest.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise newer(manifest)
    return manifest


def store_of(manifest: dict[str, Any]) -> str:
    """The store a backup was taken from (every version 1 backup is a SQLite one)."""
    return str(manifest.get("store") or SQLITE)


def restore_backup(source: Path, instance: Instance) -> Restored:
    """Replace the instance's database and packs with the backup's; refused while served."""
    with opened(source) as archive, serverlock.exclusive(instance.database) as free:
        if not free:
            raise ArchiveError(
                "A server is using this instance: stop `companion serve` before restoring."
            )
        manifest = read_manifest(archive)
        if store_of(manifest) != SQLITE:
            raise ArchiveError(
                "This backup was taken from a PostgreSQL store: restore it into one"
                " (COMPANION_DATABASE=postgresql://...)."
            )
        members = _members(archive)
        instance.database.parent.mkdir(parents=True, exist_ok=True)
        before = instance.database.stat() if instance.database.exists() else None
        with tempfile.TemporaryDirectory(dir=instance.database.parent, prefix=".restore-") as work:
            incoming = Path(work) / DATABASE_MEMBER
            copy_member(archive, DATABASE_MEMBER, incoming)
            check_known(check_database(incoming), manifest)
            kept = _set_aside(instance)
            os.replace(incoming, instance.database)
        _unpack_secret(archive, instance)
        files = [
            (name.removeprefix(PACKS_PREFIX), read_member(archive, name, MAX_PACK_BYTES))
            for name in members
        ]
    init_db(instance.database)
    _import_packs(files, instance.database)
    _requeue_interrupted(instance.database)
    _own_like_instance(instance, before)
    return Restored(manifest, kept)


def _own_like_instance(instance: Instance, before: os.stat_result | None) -> None:
    """The restored files get the mode and owner the replaced database had (else the folder's
    owner and mode 0640), so a restore run through sudo or as root leaves the server a
    database it can write and nobody else can read."""
    folder = instance.database.parent.stat()
    mode = stat.S_IMODE(before.st_mode) if before else DATABASE_MODE
    owner = (before or folder).st_uid, (before or folder).st_gid
    database = instance.database
    files = [(database, mode), (Path(f"{database}-wal"), mode), (Path(f"{database}-shm"), mode)]
    for path, wanted in [*files, (instance.secret, 0o600)]:
        if not path.exists():
            continue
        path.chmod(wanted)
        if os.geteuid() == 0:
            os.chown(path, *owner)


def verify_backup(source: Path) -> tuple[dict[str, Any], dict[str, int]]:
    """Restore a SQLite backup into a scratch folder, migrate and check it there: its manifest
    and counts. The instance is not touched; ArchiveError says what is wrong."""
    with opened(source) as archive:
        manifest = read_manifest(archive)
        _members(archive)
        with tempfile.TemporaryDirectory(prefix="companion-verify-") as work:
            copy = Path(work) / DATABASE_MEMBER
            copy_member(archive, DATABASE_MEMBER, copy)
            check_known(check_database(copy), manifest)
            init_db(copy)  # as a restore brings an older backup up to date
            conn = sqlite3.connect(copy)
            try:
                found = backup_check.counts(conn)
                out_of_step = backup_check.streams_out_of_step(conn)
            finally:
                conn.close()
            damaged = backup_check.replay(connect(copy))
    problems = backup_check.compare(found, manifest, out_of_step) + damaged
    if problems:
        raise ArchiveError(" ".join(problems))
    return manifest, found


@contextmanager
def opened(source: Path) -> Iterator[zipfile.ZipFile]:
    try:
        with zipfile.ZipFile(source) as archive:
            yield archive
    except FileNotFoundError:
        raise ArchiveError(f"There is no file {source}.") from None
    except zipfile.BadZipFile:
        raise ArchiveError(f"{source} is not a companion backup (not a zip file).") from None


def _members(archive: zipfile.ZipFile) -> list[str]:
    """The backup's pack members, after refusing any name that could land outside the instance,
    and any member larger than its kind may be."""
    from companion.base.languages import LANGUAGES
    from companion.packs.format import valid_name

    names = archive.namelist()
    if DATABASE_MEMBER not in names:
        raise ArchiveError("The backup holds no database.")
    if SECRET_MEMBER in names:
        read_member(archive, SECRET_MEMBER, MAX_SECRET_BYTES)
    if len(names) > MAX_PACKS + 3:
        raise ArchiveError(f"The backup holds {len(names)} files; one holds at most a few.")
    packs = []
    for name in names:
        if name in (MANIFEST_MEMBER, DATABASE_MEMBER, SECRET_MEMBER):
            continue
        stem, _, rest = name.removeprefix(PACKS_PREFIX).partition(".")
        language, _, suffix = rest.partition(".")
        ok = name.startswith(PACKS_PREFIX) and valid_name(stem) and language in LANGUAGES
        if not ok or suffix != "md" or archive.getinfo(name).file_size > MAX_PACK_BYTES:
            raise ArchiveError(f"The backup holds an unexpected file {name!r}.")
        packs.append(name)
    return packs


def check_known(applied: list[str], manifest: dict[str, Any]) -> None:
    unknown = [name for name in applied if name not in known_migrations()]
    if unknown:
        raise newer(manifest, unknown)


def _set_aside(instance: Instance) -> list[Path]:
    """Move the current database, packs and secret beside themselves; where they went."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    kept = []
    if instance.database.exists():
        _checkpoint(instance.database)
        for suffix in ("-wal", "-shm"):
            Path(f"{instance.database}{suffix}").unlink(missing_ok=True)
    for path in (instance.database, instance.packs, instance.secret):
        if path.exists():
            aside = path.with_name(f"{path.name}.before-restore-{stamp}")
            os.replace(path, aside)
            kept.append(aside)
    return kept


def _checkpoint(database: Path) -> None:
    """Fold the write-ahead log into the database file, so the file alone is the whole data."""
    conn = sqlite3.connect(database, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def _import_packs(files: list[tuple[str, bytes]], database: Path) -> None:
    """The pack files of an older backup, into the restored database's ``packs`` table."""
    if not files:
        return
    from companion.packs.registry import shipped_names
    from companion.packs.stored import import_files
    from companion.store.db import connect
    from companion.store.sql import write_transaction

    db = connect(database)
    try:
        with write_transaction(db):
            import_files(db, files, shipped_names())
    finally:
        db.conn.close()


def _unpack_secret(archive: zipfile.ZipFile, instance: Instance) -> None:
    if SECRET_MEMBER in archive.namelist():
        instance.secret.write_bytes(read_member(archive, SECRET_MEMBER, MAX_SECRET_BYTES))
        instance.secret.chmod(0o600)


def _requeue_interrupted(database: Path) -> None:
    """Books that were being made when the backup was taken are queued again."""
    conn = sqlite3.connect(database, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        with conn:
            conn.execute(
                "UPDATE exports SET status = 'queued', progress = 0, step = NULL, pid = NULL"
                " WHERE status = 'running'"
            )
    finally:
        conn.close()
