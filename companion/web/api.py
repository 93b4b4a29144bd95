"""The JSON API (``/api/v1``): create chronicles, read their state and story, post commands.

A chronicle's capability token is the only credential, in the URL or as ``Authorization: Bearer``
(then the URL may carry the chronicle's id instead). No cookie authenticates anything here, so the
blueprint is exempt from CSRF protection. Every error is JSON ``{"error", "code"}``.
See ``docs/api.md``; the OpenAPI document is ``openapi.py``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, jsonify, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from werkzeug.exceptions import HTTPException
from werkzeug.wrappers import Response

from .. import chronicles, drafts, json_input, ratelimit
from ..capabilities import Capability, resolve
from ..db import get_db, unavailable
from ..export import (
    DEFAULT_EDITION,
    DEFAULT_PAPER,
    DEFAULT_THICKNESS_MM,
    EDITIONS,
    FORMATS,
    PAPERS,
    THICKNESS_RANGE_MM,
    jobs,
)
from ..export import vertical as vertical_book
from ..export.backup import export_backup, may_back_up
from ..export.contents import EditionError
from ..export.editions import check, layouts_for, parse_layout
from ..export.markdown import story_markdown
from ..legacy import RuleError, command_from_dict
from ..legacy.commands import Command
from ..legacy.setup import KINDS, MAX_PER_KIND, MAX_PLAYERS, placeholder_keystones
from ..packs.registry import list_packs
from ..store import StaleVersionError, UnknownStreamError
from . import export_view, openapi
from .access import capability_for, require_write
from .api_state import export_file_json, export_job_json, state_json, story_json
from .downloads import download
from .narrate import MAX_LISTED, describe
from .setup_form import SetupForm, check_form
from .text_errors import rule_message, rule_status
from .unavailable import database_unavailable
from .undo_view import undo_seat

bp = Blueprint("api", __name__, url_prefix="/api")
log = logging.getLogger("companion.api")
MAX_BATCH = 50
HTTP_CODES = {
    400: "bad-request",
    404: "not-found",
    405: "method-not-allowed",
    413: "too-large",
    415: "unsupported-media-type",
    429: "rate-limited",
}
SETUP_FIELDS = {
    "pioneer",
    "players",
    "oldest",
    "keystones",
    "language",
    "mode",
    "pack",
    "forgiving_undo",
    "lines",
    "veils",
}
# Events a stale client need not be told about: corrections and the chronicle's own start.
QUIET_EVENTS = ("text-revised", "chronicle-started", "piles-shuffled")
Reply = tuple[Response, int]


class ApiError(ValueError):
    """A request the API refuses: its status, stable code and a sentence for the reader."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra


def _error(status: int, code: str, message: str, **extra: Any) -> Reply:
    return jsonify(error=message, code=code, **extra), status


@bp.errorhandler(ApiError)
def _api_error(err: ApiError) -> Reply:
    return _error(err.status, err.code, err.message, **err.extra)


@bp.errorhandler(RuleError)
def _rule_error(err: RuleError) -> Reply:
    return _error(rule_status(err), err.code, rule_message(err), rule=err.rule)


def _http_error(err: HTTPException) -> Reply:
    status = err.code or 500
    messages = {
        404: _("No chronicle answers to this link."),
        413: _("The request is too large."),
        429: _("Too many requests; wait a moment and try again."),
    }
    message = messages.get(status) or err.description or err.name
    return _error(status, HTTP_CODES.get(status, "http-error"), message)


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
        return _error(404, "not-found", _("There is nothing at this address."))
    extra = ["HEAD"] if "GET" in allowed else []
    response = current_app.response_class(status=204)
    response.headers["Allow"] = ", ".join([*allowed, *extra, "OPTIONS"])
    return response


@bp.errorhandler(Exception)
def _server_error(err: Exception) -> Reply | Response:
    if unavailable(err):
        return database_unavailable(err)
    log.exception("API request %s %s failed", request.method, request.path)
    return _error(500, "server-error", _("Something went wrong on the server; nothing was lost."))


