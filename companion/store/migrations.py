"""Every migration of the store, one list for both backends: each name has its SQLite step
(sqlite-utils, recorded in ``_sqlite_migrations``) and its PostgreSQL DDL (recorded in
``_companion_migrations``), applied in order by ``companion.store.db.migrate``."""

from __future__ import annotations

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

migrations = Migrations("companion")
# The same migrations for PostgreSQL, by name and in order: (name, DDL).
POSTGRESQL_MIGRATIONS: list[tuple[str, str]] = []


def _postgresql(name: str, ddl: str) -> None:
    POSTGRESQL_MIGRATIONS.append((name, ddl))


@migrations(name="0001_streams_events")
def _create_streams_and_events(db: Database) -> None:
    db.table("streams").create(
        {
            "id": str,
            "kind": str,
            "title": str,
            "version": int,
            "created": str,
            "updated": str,
            "meta": str,
        },
        pk="id",
        not_null={"kind", "version", "created", "updated"},
        strict=True,
    )
    db.table("events").create(
        {
            "stream_id": str,
            "seq": int,
            "type": str,
            "data": str,
            "created": str,
        },
        pk=("stream_id", "seq"),
        foreign_keys=[("stream_id", "streams", "id")],
        not_null={"type", "data", "created"},
        strict=True,
    )


_postgresql(
    "0001_streams_events",
    """
    CREATE TABLE streams (
        id text PRIMARY KEY, kind text NOT NULL, title text, version bigint NOT NULL,
        created text NOT NULL, updated text NOT NULL, meta text
    );
    CREATE TABLE events (
        stream_id text NOT NULL REFERENCES streams (id), seq bigint NOT NULL,
        type text NOT NULL, data text NOT NULL, created text NOT NULL,
        PRIMARY KEY (stream_id, seq)
    );
    """,
)


@migrations(name="0002_capabilities")
def _create_capabilities(db: Database) -> None:
    db.table("capabilities").create(
        {
            "token_hash": str,
            "stream_id": str,
            "role": str,
            "seat": int,
            "created": str,
            "revoked": str,
        },
        pk="token_hash",
        foreign_keys=[("stream_id", "streams", "id")],
        not_null={"stream_id", "role", "created"},
        strict=True,
    )
    db.table("capabilities").create_index(["stream_id"])


_postgresql(
    "0002_capabilities",
    """
    CREATE TABLE capabilities (
        token_hash text PRIMARY KEY, stream_id text NOT NULL REFERENCES streams (id),
        role text NOT NULL, seat bigint, created text NOT NULL, revoked text
    );
    CREATE INDEX idx_capabilities_stream_id ON capabilities (stream_id);
    """,
)


@migrations(name="0003_drafts")
def _create_drafts(db: Database) -> None:
    db.table("drafts").create(
        {"stream_id": str, "key": str, "text": str, "base_version": int, "updated": str},
        pk=("stream_id", "key"),
        foreign_keys=[("stream_id", "streams", "id")],
        not_null={"text", "updated"},
        strict=True,
    )


_postgresql(
    "0003_drafts",
    """
    CREATE TABLE drafts (
        stream_id text NOT NULL REFERENCES streams (id), key text NOT NULL, text text NOT NULL,
        base_version bigint, updated text NOT NULL, PRIMARY KEY (stream_id, key)
    );
    """,
)


@migrations(name="0004_exports")
def _create_exports(db: Database) -> None:
    # One row per book: a chronicle's version, edition and paper; the worker reports progress here.
    db.table("exports").create(
        {
            "id": str,
            "stream_id": str,
            "version": int,
            "edition": str,
            "paper": str,
            "status": str,
            "progress": int,
            "step": str,
            "page": int,
            "error": str,
            "pid": int,
            "created": str,
            "updated": str,
        },
        pk="id",
        foreign_keys=[("stream_id", "streams", "id")],
        not_null={"stream_id", "version", "edition", "paper", "status", "progress", "created"},
        strict=True,
    )
    db.table("exports").create_index(["stream_id", "version", "edition", "paper"], unique=True)
    db.table("exports").create_index(["status"])


