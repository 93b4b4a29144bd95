"""Response headers that every page gets."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from flask import Flask, Response, current_app, render_template, request, session
from flask.typing import ResponseReturnValue
from werkzeug.wrappers import Response as WerkzeugResponse

from companion.text import input_text
from companion.web.shell.sealed_session import opened_session
from companion.web.shell.streams import refusal_json, wants_json
from companion.web.shell.text_errors import rule_message

# What sends a refused form back to its page with its words kept (post/redirect/get), given by
# the web package at start-up: the forms belong to the pages above this shell.
SendBack = Callable[[str], WerkzeugResponse | None]

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'; worker-src 'self'; manifest-src 'self'"
)
# Every URL under these holds a capability token, and so does what they answer.
CAPABILITY_PATHS = ("/c/", "/t/", "/api/v1/chronicles")


def hardening(config: Mapping[str, Any], private: bool) -> list[tuple[str, str]]:
    """The headers every answer gets; ``private`` for one under a link or for one browser."""
    headers = [("Content-Security-Policy", CSP)] if config.get("CSP_ENABLED", True) else []
    headers += [
        ("X-Content-Type-Options", "nosniff"),
        # Capability tokens live in URLs: never send them to another site.
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
    ]
    if private:
        # Links and per-browser pages (CSRF tokens, opened chronicles) stay out of every
        # cache, the browser's history cache and shared proxies alike.
        headers.append(("Cache-Control", "no-store"))
    return headers


def private_answer(response: Response) -> bool:
    """Whether ``response`` belongs to one browser, judged by what its request really did:
    it is under a link, it sets a cookie, it changed the session, or it read a session the
    browser sent. (Flask's ``session.accessed`` is set by merely looking at the session, its
    own ``accessed`` included; an empty session read gives every browser the same answer.)"""
    if request.path.startswith(CAPABILITY_PATHS) or "Set-Cookie" in response.headers:
        return True
    opened = opened_session(request.environ)
    if opened is None:  # a session interface of another kind: whatever was looked at
        return bool(session.accessed)
    if opened.modified:
        return True
    cookie = current_app.config.get("SESSION_COOKIE_NAME", "session")
    return opened.read and cookie in request.cookies


def _harden(response: Response) -> Response:
    private = private_answer(response)
    for name, value in hardening(current_app.config, private):
        if name == "Cache-Control":
            response.headers[name] = value
        else:
            response.headers.setdefault(name, value)
    return response


FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def _refuse_bad_characters() -> ResponseReturnValue | None:
    """400 for a form that holds a character no text may hold (``companion.text.input_text``).

    One check for every form, before any view reads it; JSON bodies are checked as they are
    parsed (``companion.text.json_input``), uploaded files by the importer that reads them.
    """
    if request.method not in ("POST", "PUT", "PATCH") or request.mimetype not in FORM_TYPES:
        return None
    try:
        input_text.check_all(request.form.keys())
        input_text.check_all(request.form.listvalues())
    except input_text.BadCharacterError as err:
        message = rule_message(err)
        if wants_json() or "api" in request.blueprints:
            return refusal_json(message, 400, err.code)
        # A page's form is sent back to its page (post/redirect/get), its words kept.
        send_back: SendBack = current_app.extensions["companion.send_back"]
        return send_back(message) or (render_template("errors/400.html", problem=message), 400)
    return None


def init_app(app: Flask, send_back: SendBack) -> None:
    """Register the header hook and the check of every form's characters, whose refusal
    ``send_back`` returns to the form's page."""
    app.extensions["companion.send_back"] = send_back
    app.after_request(_harden)
    app.before_request(_refuse_bad_characters)
