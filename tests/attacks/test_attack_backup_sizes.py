"""Instance backups that lie about their size, checked by `companion backup --verify` (the same
copy a restore makes) while `companion serve` keeps answering another client.

A zip member's header says how large it unpacks; a small zip may hold a member of gigabytes of
zeros, and the copy into the temporary folder filled the disk before the database inside was
found unusable. A member is refused before a byte of it is written when it says it unpacks to
more than any backup's file could (or than the disk has room for), and the secret key is read
only when it is a key's size. The command runs with its files capped (RLIMIT_FSIZE), so a copy
that starts fails with "File too large" instead of filling this machine's disk.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import zipfile
from pathlib import Path

from server_client import Server

from attacks.probe import answered
from companion.base import __version__
from companion.ops import archive

FILE_CAP = 40 * 1024 * 1024  # what the command may write, in any one file
BOMB = 400 * 1024 * 1024  # the member's size unpacked: zeros, about 400 KB packed


def _run(args: list[str], folder: Path, database: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "COMPANION_DATABASE": str(database),
        "COMPANION_SECRET_KEY": "proof",
        "TMPDIR": str(folder),
    }

    def cap_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_CAP, FILE_CAP))

    companion = Path(sys.executable).parent / "companion"
    return subprocess.run(
        [str(companion), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=cap_files,  # noqa: PLW1509 - the child sets its own limit, nothing else
    )


def _manifest() -> str:
    manifest = archive.new_manifest(archive.SQLITE, __version__, [], [], {})
    return json.dumps(manifest)


def test_a_member_of_zeros_is_refused_before_it_is_copied(served: Server, tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as made:
        made.writestr(archive.MANIFEST_MEMBER, _manifest())
        with made.open(archive.DATABASE_MEMBER, "w", force_zip64=True) as member:
            block = bytes(1024 * 1024)
            for _ in range(BOMB // len(block)):
                member.write(block)
    assert bomb.stat().st_size < BOMB // 200
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    answered(served.port)
    done = _run(["backup", "--verify", str(bomb)], scratch, tmp_path / "instance.sqlite3")
    answered(served.port)
    assert done.returncode != 0
    said = done.stderr + done.stdout
    assert "more than 200 times" in said, said[-2000:]
    assert "Traceback" not in said
    assert len(said.strip().splitlines()) == 1, said
    assert not [path for path in scratch.rglob("*") if path.is_file()]


def test_a_secret_key_larger_than_a_key_is_refused(served: Server, tmp_path: Path) -> None:
    good = tmp_path / "good.zip"
    made = _run(["backup", str(good)], tmp_path, served.database)
    assert made.returncode == 0, made.stderr
    lying = tmp_path / "lying.zip"
    with zipfile.ZipFile(good) as read, zipfile.ZipFile(lying, "w", zipfile.ZIP_DEFLATED) as out:
        for info in read.infolist():
            if info.filename != archive.SECRET_MEMBER:
                out.writestr(info, read.read(info))
        out.writestr(archive.SECRET_MEMBER, os.urandom(4096).hex())
    verified = _run(["backup", "--verify", str(good)], tmp_path, tmp_path / "other.sqlite3")
    assert verified.returncode == 0, verified.stderr
    answered(served.port)
    refused = _run(["backup", "--verify", str(lying)], tmp_path, tmp_path / "other.sqlite3")
    assert refused.returncode != 0, refused.stdout
    assert "secret_key has 8192 bytes" in refused.stderr, refused.stderr[-2000:]
