"""The log cleaner: tokens become public ids, controls become escapes, lines carry a request id."""

from __future__ import annotations

import io
import json
import logging
import re

import pytest

from companion.app import create_app
from companion.base.logs import Clean, clean, dress, escape, public_id, redact
from companion.store import capabilities

TOKEN = "Q3v9xY2bT0s_k-LmN4pR8wZ1aB6cD7eF"


def test_a_public_id_is_the_start_of_the_stored_hash() -> None:
    assert public_id(TOKEN) == "link-" + capabilities.hash_token(TOKEN)[:10]
    assert public_id(public_id(TOKEN)) == public_id(TOKEN)


@pytest.mark.parametrize(
    "line",
    [
        f"Exception on /c/{TOKEN}/ [GET]",
        f"GET /t/{TOKEN}/act?x=1",
        f"/api/v1/chronicles/{TOKEN}/state failed",
        f'"GET /c%2F{TOKEN}%2Fstory HTTP/1.1"',
        f"http://play.example/c/{TOKEN}",
        f"/c/%{ord(TOKEN[0]):02X}{TOKEN[1:]}/",
        # as a server that merges slashes, decodes escapes or drops dot segments reads them
        f"//c/{TOKEN}/",
        f"/c//{TOKEN}/",
        f"/%63/{TOKEN}/",
        f"/%54/{TOKEN}/",
        f"/c/./{TOKEN}/",
        f"/c/%2e/{TOKEN}/",
        f"/api//v1/chronicles/{TOKEN}/state",
        f"/%61pi/v1/%63hronicles/{TOKEN}/state",
    ],
)
def test_tokens_in_paths_are_replaced(line: str) -> None:
    cleaned = redact(line)
    assert TOKEN[1:] not in cleaned and re.search(r"link-[0-9a-f]{10}", cleaned)


def test_stream_ids_stay_and_known_tokens_go_anywhere() -> None:
    assert redact("/api/v1/chronicles/0123456789abcdef/state") == (
        "/api/v1/chronicles/0123456789abcdef/state"
    )
    assert TOKEN not in redact(f"KeyError: '{TOKEN}'", (TOKEN,))


def test_controls_bidi_and_separators_are_escaped() -> None:
    assert escape("a\nb\r\x1b[2J\x00\t\x7f\x9b") == "a\\x0ab\\x0d\\x1b[2J\\x00\\x09\\x7f\\x9b"
    assert escape("Ann\u202eevil\u2028x\u2066") == "Ann\\u202eevil\\u2028x\\u2066"
    assert escape("朱音 plain") == "朱音 plain"


def _record(msg: str, *args: object, exc: bool = False) -> logging.LogRecord:
    info = None
    if exc:
        try:
            raise ValueError(f"bad\nline /c/{TOKEN}/")
        except ValueError:
            import sys

            info = sys.exc_info()
    return logging.LogRecord("companion.x", logging.ERROR, __file__, 1, msg, args, info)


def test_a_traceback_keeps_its_lines_indented_and_cleaned() -> None:
    stream = io.StringIO()
    handler = dress(logging.StreamHandler(stream))
    handler.handle(_record("failed on %s", f"/c/{TOKEN}/\nforged", exc=True))
    text = stream.getvalue()
    lines = text.splitlines()
    assert TOKEN not in text
    assert lines[0].endswith(f"failed on /c/{public_id(TOKEN)}/\\x0aforged")
    assert all(line.startswith("    ") for line in lines[1:]) and len(lines) > 2


def test_json_lines_hold_one_object_each() -> None:
    stream = io.StringIO()
    handler = dress(logging.StreamHandler(stream), "json")
    handler.handle(_record("on %s", f"/c/{TOKEN}/", exc=True))
    (line,) = stream.getvalue().splitlines()
    data = json.loads(line)
    assert (
        data["level"] == "ERROR" and data["request_id"] == "-" and data["logger"] == "companion.x"
    )
    assert data["message"] == f"on /c/{public_id(TOKEN)}/"
    assert "ValueError" in data["exception"] and TOKEN not in line


def test_within_a_request_the_line_has_its_id_and_its_token_is_hidden() -> None:
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "DATABASE": ":memory:"})
    with app.test_request_context(
        f"/c/{TOKEN}/", headers={"Authorization": "Bearer sEcReT-bearer-1"}
    ):
        from flask import g

        g.request_id = "abcdef0123456789"
        record = _record("token %s and bearer %s", TOKEN, "sEcReT-bearer-1")
        Clean().filter(record)
    assert record.request_id == "abcdef0123456789"
    assert TOKEN not in record.getMessage() and "sEcReT" not in record.getMessage()


def test_clean_never_leaves_a_line_break() -> None:
    for char in map(chr, range(0x110000)):
        if char in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029":
            assert len(clean(f"a{char}b").splitlines()) == 1
