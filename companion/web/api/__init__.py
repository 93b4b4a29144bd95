"""The JSON API (``/api``): ``bp`` holds the reads (from ``routes``) with the commands and the
exports nested in it (``api.commands.*``, ``api.exports.*``); ``openapi`` describes it all.

The API authenticates by the capability token in its URL or Authorization header, never by a
cookie, so a cross-site form cannot act through it: ``BLUEPRINTS`` are exempt from CSRF tokens.
"""

from __future__ import annotations

from companion.web.api import commands, exports, routes

bp = routes.bp
bp.register_blueprint(commands.bp)
bp.register_blueprint(exports.bp)
BLUEPRINTS = (bp, commands.bp, exports.bp)

__all__ = ["BLUEPRINTS", "bp"]