def _bearer() -> str | None:
    auth = request.authorization
    if auth is not None and auth.type == "bearer" and auth.token:
        return auth.token
    return None


def _open(segment: str) -> tuple[Capability, chronicles.Chronicle]:
    """The capability and chronicle a URL segment (or a bearer token with the id) opens; 404."""
    # Rate limiting: every token lookup goes through capability_for, which counts unknown
    # tokens per client and answers 429 to a client guessing them.
    bearer = _bearer()
    cap = capability_for(bearer or segment, chronicles.KIND)
    if bearer is not None and segment not in (cap.stream_id, bearer):
        raise ApiError(404, "not-found", _("No chronicle answers to this link."))
    try:
        return cap, chronicles.load(get_db(), cap.stream_id)
    except UnknownStreamError:
        raise ApiError(404, "not-found", _("No chronicle answers to this link.")) from None


def _body() -> dict[str, Any]:
    """The request's JSON object: 415 for another media type, 400 for anything but an object."""
    if not request.is_json:
        raise ApiError(
            415,
            "unsupported-media-type",
            _("Send the body as JSON, with Content-Type: application/json."),
        )
    try:
        data = json_input.loads(request.get_data(cache=True))
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


@bp.post("/v1/chronicles")
def create_chronicle() -> Reply:
    """Start a chronicle from a JSON setup; the tokens are in this answer only."""
    # Rate limiting: creation writes a chronicle and two tokens, limited per client like /new.
    ratelimit.check_creation()
    values, rows = _setup_values(_body())
    sheet = SetupForm(values)
    setup = check_form(sheet, list_packs(current_app.config["PACKS_DIR"]))
    if setup is None:
        fields = {_api_field(name, rows): message for name, message in sheet.errors.items()}
        raise ApiError(400, "bad-setup", next(iter(fields.values())), fields=fields)
    created = chronicles.create(get_db(), setup)
    cap = resolve(get_db(), created.host_token)
    assert cap is not None
    return jsonify(_created_json(created, cap)), 201


def _created_json(created: chronicles.Created, cap: Capability) -> dict[str, Any]:
    def page(token: str) -> str:
        return url_for("chronicle.play", token=token, _external=True)

    return {
        "id": created.id,
        "host_token": created.host_token,
        "reader_token": created.reader_token,
        "links": {
            "host": page(created.host_token),
            "reader": page(created.reader_token),
            "api": url_for("api.state", token=created.host_token, _external=True),
        },
        "state": state_json(chronicles.load(get_db(), created.id), cap),
    }


def _bad(field: str, message: str) -> ApiError:
    return ApiError(400, "bad-setup", message, fields={field: message})


def _typed(data: Mapping[str, Any], name: str, kind: type, default: Any, where: str = "") -> Any:
    """``data[name]`` (or ``default``) if it has the JSON type ``kind``; 400 otherwise."""
    value = data.get(name, default)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        label = {str: _("a text"), int: _("a whole number"), bool: _("true or false")}[kind]
        raise _bad(where or name, _("%(field)s must be %(kind)s.", field=where or name, kind=label))
    return value


def _setup_values(body: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, list[int]]]:
    """The JSON setup as the setup form's values, every type checked (the form checks the rest).

    Also returns, per keystone kind, the index in ``keystones`` of each of the form's rows.
    """
    unknown = sorted(set(body) - SETUP_FIELDS)
    if unknown:
        raise _bad(unknown[0], _("Unknown field %(field)r.", field=unknown[0]))
    pioneer = body.get("pioneer")
    if not isinstance(pioneer, dict) or set(pioneer) - {"name", "people", "concept"}:
        raise _bad("pioneer", _("pioneer must be an object with name, people and concept."))
    values: dict[str, Any] = {
        "pioneer": _typed(pioneer, "name", str, "", "pioneer.name"),
        "people": _typed(pioneer, "people", str, "", "pioneer.people"),
        "concept": _typed(pioneer, "concept", str, "", "pioneer.concept"),
        "players": _players(body.get("players")),
        "oldest": _typed(body, "oldest", int, 0),
        "language": _typed(body, "language", str, str(get_locale() or "en")),
        "mode": _typed(body, "mode", str, "digital"),
        "pack": _typed(body, "pack", str, "standard"),
        "lines": _typed(body, "lines", str, ""),
        "veils": _typed(body, "veils", str, ""),
        "forgiving_undo": _typed(body, "forgiving_undo", bool, False),
    }
    default = [{"kind": k.kind, "name": k.name} for k in placeholder_keystones()]
    rows, where = _keystone_rows(body.get("keystones", default))
    return {**values, **rows}, where


