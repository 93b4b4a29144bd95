"""Response headers that every page gets."""

from __future__ import annotations

from flask import Flask, Response, current_app, request, session

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'; worker-src 'self'; manifest-src 'self'"
)
# Every URL under these holds a capability token, and so does what they answer.
CAPABILITY_PATHS = ("/c/", "/t/", "/api/v1/chronicles")


def _harden(response: Response) -> Response:
    if current_app.config.get("CSP_ENABLED", True):
        response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    # Capability tokens live in URLs: never send them to another site.
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    response.headers.setdefault("X-Frame-Options", "DENY")
    if request.path.startswith(CAPABILITY_PATHS) or session.accessed:
        # Links and per-browser pages (CSRF tokens, opened chronicles) stay out of every
        # cache, the browser's history cache and shared proxies alike.
        response.headers["Cache-Control"] = "no-store"
    return response


def init_app(app: Flask) -> None:
    """Register the header hook."""
    app.after_request(_harden)
