"""An Obsidian vault whose names are as long as a name may be, in four-byte characters and with
bidirectional controls, made by `companion serve`'s export workers: `unzip` unpacks it.

File systems hold 255 bytes a name; 70 characters of U+20BB7 (𠮷) are 280 bytes, so a name cut
by characters made a folder no one could create. And a file list shows a name alone, where no
isolate holds an override: the names drop the controls, as downloads do.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from server_client import SETUP, Server, request
from waiting import BOOK_ENDS

from attacks.probe import answered
from companion.text.bidi import CONTROLS

WIDE = "\U00020bb7"  # 𠮷: four bytes of UTF-8
NAME = "\u202e" + WIDE * 70  # a right-to-left override, then 280 bytes


def _vault(served: Server, token: str) -> bytes:
    path = f"/api/v1/chronicles/{token}/exports"
    status, job = request(served.port, "POST", path, {"format": "vault"})
    assert status in (200, 202), job
    deadline = time.monotonic() + BOOK_ENDS
    while job["status"] != "done":
        assert job["status"] != "failed" and time.monotonic() < deadline, job
        answered(served.port)  # the export worker never holds up another client
        time.sleep(0.2)
        status, job = request(served.port, "GET", job["status_url"])
    status, data = _get_bytes(served, str(job["file_url"]))
    assert status == 200
    return data


def _get_bytes(served: Server, path: str) -> tuple[int, bytes]:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=60)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_a_vault_of_the_longest_widest_names_unzips(served: Server, tmp_path: Path) -> None:
    keystones = [
        {"kind": kind, "name": f"\u2066{n}" + WIDE * 70}
        for n, kind in enumerate(("resource", "attachment", "creed"))
    ]
    setup = {**SETUP, "pioneer": {**SETUP["pioneer"], "name": NAME}, "keystones": keystones}
    status, body = request(served.port, "POST", "/api/v1/chronicles", setup)
    assert status == 201, body
    zipped = tmp_path / "vault.zip"
    zipped.write_bytes(_vault(served, body["host_token"]))
    unpacked = tmp_path / "unpacked"
    done = subprocess.run(
        ["unzip", "-q", str(zipped), "-d", str(unpacked)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr + done.stdout
    files = [path for path in unpacked.rglob("*") if path.is_file()]
    assert len(files) >= 3
    for path in files:
        for part in path.relative_to(unpacked).parts:
            assert len(part.encode("utf-8")) <= 255, part
            assert not CONTROLS.search(part), ascii(part)
    folder = next(unpacked.iterdir())
    assert WIDE * 40 in folder.name  # cut between two characters, not emptied