def _players(value: Any) -> list[str]:
    names_ok = isinstance(value, list) and all(isinstance(name, str) for name in value)
    if not names_ok or not 1 <= len(value) <= MAX_PLAYERS:
        raise _bad("players", _("players must be a list of 1 to 8 names."))
    if not all(name.strip() for name in value):
        raise _bad("players", _("Every player needs a name."))
    return list(value)


def _keystone_rows(value: Any) -> tuple[dict[str, list[dict[str, str]]], dict[str, list[int]]]:
    """Keystones as the form's rows per kind (default: 3 placeholders per kind, rule D1)."""
    if not isinstance(value, list):
        raise _bad("keystones", _("keystones must be a list."))
    rows: dict[str, list[dict[str, str]]] = {kind: [] for kind in KINDS}
    where: dict[str, list[int]] = {kind: [] for kind in KINDS}
    for n, item in enumerate(value):
        field = f"keystones[{n}]"
        if not isinstance(item, dict) or item.get("kind") not in KINDS:
            raise _bad(field, _("A keystone needs a kind: resource, attachment or creed."))
        if set(item) - {"kind", "name", "description"}:
            raise _bad(field, _("A keystone has a kind, a name and a description only."))
        name = _typed(item, "name", str, "", f"{field}.name")
        if not name.strip():
            raise _bad(field, _("Every keystone needs a name."))
        description = _typed(item, "description", str, "", f"{field}.description")
        rows[item["kind"]].append({"name": name, "description": description})
        where[item["kind"]].append(n)
    for kind in KINDS:
        if len(rows[kind]) > MAX_PER_KIND:
            message = _("At most %(n)d keystones of one kind.", n=MAX_PER_KIND)
            raise _bad(f"keystones[{where[kind][MAX_PER_KIND]}]", message)
    return rows, where


def _api_field(name: str, rows: Mapping[str, list[int]]) -> str:
    """A setup form field's name as the JSON body's (``resource-1`` is ``keystones[n]``)."""
    renamed = {"pioneer": "pioneer.name", "people": "pioneer.people", "concept": "pioneer.concept"}
    kind, _sep, index = name.partition("-")
    if kind in rows and index.isdigit() and int(index) < len(rows[kind]):
        return f"keystones[{rows[kind][int(index)]}]"
    return renamed.get(name, name)


@bp.get("/v1/chronicles/<token>/state")
def state(token: str) -> Response:
    """The chronicle's state as this link may see it."""
    cap, chronicle = _open(token)
    return jsonify(state_json(chronicle, cap))


@bp.get("/v1/chronicles/<token>/story")
def story(token: str) -> Response:
    """The story log."""
    _cap, chronicle = _open(token)
    return jsonify(story_json(chronicle))


@bp.post("/v1/chronicles/<token>/commands")
def commands(token: str) -> Response | Reply:
    """Apply the commands at the version sent, all or none."""
    cap, chronicle = _open(token)
    require_write(cap)
    body = _body()
    version = _version(body)
    batch = _command_dicts(body)
    if version != chronicle.version:
        return _stale(chronicle, version, cap)
    issued = [_command(data, cap, chronicle) for data in batch]
    try:
        updated = chronicles.execute(get_db(), chronicle, issued)
    except StaleVersionError:
        return _stale(chronicles.load(get_db(), chronicle.id), chronicle.version, cap)
    drafts.restore_undone(get_db(), updated.id, updated.state)  # an undo's texts come back
    return jsonify(state_json(updated, cap))


