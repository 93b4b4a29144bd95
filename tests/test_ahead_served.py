"""Pages made ahead through the real server (`companion serve`, gunicorn and gevent): once a
command through the API is answered, the page its table asked is already kept in the store at the
new version, in the table's language, with no link in it; and the state the command answered is
what the next ask of it gets."""

from __future__ import annotations

import http.client
import json
import random
import sqlite3
from pathlib import Path

from server_client import SETUP, Server, next_command, request


def _page(port: int, path: str) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path, headers={"Accept-Language": "ja"})
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8")
    finally:
        connection.close()


def test_a_command_s_answer_comes_once_its_table_s_pages_are_kept(tmp_path: Path) -> None:
    server = Server(tmp_path / "ahead.sqlite3", options=["--workers", "1"]).start()
    try:
        status, created = request(
            server.port, "POST", "/api/v1/chronicles", {**SETUP, "language": "ja"}
        )
        assert status == 201, created
        token = created["host_token"]
        status, page = _page(server.port, f"/c/{token}/")
        assert status == 200 and 'lang="ja"' in page
        _status, state = request(server.port, "GET", f"/api/v1/chronicles/{token}/state")
        command = {"version": state["version"], "command": next_command(state, random.Random(5))}
        status, answer = request(
            server.port, "POST", f"/api/v1/chronicles/{token}/commands", command
        )
        assert status == 200 and answer["version"] == state["version"] + 1
        with sqlite3.connect(server.database) as db:
            bodies = [
                body
                for (body,) in db.execute(
                    "SELECT body FROM rendered WHERE stream_id = ? AND version = ?",
                    [created["id"], answer["version"]],
                )
            ]
        assert bodies, "no page of the new version was kept before the command answered"
        texts = ["".join(p for p in json.loads(body) if isinstance(p, str)) for body in bodies]
        assert any('<html lang="ja">' in text for text in texts)
        assert all(token not in text for text in texts)
        _status, again = request(server.port, "GET", f"/api/v1/chronicles/{token}/state")
        assert again == answer
        status, page = _page(server.port, f"/c/{token}/")
        assert status == 200 and f'data-version="{answer["version"]}"' in page
    finally:
        server.stop()
