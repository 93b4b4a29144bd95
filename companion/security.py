"""Response headers that every page gets."""

from __future__ import annotations

from flask import Flask, Response, current_app

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "frame-ancestors 'none'; form-action 'self'"
)


def _harden(response: Response) -> Response:
    if current_app.config.get("CSP_ENABLED", True):
        response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    # Capability tokens live in URLs: never send them to another site.
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    response.headers.setdefault("X-Frame-Options", "DENY")
    return response


def init_app(app: Flask) -> None:
    """Register the header hook."""
    app.after_request(_harden)
