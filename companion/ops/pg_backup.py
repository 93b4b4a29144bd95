"""Backups of a PostgreSQL store: ``pg_dump -Fc`` and ``pg_restore`` in the instance backup's zip.

The zip holds the same manifest as a SQLite backup (store ``postgresql``, versions, migrations,
uploaded packs, row counts), the dump as ``companion.pgdump`` and the secret key file when the
instance has one. The companion's tables live in one schema (``public`` unless the address sets
a search path), and that schema is what is dumped: its tables, rows and sequences, without owners
or grants, so it restores under whichever role runs the restore.

The dump and the manifest's counts come from one snapshot: a transaction exports it
(``pg_export_snapshot``) and ``pg_dump --snapshot`` reads through it. A restore refuses while a
server is connected, renames the schema it replaces to ``<schema>_before_restore_<time>`` (kept
until the operator drops it; an empty one is dropped), restores in one transaction and applies the
migrations of this version. ``verify`` restores into a scratch database that it drops afterwards.
"""

from __future__ import annotations

import secrets
import shutil
import subprocess
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from companion.ops import archive, backup_check, members
from companion.ops.archive import ArchiveError, Restored
from companion.store import pg

DUMP_MEMBER = "companion.pgdump"


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise ArchiveError(
            f"{name} is not installed: `apt-get install postgresql-client` (the same major"
            " version as the server, or newer)."
        )
    return found


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        tool = Path(command[0]).name
        raise ArchiveError(f"{tool} failed: {done.stderr.strip() or done.returncode}")


def _schema(db: pg.Database) -> str:
    return str(db.execute("SELECT current_schema()").fetchone()[0])


def _stored(db: pg.Database) -> tuple[list[str], list[str], dict[str, int]]:
    """The applied migrations, the uploaded packs' file names and the counts, as of now."""
    applied = [
        str(row[0])
        for row in db.execute(
            f"SELECT name FROM {pg.MIGRATIONS_TABLE} WHERE migration_set = 'companion'"
            " ORDER BY applied_at, name"
        )
    ]
    packs = [f"{n}.{lang}.md" for n, lang in db.execute("SELECT name, language FROM packs")]
    return applied, sorted(packs), backup_check.counts(db)


def write_backup(url: str, secret: Path, target: Path, version: str) -> dict[str, Any]:
    """Dump the store at ``url`` into the backup zip ``target``; its manifest."""
    dump = _tool("pg_dump")
    target.parent.mkdir(parents=True, exist_ok=True)
    db = pg.connect(url)
    try:
        db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        snapshot = str(db.execute("SELECT pg_export_snapshot()").fetchone()[0])
        schema = _schema(db)
        applied, packs, counted = _stored(db)
        with tempfile.TemporaryDirectory(dir=target.parent, prefix=".backup-") as work:
            data = Path(work) / DUMP_MEMBER
            _run([dump, "--format=custom", "--no-owner", "--no-privileges",
                  f"--schema={schema}", f"--snapshot={snapshot}", f"--file={data}",
                  f"--dbname={url}"])  # fmt: skip
            manifest = archive.new_manifest(archive.POSTGRESQL, version, applied, packs, counted)
            manifest["schema"] = schema
            manifest["postgresql"] = str(db.execute("SHOW server_version").fetchone()[0])
            archive.zip_backup(target, Path(work), manifest, (data, DUMP_MEMBER), secret)
        db.conn.rollback()
    finally:
        db.conn.close()
    return manifest


@contextmanager
def _dump_of(source: Path, work: Path) -> Iterator[tuple[dict[str, Any], zipfile.ZipFile, Path]]:
    """The backup's manifest, the open zip and its dump extracted into ``work``."""
    with archive.opened(source) as backup:
        manifest = archive.read_manifest(backup)
        if archive.store_of(manifest) != archive.POSTGRESQL:
            raise ArchiveError(
                "This backup was taken from a SQLite instance: restore it into one, then move"
                " it with `companion migrate-store --to postgresql://...`."
            )
        names = set(backup.namelist()) - {archive.MANIFEST_MEMBER, archive.SECRET_MEMBER}
        if names != {DUMP_MEMBER}:
            raise ArchiveError(f"The backup holds unexpected files: {sorted(names)}.")
        archive.check_known(list(manifest.get("migrations") or []), manifest)
        if archive.SECRET_MEMBER in backup.namelist():
            members.read_member(backup, archive.SECRET_MEMBER, members.MAX_SECRET_BYTES)
        dump = work / DUMP_MEMBER
        members.copy_member(backup, DUMP_MEMBER, dump)
        _run([_tool("pg_restore"), "--list", str(dump)])  # a dump pg_restore can read
        yield manifest, backup, dump


def _restore_into(url: str, dump: Path) -> None:
    _run([_tool("pg_restore"), "--no-owner", "--no-privileges", "--single-transaction",
          "--exit-on-error", f"--dbname={url}", str(dump)])  # fmt: skip


def _servers(db: pg.Database) -> int:
    """Other processes of the companion connected to this store (servers, supervisors, and any
    other command: a restore waits for all of them)."""
    return len(pg.connected(db))