# ``rowid`` keeps queue order among jobs queued within one millisecond, as SQLite's rowid does.
_postgresql(
    "0004_exports",
    """
    CREATE TABLE exports (
        id text PRIMARY KEY, stream_id text NOT NULL REFERENCES streams (id),
        version bigint NOT NULL, edition text NOT NULL, paper text NOT NULL,
        status text NOT NULL, progress bigint NOT NULL, step text, page bigint, error text,
        pid bigint, created text NOT NULL, updated text, rowid bigserial NOT NULL
    );
    CREATE UNIQUE INDEX idx_exports_stream_id_version_edition_paper
        ON exports (stream_id, version, edition, paper);
    CREATE INDEX idx_exports_status ON exports (status);
    """,
)


@migrations(name="0005_export_layouts")
def _add_export_layouts(db: Database) -> None:
    # A book is also a layout: the home-printer PDF, the print shop's body or cover, the vertical
    # PDF or an EPUB. Existing rows are home-printer books.
    db.table("exports").add_column("layout", str, not_null_default="book")
    db.execute("DROP INDEX IF EXISTS idx_exports_stream_id_version_edition_paper")
    db.table("exports").create_index(
        ["stream_id", "version", "edition", "paper", "layout"], unique=True
    )


_postgresql(
    "0005_export_layouts",
    """
    ALTER TABLE exports ADD COLUMN layout text NOT NULL DEFAULT 'book';
    DROP INDEX IF EXISTS idx_exports_stream_id_version_edition_paper;
    CREATE UNIQUE INDEX idx_exports_stream_id_version_edition_paper_layout
        ON exports (stream_id, version, edition, paper, layout);
    """,
)


@migrations(name="0006_export_hosts")
def _add_export_hosts(db: Database) -> None:
    # The machine whose worker makes a running book: only there can its process be looked at.
    db.table("exports").add_column("host", str)


_postgresql("0006_export_hosts", "ALTER TABLE exports ADD COLUMN host text;")


@migrations(name="0007_packs")
def _create_packs(db: Database) -> None:
    # The prompt packs people upload, one row per name and language, so that every server of a
    # shared store sees them. ``revision`` is new at each write: the parse cache's key.
    db.table("packs").create(
        {
            "name": str,
            "language": str,
            "owner": str,
            "text": str,
            "size": int,
            "version": int,
            "revision": str,
            "created": str,
            "updated": str,
        },
        pk=("name", "language"),
        not_null={"text", "size", "version", "revision", "created", "updated"},
        strict=True,
    )


_postgresql(
    "0007_packs",
    """
    CREATE TABLE packs (
        name text NOT NULL, language text NOT NULL, owner text, text text NOT NULL,
        size bigint NOT NULL, version bigint NOT NULL, revision text NOT NULL,
        created text NOT NULL, updated text NOT NULL, PRIMARY KEY (name, language)
    );
    """,
)


@migrations(name="0008_export_attempts")
def _add_export_attempts(db: Database) -> None:
    # How many times a book was handed to a worker: a book whose worker or server died is made
    # again once, whichever server notices, and failed the second time.
    db.table("exports").add_column("attempts", int, not_null_default=0)


_postgresql(
    "0008_export_attempts",
    "ALTER TABLE exports ADD COLUMN attempts bigint NOT NULL DEFAULT 0;",
)


@migrations(name="0009_ratelimit_tables")
def _ratelimit_tables(_db: Database) -> None:
    # Rate-limit counts are kept in PostgreSQL only (``companion.store.ratelimit_store``); a SQLite
    # store counts in memory or in Redis, so it records the name and makes nothing.
    pass


# The two tables of the PostgreSQL rate-limit storage: made here, once, under the migrations'
# lock, so servers starting together never race to create them on their first request. Earlier
# versions made them on first use, so a store may hold them already: IF NOT EXISTS.
RATELIMIT_MIGRATION = "0009_ratelimit_tables"
_postgresql(
    RATELIMIT_MIGRATION,
    """
    CREATE TABLE IF NOT EXISTS ratelimit_counters (
        key text PRIMARY KEY, count bigint NOT NULL, expires double precision NOT NULL
    );
    CREATE TABLE IF NOT EXISTS ratelimit_entries (key text NOT NULL, at double precision NOT NULL);
    CREATE INDEX IF NOT EXISTS idx_ratelimit_entries_key_at ON ratelimit_entries (key, at);
    """,
)


