"""A backup's members read or copied only at the sizes they may have: a zip member's header
says how large it unpacks, and a small zip may hold gigabytes of zeros. A member that says more
than any backup's file could, or more than the disk has room for, is refused unread."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path


class ArchiveError(ValueError):
    """A backup that cannot be written or restored, with the reason in a sentence."""


MAX_PACKS = 1000  # pack files in one backup (older versions kept them as files)
MAX_MANIFEST_BYTES = 1024 * 1024  # a manifest is a few kilobytes
MAX_SECRET_BYTES = 1024  # the instance's secret key is 64 characters or so
# What a backup's member may unpack to, at most, for each byte it takes in the zip: a database
# compresses about 3 to 30 times, zeros about 1,000 times (deflate's own limit). A member that
# says it is larger than that is a trap (or damaged), refused before a byte of it is written.
MAX_RATIO = 200
# Room a copy leaves on its disk: a member that would not leave it is refused before copying.
FREE_MARGIN = 64 * 1024 * 1024


def copy_member(archive: zipfile.ZipFile, name: str, target: Path) -> None:
    """Copy the member ``name`` to the file ``target``, once its declared size is believable
    and fits on the disk with room to spare; ArchiveError (nothing written) otherwise."""
    info = archive.getinfo(name)
    _believable(info)
    free = shutil.disk_usage(target.parent).free
    if info.file_size + FREE_MARGIN > free:
        raise ArchiveError(
            f"The backup's {name} takes {_megabytes(info.file_size)} unpacked, and only"
            f" {_megabytes(free)} are free where it would be copied ({target.parent}):"
            " make room first."
        )
    with archive.open(name) as read, target.open("wb") as written:
        shutil.copyfileobj(read, written)


def read_member(archive: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """The member ``name`` read into memory, refused unread when it says it is over ``limit``
    bytes (the reader stops at the size a member declares, so it reads no more)."""
    info = archive.getinfo(name)
    if info.file_size > limit:
        raise ArchiveError(
            f"The backup's {name} has {info.file_size} bytes; a backup's has at most {limit}."
        )
    _believable(info)
    return archive.read(name)


def _believable(info: zipfile.ZipInfo) -> None:
    """Refuse a member that says it unpacks to more than any real file of a backup could."""
    packed = max(info.compress_size, 1)
    stored = info.compress_type == zipfile.ZIP_STORED
    if info.file_size > (packed if stored else packed * MAX_RATIO) and info.file_size > 4096:
        raise ArchiveError(
            f"The backup's {info.filename} says it unpacks from {_megabytes(packed)} to"
            f" {_megabytes(info.file_size)}, more than {MAX_RATIO} times: no companion backup"
            " holds such a file, so it is not restored."
        )


def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):,.1f} MB"
