"""Uploaded prompt packs in the database: one ``packs`` row per name and language.

Every server of a shared store reads the same rows, so a pack uploaded on one is usable on all.
A row keeps the pack's canonical text, who uploaded it (the browser's id; none for packs the
owner installed), its size, a version counted up at each change and a ``revision`` drawn anew
at each write. Parsed packs are cached by (name, language, revision): a changed row is parsed
again, and a row read through another connection or another database with the same revision is
the same text. The cache holds at most ``CACHED_BYTES`` of parsed packs, as measured.

Pack files found in the folder that older versions kept uploads in are imported once
(``import_folder``): a row already present wins, so running it again changes nothing.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from companion.base.languages import LANGUAGES
from companion.store.sql import write_transaction
from companion.text.bytecache import ByteLRU, deep_size

from .format import Pack, PackError, parse_pack_bytes, valid_name

CACHED_BYTES = 2 * 1024 * 1024
LOCK = "companion-packs"
SUFFIX = ".md"
log = logging.getLogger(__name__)

_cache = ByteLRU(CACHED_BYTES)


def _now() -> str:
    from companion.store.sql import now

    return now()


def _cached(key: tuple[str, str, str]) -> Pack | None:
    return _cache.get(key)  # type: ignore[no-any-return]


def _remember(key: tuple[str, str, str], pack: Pack) -> None:
    _cache.put(key, pack, deep_size((key, pack)))


def _parse(name: str, language: str, revision: str, text: str) -> Pack | None:
    """The row's pack, or None (with a warning) when its text does not make the named pack."""
    source = f"{name}.{language}{SUFFIX}"
    try:
        pack = parse_pack_bytes(text.encode("utf-8"), source=source)
    except PackError as exc:
        log.warning("skipping the unusable stored pack %s: %s", source, exc)
        return None
    if (pack.name, pack.language) != (name, language):
        log.warning("skipping %s: its header says %s.%s", source, pack.name, pack.language)
        return None
    _remember((name, language, revision), pack)
    return pack


def load_all(db: Any) -> list[Pack]:
    """Every stored pack that parses, sorted by name then language; texts read only on a miss."""
    rows = db.execute("SELECT name, language, revision FROM packs ORDER BY name, language")
    packs: list[Pack] = []
    for name, language, revision in list(rows):
        pack = _cached((name, language, revision))
        if pack is None:
            pack = _load_row(db, name, language)
        if pack is not None:
            packs.append(pack)
    return packs


def load(db: Any, name: str, language: str) -> Pack | None:
    """The stored pack ``name`` in ``language``, or None."""
    row = db.execute(
        "SELECT revision FROM packs WHERE name = ? AND language = ?", [name, language]
    ).fetchone()
    if row is None:
        return None
    return _cached((name, language, row[0])) or _load_row(db, name, language)


def _load_row(db: Any, name: str, language: str) -> Pack | None:
    row = db.execute(
        "SELECT revision, text FROM packs WHERE name = ? AND language = ?", [name, language]
    ).fetchone()
    return None if row is None else _parse(name, language, row[0], row[1])


@contextmanager
def locked(db: Any) -> Iterator[Any]:
    """A write transaction in which the packs' count and names cannot change under the caller."""
    with write_transaction(db, lock=LOCK):
        yield db


def count(db: Any) -> int:
    """How many packs (name and language) are stored."""
    return int(db.execute("SELECT count(*) FROM packs").fetchone()[0])


def taken(db: Any, name: str) -> bool:
    """Whether any language of a pack is stored under ``name``."""
    return db.execute("SELECT 1 FROM packs WHERE name = ?", [name]).fetchone() is not None


def exists(db: Any, name: str, language: str) -> bool:
    """Whether the pack ``name`` is stored in ``language``."""
    found = db.execute("SELECT 1 FROM packs WHERE name = ? AND language = ?", [name, language])
    return found.fetchone() is not None


def put(db: Any, name: str, language: str, text: str, owner: str | None) -> None:
    """Store the pack's text, replacing the one stored under its name and language.

    Inside a transaction (``locked``) it joins it; alone it is one statement, atomic by itself.
    A replaced row keeps its owner and creation time.
    """
    stamp = _now()
    db.execute(
        "INSERT INTO packs (name, language, owner, text, size, version, revision, created,"
        " updated) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)"
        " ON CONFLICT (name, language) DO UPDATE SET text = excluded.text,"
        " size = excluded.size, version = packs.version + 1, revision = excluded.revision,"
        " updated = excluded.updated",
        [name, language, owner, text, _size(text), secrets.token_hex(8), stamp, stamp],
    )


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def import_files(db: Any, files: Iterable[tuple[str, bytes]], reserved: frozenset[str]) -> int:
    """Store each ``(file name, bytes)`` pack not stored yet; how many were added.

    A file whose name is not ``<name>.<language>.md`` of its own header, that does not parse,
    or that takes a shipped pack's name is skipped with a warning: the rest still come in.
    """
    added = 0
    for filename, data in files:
        text = _importable(filename, data, reserved)
        if text is None:
            continue
        name, language = filename.split(".")[:2]
        stamp = _now()
        cursor = db.execute(
            "INSERT INTO packs (name, language, owner, text, size, version, revision, created,"
            " updated) VALUES (?, ?, NULL, ?, ?, 1, ?, ?, ?)"
            " ON CONFLICT (name, language) DO NOTHING",
            [name, language, text, _size(text), secrets.token_hex(8), stamp, stamp],
        )
        added += max(int(getattr(cursor, "rowcount", 0) or 0), 0)
    return added


def _importable(filename: str, data: bytes, reserved: frozenset[str]) -> str | None:
    from .format import pack_to_text

    name, _, rest = filename.partition(".")
    if not (valid_name(name) and rest in {f"{lang}{SUFFIX}" for lang in LANGUAGES}):
        log.warning("not importing %s: not a pack file name", filename)
        return None
    try:
        pack = parse_pack_bytes(data, source=filename, reserved=reserved)
    except PackError as exc:
        log.warning("not importing the unusable pack file %s: %s", filename, exc)
        return None
    if f"{pack.name}.{pack.language}{SUFFIX}" != filename:
        log.warning("not importing %s: its header says %s.%s", filename, pack.name, pack.language)
        return None
    return pack_to_text(pack)


def import_folder(db: Any, folder: Path | str, reserved: frozenset[str]) -> int:
    """Import the pack files of ``folder`` (uploads of older versions); how many were added."""
    directory = Path(folder)
    if not directory.is_dir():
        return 0
    paths = sorted(p for p in directory.glob(f"*{SUFFIX}") if p.is_file())
    files = ((path.name, path.read_bytes()) for path in paths)
    added = import_files(db, files, reserved)
    if added:
        log.info("imported %d pack files from %s into the database", added, directory)
    return added
