"""The installed prompt packs: the shipped ones in ``data/`` plus the users'.

The users' packs live in the database's ``packs`` table (``companion/packs/stored.py``), so
every server of a shared store sees them; where a function takes ``user``, it is that database
connection, or a directory of pack files ``<name>.<language>.md`` (``companion packs
--user-dir``, and the folder older versions kept uploads in). Shipped packs cannot be replaced
by a user pack of the same name; a user pack that fails to parse is skipped with a warning.

``save_pack`` (the owner's ``companion packs install``) installs under the header's name.
``upload_pack`` (the web) stores each upload under the header's name plus a random suffix, so
one person's upload never replaces another's; an uploader adding the other language of a pack
they uploaded, or fixing it, keeps its name. Parsed files are cached by path, mtime and size;
stored packs by name, language and revision (``stored.py``).
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import secrets
import tempfile
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from companion.base.languages import LANGUAGES
from companion.packs.format import (
    Pack,
    PackError,
    pack_to_text,
    parse_pack,
    parse_pack_bytes,
    valid_name,
)
from companion.text.bytecache import ByteLRU, deep_size

from . import stored

__all__ = [
    "SHIPPED_DIR",
    "PackLimitError",
    "UnknownPackError",
    "get_pack",
    "list_packs",
    "pack_to_text",
    "save_pack",
    "shipped_names",
    "upload_pack",
]

SHIPPED_DIR = Path(__file__).parent / "data"
SUFFIX = ".md"
# Parsed pack files kept in memory, bounded by what they take (bytecache.deep_size).
PARSED_BYTES = 2 * 1024 * 1024
_parsed_files = ByteLRU(PARSED_BYTES)
_UPLOAD_ID = re.compile(r"-[0-9a-f]{6}")
log = logging.getLogger(__name__)


class PackLimitError(ValueError):
    """An upload refused for the number of packs: ``whose`` is "server" or "uploader"."""

    def __init__(self, message: str, whose: str) -> None:
        super().__init__(message)
        self.whose = whose


class UnknownPackError(ValueError):
    """No installed pack has this name and language."""


def shipped_names() -> frozenset[str]:
    """The names of the packs that ship with the product, which users may not take."""
    return frozenset(path.name.split(".")[0] for path in SHIPPED_DIR.glob(f"*{SUFFIX}"))


def _pack_path(directory: Path, name: str, language: str) -> Path:
    return directory / f"{name}.{language}{SUFFIX}"


def _read(path: Path) -> Pack:
    stat = path.stat()
    return _parsed(str(path), stat.st_mtime_ns, stat.st_size)


def _parsed(path: str, mtime_ns: int, size: int) -> Pack:
    """The pack in ``path``; the key's mtime and size make a changed file parse again."""
    key = (path, mtime_ns, size)
    pack = _parsed_files.get(key)
    if pack is None:
        pack = parse_pack_bytes(Path(path).read_bytes(), source=path)
        _parsed_files.put(key, pack, deep_size((key, pack)))
    return pack  # type: ignore[no-any-return]


def _read_user_pack(path: Path) -> Pack | None:
    try:
        pack = _read(path)
    except (OSError, PackError) as exc:
        log.warning("skipping the unusable pack file %s: %s", path, exc)
        return None
    if path.name != _pack_path(path.parent, pack.name, pack.language).name:
        log.warning("skipping %s: its header says %s.%s", path, pack.name, pack.language)
        return None
    return pack


def _is_folder(user: object) -> bool:
    return isinstance(user, str | Path)


def list_packs(user: Any) -> list[Pack]:
    """Every installed pack, shipped first, each group sorted by name then language."""
    shipped = [_read(path) for path in sorted(SHIPPED_DIR.glob(f"*{SUFFIX}"))]
    taken = shipped_names()
    users: list[Pack] = []
    if user is not None and not _is_folder(user):
        users = [pack for pack in stored.load_all(user) if pack.name not in taken]
    elif user is not None and Path(user).is_dir():
        paths = sorted(Path(user).glob(f"*{SUFFIX}"))
        loaded = (_read_user_pack(path) for path in paths)
        users = [pack for pack in loaded if pack is not None and pack.name not in taken]
    return shipped + users