def _stale(chronicle: chronicles.Chronicle, version: int, cap: Capability) -> Reply:
    return _error(
        409,
        "stale-version",
        _since(chronicle, version),
        version=chronicle.version,
        state=state_json(chronicle, cap),
    )


def _since(chronicle: chronicles.Chronicle, version: int) -> str:
    """What happened after ``version``, in words, and that nothing was changed."""
    newer = [
        record.event
        for record in chronicle.state.records()
        if record.seq > version and record.event.kind not in QUIET_EVENTS
    ]
    shown = [describe(event, chronicle) for event in newer[-MAX_LISTED:]]
    return " ".join(
        [
            *shown,
            _(
                "The chronicle is at version %(current)d, not %(sent)d: nothing was changed. This answer holds the current state; choose again.",
                current=chronicle.version,
                sent=version,
            ),
        ]
    )


def _version(body: Mapping[str, Any]) -> int:
    version = body.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise ApiError(
            400,
            "version-required",
            _("Send the version of the state the command was chosen on."),
        )
    return version


def _command_dicts(body: Mapping[str, Any]) -> list[dict[str, Any]]:
    unknown = sorted(set(body) - {"version", "command", "commands"})
    if unknown:
        raise ApiError(400, "bad-command", _("Unknown field %(field)r.", field=unknown[0]))
    if ("command" in body) == ("commands" in body):
        raise ApiError(400, "bad-command", _("Send either command or commands."))
    batch = body["commands"] if "commands" in body else [body["command"]]
    if not isinstance(batch, list) or not 1 <= len(batch) <= MAX_BATCH:
        raise ApiError(
            400, "bad-command", _("commands must be a list of 1 to %(n)d commands.", n=MAX_BATCH)
        )
    if not all(isinstance(item, dict) for item in batch):
        raise ApiError(400, "bad-command", _("Each command must be a JSON object."))
    return batch


def _command(data: Mapping[str, Any], cap: Capability, chronicle: chronicles.Chronicle) -> Command:
    """The command for the link's seat; the host's for the seat given, else whose turn it is."""
    fields = dict(data)
    if cap.role == "seat":
        if "seat" in fields and fields["seat"] != cap.seat:
            raise ApiError(
                400, "not-your-seat", _("This link acts for its own seat only."), rule="4.11"
            )
        fields["seat"] = cap.seat
    elif fields.get("type") == "undo":
        fields.setdefault("seat", undo_seat(cap, chronicle.state))  # the host undoes for its maker
    else:
        fields.setdefault("seat", chronicle.state.seat)
    return command_from_dict(fields)


@bp.post("/v1/chronicles/<token>/exports")
def request_export(token: str) -> Reply:
    """Markdown and the JSON backup at once; a book (PDF or EPUB) as jobs made by a worker."""
    cap, chronicle = _open(token)
    body = _body()
    fmt, edition, paper = _export_choice(body)
    options = _book_options(body)
    if fmt in ("pdf", "epub"):
        return _request_books(token, chronicle, fmt, edition, paper, options)
    if fmt == "json" and not may_back_up(cap.role, chronicle.state):
        message = _("Only the host's link may take a backup while the piles hold hidden cards.")
        raise ApiError(404, "host-only", message)
    content = (
        story_markdown(chronicle.state, edition)
        if fmt == "md"
        else export_backup(get_db(), chronicle.id)
    )
    return jsonify(export_file_json(chronicle, fmt, edition, content)), 200


def _request_books(
    token: str, chronicle: Any, fmt: str, edition: str, paper: str, options: tuple[Any, ...]
) -> Reply:
    """Queue the book's jobs (the print shop's body and cover are two); answer with the first."""
    try:
        layouts = layouts_for(fmt, *options)
        for layout in layouts:
            check(chronicle.state, layout)
    except EditionError:
        raise ApiError(
            400, "bad-export", _("This kind of book cannot be made of this chronicle.")
        ) from None
    if "vertical" in layouts and vertical_book.chromium_path() is None:
        raise ApiError(400, "chromium-missing", export_view.chromium_missing())
    requested = [
        jobs.request_book(
            get_db(), _exports_dir(), chronicle.id, chronicle.version, edition, paper, layout
        )
        for layout in layouts
    ]
    if any(needed for _job, needed in requested):
        _ensure_worker()
    first = export_job_json(token, requested[0][0])
    if len(requested) > 1:
        first["cover"] = export_job_json(token, requested[1][0])
    done = all(job.status == "done" for job, _needed in requested)
    return jsonify(first), 200 if done else 202


