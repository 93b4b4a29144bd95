"""A full exports disk under a real `companion serve`: the exports folder is a tiny tmpfs of the
server's own (a mount namespace of its own, through `unshare`), filled to the last byte. The book
fails and leaves no part of itself on the disk, /healthz says the folder is full with the room
left (not that a live supervisor is stale), and once room is made the next book is made."""

from __future__ import annotations

import errno
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_client import Server, request
from waiting import BOOK_ENDS, HANG

from attacks.export_server import Lives, ask_book, prepare, wait_until_over


def namespaces_work() -> bool:
    try:
        done = subprocess.run(["unshare", "-rm", "true"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


pytestmark = [
    pytest.mark.slow,  # a real server making books on a disk of its own
    pytest.mark.skipif(not namespaces_work(), reason="unshare cannot make a mount namespace here"),
]
MOUNT = 'mount -t tmpfs -o size=4m tmpfs "$0" && exec "$@"'


@pytest.fixture
def tiny(tmp_path: Path) -> Iterator[tuple[Server, Lives, Path]]:
    database = tmp_path / "disk.sqlite3"
    lives = prepare(database)
    exports = tmp_path / "exports"
    exports.mkdir()
    wrapper = ["unshare", "-rm", "sh", "-c", MOUNT, str(exports)]
    env = {"COMPANION_EXPORT_WORKERS": "1", "COMPANION_EXPORTS_DIR": str(exports)}
    server = Server(database, env=env, wrapper=wrapper).start()
    assert server.process is not None
    # The server's own view of the folder: its tmpfs, not the folder this process sees.
    seen = Path(f"/proc/{server.process.pid}/root") / str(exports).lstrip("/")
    try:
        yield server, lives, seen
    finally:
        server.stop()


def fill(folder: Path) -> Path:
    """Write a file until the disk has no room left."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as out:
        try:
            while out.write(b"\0" * 4096):
                pass
        except OSError as err:
            assert err.errno == errno.ENOSPC, err
    return filler


def health(server: Server) -> tuple[int, dict[str, object]]:
    status, body = request(server.port, "GET", "/healthz")
    return status, body


def test_a_full_exports_disk_is_said_as_such_and_does_not_stay_full(
    tiny: tuple[Server, Lives, Path],
) -> None:
    server, lives, folder = tiny
    assert health(server)[0] == 200
    filler = fill(folder)
    status, body = health(server)
    assert status == 503 and body["export_worker"] == "exports folder full", body
    assert isinstance(body["exports_free_bytes"], int) and body["exports_free_bytes"] < 1 << 20

    job_id = ask_book(server, lives.short, "story", "a6")
    failed = wait_until_over(server, lives.short, job_id, BOOK_ENDS)
    assert failed["status"] == "failed", failed
    assert "exports folder is full" in failed["message"], failed
    assert list(folder.glob("*.part")) == [], sorted(p.name for p in folder.iterdir())

    filler.unlink()
    deadline = time.monotonic() + HANG
    while (answer := health(server))[0] != 200:  # the supervisor lived on all along
        assert time.monotonic() < deadline, answer
        time.sleep(0.5)
    assert answer[1]["export_worker"] == "alive"
    again = ask_book(server, lives.short, "story", "a6")
    assert again == job_id
    made = wait_until_over(server, lives.short, again, BOOK_ENDS)
    assert made["status"] == "done", made
    assert list(folder.glob("*.part")) == []
