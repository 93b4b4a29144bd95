"""A chronicle deleted while its book is being made: the book is not written afterwards.

The worker is held still (SIGSTOP) once it lays the book out, the chronicle is deleted as the
host's page or `companion chronicles delete` deletes it, and the worker goes on. Its book must
not appear in the exports folder: the deletion took every book of the chronicle, and a file no
row knows would wait there for a later sweep (two minutes at the least), for no one.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from waiting import BOOK_ENDS, HANG

from attacks.export_server import ask_book, in_layout, start, worker_pids
from attacks.probe import answered
from companion.ops import deletion
from companion.store.capabilities import resolve
from companion.store.db import connect
from companion.streams import chronicles

pytestmark = pytest.mark.slow  # a real server making a book


def test_a_book_of_a_chronicle_deleted_mid_layout_is_not_written(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    folder = tmp_path_factory.mktemp("deleted")
    server, lives = start(folder, COMPANION_EXPORT_WORKERS="1")
    try:
        exports = folder / "exports"
        db = connect(server.database)
        cap = resolve(db, lives.long)
        assert cap is not None
        job_id = ask_book(server, lives.long, "annotated", "a5")
        row = in_layout(server.database, job_id, BOOK_ENDS)
        worker = row["pid"]
        assert worker in worker_pids(server.database)
        os.kill(worker, signal.SIGSTOP)
        try:
            stream = deletion.find(db, cap.stream_id, [chronicles.KIND])
            assert stream is not None
            deletion.delete(db, stream, exports)
            answered(server.port)
        finally:
            os.kill(worker, signal.SIGCONT)
        deadline = time.monotonic() + HANG
        while worker in worker_pids(server.database):
            assert time.monotonic() < deadline, "the worker never ended"
            answered(server.port)
            time.sleep(0.1)
        left = [path.name for path in _files(exports) if cap.stream_id in path.name]
        assert left == [], f"a deleted chronicle's book was written: {left}"
    finally:
        server.stop()


def _files(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.is_file()] if folder.exists() else []