@migrations(name="0010_stream_sizes_and_snapshots")
def _add_stream_sizes_and_snapshots(db: Database) -> None:
    # A stream's header says how many bytes its events hold (its limits are checked against it)
    # and what a watcher sees besides its version, so a version poll reads one row.
    db.table("streams").add_column("nbytes", int, not_null_default=0)
    db.table("streams").add_column("status", str)
    db.execute(
        "UPDATE streams SET nbytes = (SELECT coalesce(sum(length(CAST(data AS BLOB))), 0)"
        " FROM events WHERE events.stream_id = streams.id)"
    )
    # The latest snapshot of each stream's replayed state (a cache: dropped with its stream, and
    # ignored once the rules core that wrote it has changed).
    db.execute(
        "CREATE TABLE snapshots ("
        " stream_id TEXT PRIMARY KEY REFERENCES streams (id) ON DELETE CASCADE,"
        " projection TEXT NOT NULL, version INTEGER NOT NULL, nbytes INTEGER NOT NULL,"
        " data TEXT NOT NULL, created TEXT NOT NULL) STRICT"
    )


_postgresql(
    "0010_stream_sizes_and_snapshots",
    """
    ALTER TABLE streams ADD COLUMN nbytes bigint NOT NULL DEFAULT 0;
    ALTER TABLE streams ADD COLUMN status text;
    UPDATE streams SET nbytes = (
        SELECT coalesce(sum(octet_length(data)), 0) FROM events WHERE events.stream_id = streams.id
    );
    CREATE TABLE snapshots (
        stream_id text PRIMARY KEY REFERENCES streams (id) ON DELETE CASCADE,
        projection text NOT NULL, version bigint NOT NULL, nbytes bigint NOT NULL,
        data text NOT NULL, created text NOT NULL
    );
    """,
)


@migrations(name="0011_actors")
def _add_actors(db: Database) -> None:
    # Who sent the command an event came from: the link's role (``host``, ``seat:2``). The host
    # acts for whoever's turn it is, so an event's seat alone credits the host's move to that
    # player. Events recorded before, and those of imports and the CLI, have none. A draft's
    # author is the link that typed it, so words another device typed are handed back to it.
    db.table("events").add_column("actor", str)
    db.table("drafts").add_column("author", str)


_postgresql(
    "0011_actors",
    "ALTER TABLE events ADD COLUMN actor text; ALTER TABLE drafts ADD COLUMN author text;",
)


@migrations(name="0012_held_forms")
def _create_held_forms(db: Database) -> None:
    # A refused form that belongs to no stream yet (a new chronicle's set-up, a card table's
    # lobby), kept while its page is shown again after the redirect; old ones are pruned.
    db.table("held_forms").create(
        {"id": str, "kind": str, "data": str, "created": str},
        pk="id",
        not_null={"kind", "data", "created"},
        strict=True,
    )
    db.table("held_forms").create_index(["created"])


_postgresql(
    "0012_held_forms",
    """
    CREATE TABLE held_forms (
        id text PRIMARY KEY, kind text NOT NULL, data text NOT NULL, created text NOT NULL
    );
    CREATE INDEX idx_held_forms_created ON held_forms (created);
    """,
)


@migrations(name="0013_rendered")
def _create_rendered(db: Database) -> None:
    # Pages and fragments of a stream rendered by one server process, read by every other one
    # (``companion.store.rendered``): a cache, bounded in bytes, dropped with its stream.
    db.execute(
        "CREATE TABLE rendered ("
        " stream_id TEXT NOT NULL REFERENCES streams (id) ON DELETE CASCADE,"
        " key TEXT NOT NULL, version INTEGER NOT NULL, body TEXT NOT NULL,"
        " nbytes INTEGER NOT NULL, created TEXT NOT NULL, PRIMARY KEY (stream_id, key)) STRICT"
    )
    db.execute("CREATE INDEX idx_rendered_created ON rendered (created)")


_postgresql(
    "0013_rendered",
    """
    CREATE TABLE rendered (
        stream_id text NOT NULL REFERENCES streams (id) ON DELETE CASCADE,
        key text NOT NULL, version bigint NOT NULL, body text NOT NULL,
        nbytes bigint NOT NULL, created text NOT NULL, PRIMARY KEY (stream_id, key)
    );
    CREATE INDEX idx_rendered_created ON rendered (created);
    """,
)
