"""Which schema a database has, and whether this version may use it.

Every migration this code knows is in ``companion.store.migrations``; a database records those it
had applied. One that records a migration this code does not know was migrated by a newer
companion: old code writing to it would store rows the newer code does not expect (and its
backups would not restore), so ``refuse_newer`` stops every command that would open it
(``companion.store.db.init_db``, ``check_schema``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlite_utils import Database

from companion.store import pg
from companion.store.migrations import POSTGRESQL_MIGRATIONS, migrations


class SchemaTooNewError(ValueError):
    """The database was migrated by a newer companion than this one: it is not used."""


def known_migrations() -> list[str]:
    """The names of every migration this code can apply, in order (the same on both stores)."""
    return [name for name, _ddl in POSTGRESQL_MIGRATIONS]


def applied_migrations(db: Any) -> list[str]:
    """The migrations recorded in a database (sqlite3's connection, or either ``Database``)."""
    if isinstance(db, pg.Database):
        rows = db.execute(
            "SELECT 1 FROM information_schema.tables"
            " WHERE table_schema = current_schema() AND table_name = ?",
            [pg.MIGRATIONS_TABLE],
        ).fetchall()
        return pg.applied(db) if rows else []
    conn = db.conn if isinstance(db, Database) else db
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_sqlite_migrations'"
    ).fetchone()
    if not exists:
        return []
    rows = conn.execute(
        "SELECT name FROM _sqlite_migrations WHERE migration_set = ? ORDER BY rowid",
        [migrations.name],
    ).fetchall()
    return [str(row[0]) for row in rows]


def refuse_newer(applied: list[str], where: str) -> None:
    """SchemaTooNewError when ``applied`` holds a migration this code does not know.

    Old code on a newer schema would write rows the newer code does not expect (and its backups
    would not restore), so every command that opens the store asks this first."""
    from companion.base import __version__

    known = known_migrations()
    unknown = [name for name in applied if name not in known]
    if not unknown:
        return
    raise SchemaTooNewError(
        f"The database {where} has schema {len(applied)} (its changes {', '.join(unknown)}"
        f" were made by a newer companion), and companion {__version__} knows schema"
        f" {len(known)}: run the newer version again, or go back by restoring the backup taken"
        ' before the upgrade (docs/deploy.md, section 1, "Going back").'
    )


def shown(path: str | Path) -> str:
    """A database's address for a sentence: a file's path, a server's without its password."""
    import re

    return re.sub(r"//([^:/@]*):[^@]*@", r"//\1:***@", str(path))
