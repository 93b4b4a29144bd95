"""The sealed session never grows past its budget: what it remembers is let go, oldest first,
until the cookie fits (the newest hot-seat holders, chronicles and messages stay)."""

from __future__ import annotations

from flask import Flask, session

from companion.web.shell.sealed_session import COOKIE_BUDGET


def test_an_overgrown_session_is_trimmed_newest_kept(app: Flask) -> None:
    with app.test_request_context("/"):
        session["csrf_token"] = "c" * 40
        session["revealed"] = {f"{n:016x}": n % 6 for n in range(400)}
        session["opened"] = [f"/c/{'x' * 32}{n:02d}/" for n in range(12)]
        session["_flashes"] = [("error", "長い知らせ。" * 40) for _ in range(3)]
        response = app.response_class("")
        app.session_interface.save_session(app, session, response)
        cookie = response.headers["Set-Cookie"].split(";")[0].split("=", 1)[1]
        assert len(cookie) <= COOKIE_BUDGET
        assert session["csrf_token"] == "c" * 40
        kept = list(session["revealed"])
        assert kept and kept[-1] == f"{399:016x}" and f"{0:016x}" not in kept
        assert session["opened"][0].endswith("00/")  # the latest opened stays first


def test_a_small_session_is_left_whole(app: Flask) -> None:
    with app.test_request_context("/"):
        session["revealed"] = {f"{n:016x}": 1 for n in range(8)}
        session["opened"] = ["/c/abc/"]
        response = app.response_class("")
        app.session_interface.save_session(app, session, response)
        assert len(session["revealed"]) == 8 and session["opened"] == ["/c/abc/"]