def _book_options(body: Mapping[str, Any]) -> tuple[bool, bool, float]:
    print_shop, vertical = body.get("print_shop", False), body.get("vertical", False)
    thickness = body.get("paper_thickness", DEFAULT_THICKNESS_MM)
    if not isinstance(print_shop, bool) or not isinstance(vertical, bool):
        raise ApiError(400, "bad-export", _("print_shop and vertical are true or false."))
    low, high = THICKNESS_RANGE_MM
    if isinstance(thickness, bool) or not isinstance(thickness, int | float):
        raise ApiError(400, "bad-export", _("paper_thickness is a number of millimetres."))
    if not low <= thickness <= high:
        message = _("A paper is %(low)s to %(high)s mm thick.", low=low, high=high)
        raise ApiError(400, "bad-export", message)
    return print_shop, vertical, float(thickness)


def _ensure_worker() -> None:
    # The export pages' own rule: asking for a book may start the app's one supervisor.
    export_view._ensure_worker()


def _exports_dir() -> Path:
    return Path(current_app.config["EXPORTS_DIR"])


def _export_choice(body: Mapping[str, Any]) -> tuple[str, str, str]:
    unknown = sorted(set(body) - EXPORT_FIELDS)
    choice = (
        body.get("format"),
        body.get("edition", DEFAULT_EDITION),
        body.get("paper", DEFAULT_PAPER),
    )
    if unknown or choice[0] not in FORMATS or choice[1] not in EDITIONS or choice[2] not in PAPERS:
        message = _(
            "Choose a format (pdf, epub, md or json), an edition (story or annotated) and a paper (a5, a4, b6, a6 or shinsho)."
        )
        raise ApiError(400, "bad-export", message)
    return choice  # type: ignore[return-value]


@bp.get("/v1/chronicles/<token>/exports/<job>")
def export_status(token: str, job: str) -> Response:
    """A book's progress, and its download address once made."""
    return jsonify(export_job_json(token, _job(token, job)))


@bp.get("/v1/chronicles/<token>/exports/<job>/file")
def export_file(token: str, job: str) -> Response:
    """The finished book (PDF or EPUB); 404 until it is made."""
    made, chronicle = _job_of(token, job)
    path = _exports_dir() / made.filename
    if made.status != "done" or not path.is_file():
        raise ApiError(404, "not-ready", _("The book is not made yet."))
    layout = parse_layout(made.layout)
    name = export_view.download_name(chronicle, export_view.download_suffix(made))
    return download(path, layout.media_type, name)


def _job(token: str, job_id: str) -> jobs.Job:
    return _job_of(token, job_id)[0]


def _job_of(token: str, job_id: str) -> tuple[jobs.Job, chronicles.Chronicle]:
    _cap, chronicle = _open(token)
    job = jobs.find(get_db(), job_id)
    if job is None or job.stream_id != chronicle.id:
        raise ApiError(404, "not-found", _("There is no such export of this chronicle."))
    return job, chronicle


EXPORT_FIELDS = {"format", "edition", "paper", "print_shop", "vertical", "paper_thickness"}
ANY_METHOD = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "QUERY"]


@bp.route("/<path:rest>", methods=ANY_METHOD)
def unknown(rest: str) -> Reply:
    """Any other path under /api: 405 with Allow on a known path, else 404, as JSON."""
    allowed = openapi.allowed_methods(request.path)
    if allowed:
        response, status = _error(405, "method-not-allowed", _("This method is not allowed here."))
        response.headers["Allow"] = ", ".join(allowed)
        return response, status
    return _error(404, "not-found", _("There is nothing at this address."))
