"""The sealed session never grows past its budget: what it remembers is let go, oldest first,
until the cookie fits (the newest hot-seat holders, chronicles and messages stay)."""

from __future__ import annotations

from flask import Flask, session

from companion.web.shell.sealed_session import COOKIE_BUDGET
from companion.web.tables.view import REMEMBERED_TABLES, _device_holder, hold_device


def test_an_overgrown_session_is_trimmed_newest_kept(app: Flask) -> None:
    with app.test_request_context("/"):
        session["csrf_token"] = "c" * 40
        session["revealed"] = [[f"{n:016x}", n % 6] for n in range(400)]
        session["opened"] = [f"/c/{'x' * 32}{n:02d}/" for n in range(12)]
        session["_flashes"] = [("error", "長い知らせ。" * 40) for _ in range(3)]
        response = app.response_class("")
        app.session_interface.save_session(app, session, response)
        cookie = response.headers["Set-Cookie"].split(";")[0].split("=", 1)[1]
        assert len(cookie) <= COOKIE_BUDGET
        assert session["csrf_token"] == "c" * 40
        kept = [table for table, _ in session["revealed"]]
        assert kept and kept[-1] == f"{399:016x}" and f"{0:016x}" not in kept
        assert session["opened"][0].endswith("00/")  # the latest opened stays first


def test_a_small_session_is_left_whole(app: Flask) -> None:
    with app.test_request_context("/"):
        session["revealed"] = [[f"{n:016x}", 1] for n in range(8)]
        session["opened"] = ["/c/abc/"]
        response = app.response_class("")
        app.session_interface.save_session(app, session, response)
        assert len(session["revealed"]) == 8 and session["opened"] == ["/c/abc/"]


class _Table:
    """What ``_device_holder`` reads of a match: its id and version."""

    def __init__(self, match_id: str) -> None:
        self.id, self.version = match_id, 1


def _held_through_cookies(app: Flask, tables: list[str]) -> dict[str, int | None]:
    """Hold each table's device in turn, one request each, the session going out as a cookie
    and coming back with the next request; then who holds each, as the last request reads it."""
    cookie = ""
    for seat, table in enumerate(tables):
        headers = {"Cookie": f"session={cookie}"} if cookie else {}
        with app.test_request_context("/", headers=headers):
            hold_device(table, seat)
            response = app.response_class("")
            app.session_interface.save_session(app, session, response)
            cookie = response.headers["Set-Cookie"].split(";")[0].split("=", 1)[1]
    with app.test_request_context("/", headers={"Cookie": f"session={cookie}"}):
        return {table: _device_holder(_Table(table))[0] for table in tables}  # type: ignore[arg-type]


def test_the_newest_tables_are_remembered_whatever_their_names(app: Flask) -> None:
    # Each table named so that it sorts before every one held earlier.
    tables = [f"{n:016x}" for n in range(REMEMBERED_TABLES + 4, 0, -1)]
    held = _held_through_cookies(app, tables)
    newest, oldest = tables[-REMEMBERED_TABLES:], tables[:-REMEMBERED_TABLES]
    assert [held[table] for table in newest] == [tables.index(t) for t in newest]
    assert [held[table] for table in oldest] == [None] * len(oldest)


def test_a_cookie_from_before_keeps_its_holders(app: Flask) -> None:
    with app.test_request_context("/"):
        session["revealed"] = {"b" * 16: 1, "a" * 16: [0, 3]}
        assert _device_holder(_Table("b" * 16))[0] == 1  # type: ignore[arg-type]
        assert _device_holder(_Table("a" * 16)) == (0, False)  # type: ignore[arg-type]
        hold_device("c" * 16, 2)
        assert [table for table, _ in session["revealed"]] == ["b" * 16, "a" * 16, "c" * 16]