def get_pack(name: str, language: str, user: Any = None) -> Pack:
    """The installed pack ``name`` in ``language``; raises ``UnknownPackError`` if there is none."""
    if not valid_name(name) or language not in LANGUAGES:
        raise UnknownPackError(f"no pack {name!r} in language {language!r}")
    if name in shipped_names():
        return _read(_pack_path(SHIPPED_DIR, name, language))
    pack = None
    if user is not None and not _is_folder(user):
        pack = stored.load(user, name, language)
    elif user is not None:
        path = _pack_path(Path(user), name, language)
        pack = _read_user_pack(path) if path.is_file() else None
    if pack is None:
        raise UnknownPackError(f"no pack {name!r} in language {language!r}")
    return pack


def save_pack(data: str | bytes, user: Any, source: str = "<upload>") -> Pack:
    """Validate a pack file and install it in ``user``, replacing an older version of it."""
    reserved = shipped_names()
    if isinstance(data, bytes):
        pack = parse_pack_bytes(data, source, reserved)
    else:
        pack = parse_pack(data, source, reserved)
    if not _is_folder(user):
        stored.put(user, pack.name, pack.language, pack_to_text(pack), owner=None)
        return pack
    directory = Path(user)
    directory.mkdir(parents=True, exist_ok=True)
    _write_atomically(_pack_path(directory, pack.name, pack.language), pack_to_text(pack))
    return pack


def upload_pack(
    data: bytes,
    user: Any,
    owned: Collection[str],
    *,
    max_packs: int,
    max_owned: int,
    source: str = "<upload>",
    owner: str | None = None,
) -> Pack:
    """Install an uploaded pack under a name of its own; ``owned`` names this uploader's packs.

    In the database, the checks and the write are one transaction that holds the packs' lock,
    so uploads on several servers at once never pass the limits together.
    """
    pack = parse_pack_bytes(data, source, shipped_names())
    if not _is_folder(user):
        with stored.locked(user):
            name = _name_for(pack.name, owned, max_owned, lambda n: stored.taken(user, n))
            fresh = not stored.exists(user, name, pack.language)
            if fresh and stored.count(user) >= max_packs:
                raise PackLimitError(f"{max_packs} packs are installed already", "server")
            pack = dataclasses.replace(pack, name=name)
            stored.put(user, name, pack.language, pack_to_text(pack), owner=owner)
        return pack
    directory = Path(user)
    name = _name_for(pack.name, owned, max_owned, lambda n: any(directory.glob(f"{n}.*")))
    path = _pack_path(directory, name, pack.language)
    if not path.exists() and _count_files(directory) >= max_packs:
        raise PackLimitError(f"{max_packs} packs are installed already", "server")
    pack = dataclasses.replace(pack, name=name)
    directory.mkdir(parents=True, exist_ok=True)
    _write_atomically(path, pack_to_text(pack))
    return pack


def _name_for(
    base: str, owned: Collection[str], max_owned: int, taken: Callable[[str], bool]
) -> str:
    """The uploader's own name for this pack, or a fresh one if they may upload another."""
    name = _owned_name(base, owned)
    if name is not None:
        return name
    if len(owned) >= max_owned:
        raise PackLimitError(f"this uploader has {len(owned)} packs already", "uploader")
    while True:
        name = f"{_stem(base)}-{secrets.token_hex(3)}"
        if not taken(name):
            return name


def _owned_name(base: str, owned: Collection[str]) -> str | None:
    for name in owned:
        stem, tail = name[:-7], name[-7:]
        if name == base or (_UPLOAD_ID.fullmatch(tail) and stem == _stem(base)):
            return name
    return None


def _stem(base: str) -> str:
    return base[:33].rstrip("-")


def _count_files(directory: Path) -> int:
    return sum(1 for _ in directory.glob(f"*{SUFFIX}")) if directory.is_dir() else 0


def _write_atomically(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".upload-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
