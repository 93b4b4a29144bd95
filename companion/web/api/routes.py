"""The JSON API (``/api/v1``): create chronicles, read their state and story, post commands.

A chronicle's capability token is the only credential, in the URL or as ``Authorization: Bearer``
(then the URL may carry the chronicle's id instead). No cookie authenticates anything here, so the
blueprint is exempt from CSRF protection. Every error is JSON ``{"error", "code"}``.
This module holds the blueprint, its errors and the reads; ``commands`` and ``exports`` add the
writes, as blueprints nested in this one. See ``docs/api.md``; the OpenAPI document is built in
``openapi/``.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, current_app, jsonify, request
from flask_babel import gettext as _
from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Response

from companion.base import logs
from companion.legacy import RuleError
from companion.store.capabilities import Capability
from companion.store.db import unavailable
from companion.streams import chronicles
from companion.text import json_input
from companion.web.api.openapi import document as openapi
from companion.web.api.state import state_answer, story_json
from companion.web.shell import streams
from companion.web.shell.request_log import request_id
from companion.web.shell.text_errors import rule_message, rule_status
from companion.web.shell.unavailable import database_unavailable

bp = Blueprint("api", __name__, url_prefix="/api")
log = logging.getLogger("companion.api")

HTTP_CODES = {
    400: "bad-request",
    404: "not-found",
    405: "method-not-allowed",
    413: "too-large",
    415: "unsupported-media-type",
    429: "rate-limited",
}
ANY_METHOD = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "QUERY"]
Reply = tuple[Response, int]


class ApiError(ValueError):
    """A request the API refuses: its status, stable code and a sentence for the reader."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra


def error_reply(status: int, code: str, message: str, **extra: Any) -> Reply:
    """The JSON ``{error, code, ...}`` answer with ``status``: the kit's refusal."""
    return streams.refusal_json(message, status, code, **extra)


@bp.errorhandler(ApiError)
def _api_error(err: ApiError) -> Reply:
    return error_reply(err.status, err.code, err.message, **err.extra)


@bp.errorhandler(RuleError)
def _rule_error(err: RuleError) -> Reply:
    return error_reply(rule_status(err), err.code, rule_message(err), rule=err.rule)


def _http_error(err: HTTPException) -> Reply:
    status = err.code or 500
    messages = {
        404: streams.not_found_message(),
        413: _("The request is too large."),
        429: _("Too many requests; wait a moment and try again."),
    }
    message = getattr(err, "reason", None) or messages.get(status) or err.description or err.name
    return error_reply(status, HTTP_CODES.get(status, "http-error"), message)


# By status, not only by class: the app's own 404/413 pages are registered by status and
# would otherwise answer API requests with HTML.
for _status in (*HTTP_CODES, 500):
    bp.register_error_handler(_status, _http_error)
bp.register_error_handler(HTTPException, _http_error)


@bp.before_request
def _options() -> Response | Reply | None:
    """OPTIONS names the methods an address takes (204 with Allow), or is a JSON 404."""
    if request.method != "OPTIONS":
        return None
    allowed = openapi.allowed_methods(request.path)
    if not allowed:
        return error_reply(404, "not-found", _("There is nothing at this address."))
    extra = ["HEAD"] if "GET" in allowed else []
    response = current_app.response_class(status=204)
    response.headers["Allow"] = ", ".join([*allowed, *extra, "OPTIONS"])
    return response


@bp.errorhandler(Exception)
def _server_error(err: Exception) -> Reply | Response:
    if unavailable(err):
        return database_unavailable(err)
    log.exception("API request %s %s failed", request.method, logs.request_path())
    return error_reply(
        500,
        "server-error",
        _("Something went wrong on the server; nothing was lost."),
        request_id=request_id(),
    )


def _bearer() -> str | None:
    auth = request.authorization
    if auth is not None and auth.type == "bearer" and auth.token:
        return auth.token
    return None


def open_link(segment: str) -> tuple[Capability, chronicles.Chronicle]:
    """The capability and chronicle a URL segment (or a bearer token with the id) opens; 404."""
    # Rate limiting: every token lookup goes through capability_for, which counts unknown
    # tokens per client and answers 429 to a client guessing them.
    bearer = _bearer()
    cap, chronicle = streams.open_stream(bearer or segment, chronicles.load, chronicles.KIND)
    if bearer is not None and segment not in (cap.stream_id, bearer):
        raise ApiError(404, "not-found", streams.not_found_message())
    return cap, chronicle


def _number(text: str) -> int | float:
    """A JSON number with a fraction or an exponent: a whole one (``923.0``, ``1e2``) is the
    integer it equals, as JSON Schema's "integer" (and so the OpenAPI document) counts it."""
    value = float(text)
    return int(value) if value.is_integer() and abs(value) < 2**63 else value


def json_body() -> dict[str, Any]:
    """The request's JSON object: 415 for another media type, 400 for anything but an object."""
    if not request.is_json:
        raise ApiError(
            415,
            "unsupported-media-type",
            _("Send the body as JSON, with Content-Type: application/json."),
        )
    try:
        data = json_input.loads(request.get_data(cache=True), parse_float=_number)
    except json_input.JsonInputError as err:
        raise ApiError(400, "bad-json", rule_message(err)) from None
    except ValueError:  # not JSON, or not UTF-8
        data = None
    if not isinstance(data, dict):
        raise ApiError(400, "bad-json", _("The body must be a JSON object."))
    return data


@bp.get("/openapi.json")
def openapi_document() -> Response:
    """The OpenAPI 3.1 document describing every route of this API."""
    return jsonify(openapi.document())


@bp.get("/v1/chronicles/<token>/state")
def state(token: str) -> Response:
    """The chronicle's state as this link may see it."""
    cap, chronicle = open_link(token)
    return state_answer(chronicle, cap)


@bp.get("/v1/chronicles/<token>/story")
def story(token: str) -> Response:
    """The story log."""
    _cap, chronicle = open_link(token)
    return jsonify(story_json(chronicle))


@bp.route("/<path:rest>", methods=ANY_METHOD)
def unknown(rest: str) -> Reply:
    """Any other path under /api: 405 with Allow on a known path, else 404, as JSON."""
    allowed = openapi.allowed_methods(request.path)
    if allowed:
        response, status = error_reply(
            405, "method-not-allowed", _("This method is not allowed here.")
        )
        response.headers["Allow"] = ", ".join(allowed)
        return response, status
    return error_reply(404, "not-found", _("There is nothing at this address."))
