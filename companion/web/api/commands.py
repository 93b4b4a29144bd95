"""The API's writes to a chronicle: start one from a JSON setup, apply commands at a version."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from flask import Blueprint, jsonify, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from companion.base.languages import DEFAULT
from companion.base.limits import COMMAND_BATCH_LIMIT, NUMBER_LIMIT
from companion.legacy import State, command_from_dict
from companion.legacy.commands import Command
from companion.legacy.setup import KINDS, MAX_PER_KIND, MAX_PLAYERS, placeholder_keystones
from companion.packs.registry import list_packs
from companion.store import drafts
from companion.store.capabilities import Capability, resolve
from companion.store.db import get_db
from companion.store.events import StaleVersionError
from companion.streams import chronicles
from companion.web.api.routes import ApiError, Reply, json_body, open_link
from companion.web.api.state import state_answer, state_json
from companion.web.chronicle.narrate import MAX_LISTED, actor_of, describe, newer_events
from companion.web.chronicle.packs_view import pack_store
from companion.web.chronicle.setup_form import SetupForm, check_form
from companion.web.chronicle.undo_view import undo_seat
from companion.web.shell import ratelimit, streams
from companion.web.shell.access import require_write

# Nested in the API blueprint (``companion.web.api``), under its ``/api`` prefix.
bp = Blueprint("commands", __name__)

SETUP_FIELDS = {
    "pioneer",
    "players",
    "oldest",
    "keystones",
    "language",
    "mode",
    "pack",
    "forgiving_undo",
    "show_writing",
    "lines",
    "veils",
}
# Events a stale client need not be told about: corrections and the chronicle's own start.
QUIET_EVENTS = ("text-revised", "chronicle-started", "piles-shuffled")
# The fields of commands that hold a player's text (a 409 gives them back), in this order.
TEXT_KEYS = (
    "question",
    "answer",
    "success",
    "failure",
    "narration",
    "name",
    "description",
    "why",
    "outcome",
    "epilogue",
    "text",
)


@bp.post("/v1/chronicles")
def create_chronicle() -> Reply:
    """Start a chronicle from a JSON setup; the tokens are in this answer only."""
    # Rate limiting: creation writes a chronicle and two tokens, limited per client like /new.
    ratelimit.check_creation()
    values, rows = _setup_values(json_body())
    sheet = SetupForm(values)
    setup = check_form(sheet, list_packs(pack_store()))
    if setup is None:
        fields = {_api_field(name, rows): message for name, message in sheet.errors.items()}
        raise ApiError(400, "bad-setup", next(iter(fields.values())), fields=fields)
    created = chronicles.create(get_db(), setup)
    cap = resolve(get_db(), created.host_token)
    assert cap is not None
    answer = jsonify(_created_json(created, cap))
    # The new state's address by the chronicle's public id, never a token: a response header
    # may be logged (by a proxy), and the id opens nothing without `Authorization: Bearer`.
    answer.headers["Location"] = url_for("api.state", token=created.id, _external=True)
    return answer, 201


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
        "language": _typed(body, "language", str, str(get_locale() or DEFAULT)),
        "mode": _typed(body, "mode", str, "digital"),
        "pack": _typed(body, "pack", str, "standard"),
        "lines": _typed(body, "lines", str, ""),
        "veils": _typed(body, "veils", str, ""),
        "forgiving_undo": _typed(body, "forgiving_undo", bool, False),
        "show_writing": _typed(body, "show_writing", bool, True),
    }
    default = [{"kind": k.kind, "name": k.name} for k in placeholder_keystones()]
    rows, where = _keystone_rows(body.get("keystones", default))
    return {**values, **rows}, where


def _players(value: Any) -> list[str]:
    names_ok = isinstance(value, list) and all(isinstance(name, str) for name in value)
    if not names_ok or not 1 <= len(value) <= MAX_PLAYERS:
        raise _bad("players", _("players must be a list of 1 to %(n)d names.", n=MAX_PLAYERS))
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


@bp.post("/v1/chronicles/<token>/commands")
def commands(token: str) -> Response | Reply:
    """Apply the commands at the version sent, all or none."""
    cap, chronicle = open_link(token)
    require_write(cap)
    body = json_body()
    version = _version(body)
    batch = _command_dicts(body)
    if version != chronicle.version:
        return _stale(chronicle, version, cap, batch)
    issued = [_command(data, cap, chronicle) for data in batch]
    try:
        actor = actor_of(cap.role, cap.seat)
        updated = chronicles.execute(
            get_db(), chronicle, issued, actor=actor, then=_drafts_after(chronicle)
        )
    except StaleVersionError:
        return _stale(chronicles.load(get_db(), chronicle.id), chronicle.version, cap, batch)
    return state_answer(updated, cap)


def _drafts_after(chronicle: chronicles.Chronicle) -> Callable[[State], None]:
    """The commands' draft bookkeeping, committed with their events (``chronicles.execute``)."""

    def bookkeeping(state: State) -> None:
        db = get_db()
        drafts.restore_undone(db, chronicle.id, state)  # an undo's texts come back
        drafts.restore_set_aside(db, chronicle.id, state, chronicle.version)  # an X-card's
        drafts.clear_written(db, chronicle.id, state)  # and gone once written afresh

    return bookkeeping


def _stale(
    chronicle: chronicles.Chronicle, version: int, cap: Capability, batch: list[dict[str, Any]]
) -> Reply:
    """409 with what happened since, the state now, and every text the refused commands held."""
    message = _since(chronicle, version)
    return streams.stale_json(
        message, chronicle.version, state=state_json(chronicle, cap), kept=kept_texts(batch)
    )


def kept_texts(batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The texts the refused commands carried, so a client can put them back where they were."""
    return [
        {"command": index, "type": data.get("type"), "field": name, "text": data[name]}
        for index, data in enumerate(batch)
        for name in TEXT_KEYS
        if isinstance(data.get(name), str) and data[name]
    ]


def _since(chronicle: chronicles.Chronicle, version: int) -> str:
    """What happened after ``version``, in words, and that nothing was changed."""
    newer = [
        (event, actor)
        for event, actor in newer_events(chronicle, version)
        if event.kind not in QUIET_EVENTS
    ]
    shown = [describe(event, chronicle, actor) for event, actor in newer[-MAX_LISTED:]]
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
    if (
        isinstance(version, bool)
        or not isinstance(version, int)
        or not 0 <= version <= NUMBER_LIMIT
    ):
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
    if not isinstance(batch, list) or not 1 <= len(batch) <= COMMAND_BATCH_LIMIT:
        raise ApiError(
            400,
            "bad-command",
            _("commands must be a list of 1 to %(n)d commands.", n=COMMAND_BATCH_LIMIT),
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