def restore_backup(source: Path, url: str, secret: Path) -> Restored:
    """Replace the store's schema with the backup's; refused while a server is connected."""
    with tempfile.TemporaryDirectory(prefix="companion-restore-") as folder:
        with _dump_of(source, Path(folder)) as (manifest, backup, dump):
            db = pg.connect(url)
            try:
                if _servers(db):
                    raise ArchiveError(
                        "A server is connected to this database: stop every `companion serve`"
                        " that uses it before restoring."
                    )
                kept = _set_aside(db, _schema(db), str(manifest.get("schema") or "public"))
            finally:
                db.conn.close()
            _restore_into(url, dump)
            if archive.SECRET_MEMBER in backup.namelist():
                secret.parent.mkdir(parents=True, exist_ok=True)
                secret.write_bytes(
                    members.read_member(backup, archive.SECRET_MEMBER, members.MAX_SECRET_BYTES)
                )
                secret.chmod(0o600)
    from companion.store.db import init_db

    init_db(url)  # an older backup's schema is brought up to date
    db = pg.connect(url)
    try:
        db.execute(
            "UPDATE exports SET status = 'queued', progress = 0, step = NULL, pid = NULL"
            " WHERE status = 'running'"
        )
    finally:
        db.conn.close()
    return Restored(manifest, kept)


def _set_aside(db: pg.Database, live: str, incoming: str) -> list[Path]:
    """Rename the schema the backup will fill (kept), or drop it when it holds no table."""
    kept = []
    for schema in dict.fromkeys((live, incoming)):
        exists = db.execute("SELECT 1 FROM pg_namespace WHERE nspname = ?", [schema]).fetchone()
        if not exists:
            continue
        tables = db.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = ?", [schema]
        ).fetchone()[0]
        if not tables:
            db.execute(f'DROP SCHEMA "{schema}"')
            continue
        stamp = datetime.now(UTC).strftime("%Y%m%d_%H%M%S")
        aside = f"{schema}_before_restore_{stamp}"
        db.execute(f'ALTER SCHEMA "{schema}" RENAME TO "{aside}"')
        kept.append(Path(f"schema {aside}"))
    return kept


def verify_backup(
    source: Path, url: str | None, scratch: str | None = None
) -> tuple[dict[str, Any], dict[str, int]]:
    """Restore the backup into a scratch database and check it there: manifest and counts.

    ``scratch`` names an empty database to use; otherwise one is created next to ``url`` (the
    role needs CREATEDB) and dropped afterwards. The live store is not touched.
    """
    if scratch is None and url is None:
        raise ArchiveError(
            "Checking a PostgreSQL backup needs a PostgreSQL server: give --scratch"
            " postgresql://.../an_empty_database."
        )
    with tempfile.TemporaryDirectory(prefix="companion-verify-") as folder:
        with _dump_of(source, Path(folder)) as (manifest, _backup, dump):
            with _scratch_database(url, scratch) as target:
                schema = str(manifest.get("schema") or "public")
                db = pg.connect(target)
                try:
                    _set_aside(db, schema, schema)  # empty: dropped, for the dump to make
                finally:
                    db.conn.close()
                _restore_into(target, dump)
                db = pg.connect(_with_search_path(target, schema))
                try:
                    found = backup_check.counts(db)
                    out_of_step = backup_check.streams_out_of_step(db)
                    damaged = backup_check.replay(db, close=False)
                finally:
                    db.conn.close()
    problems = backup_check.compare(found, manifest, out_of_step) + damaged
    if problems:
        raise ArchiveError(" ".join(problems))
    return manifest, found


def _with_search_path(url: str, schema: str) -> str:
    parts = urlsplit(url)
    query = "&".join(q for q in parts.query.split("&") if q and not q.startswith("options="))
    query = f"{query}&options=-csearch_path%3D{schema}".lstrip("&")
    return urlunsplit(parts._replace(query=query))


@contextmanager
def _scratch_database(url: str | None, scratch: str | None) -> Iterator[str]:
    if scratch is not None:
        db = pg.connect(scratch)
        try:
            tables = db.execute(
                "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN"
                " ('pg_catalog', 'information_schema')"
            ).fetchone()[0]
        finally:
            db.conn.close()
        if tables:
            raise ArchiveError("The scratch database is not empty: give an empty one.")
        yield scratch
        return
    assert url is not None
    name = f"companion_verify_{secrets.token_hex(4)}"
    db = pg.connect(url)
    try:
        try:
            db.execute(f"CREATE DATABASE {name}")
        except Exception as err:
            if getattr(err, "sqlstate", None) != "42501":  # insufficient privilege
                raise
            raise ArchiveError(
                "This role may not create a scratch database: `ALTER ROLE ... CREATEDB`, or"
                " give --scratch postgresql://.../an_empty_database."
            ) from None
        parts = urlsplit(url)
        query = "&".join(q for q in parts.query.split("&") if q and not q.startswith("options="))
        yield urlunsplit(parts._replace(path=f"/{name}", query=query))
    finally:
        try:
            db.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        finally:
            db.conn.close()
