"""The API's OpenAPI 3.1 document, built as a Python dict and served at ``/api/openapi.json``.

Command bodies are derived from the rules core's command dataclasses, so a new command or field
appears here without a second list to keep in step. ``tests/test_api_schema.py`` runs schemathesis
against this document to keep the rest honest.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from typing import Any

from ..export import (
    DEFAULT_EDITION,
    DEFAULT_PAPER,
    DEFAULT_THICKNESS_MM,
    EDITIONS,
    FORMATS,
    PAPERS,
    jobs,
)
from ..legacy import COMMAND_TYPES, KINDS, PILES
from ..legacy.model import END_REASONS, PHASES

JSON = dict[str, Any]
STEPS = ("draw", "choose", "answer", "stakes", "roll", "reroll", "success", "mark", "failure")
ERROR_CODES = {
    400: "The request is malformed or the rules refuse it; nothing was changed.",
    403: "This link may not take back another player's decision.",
    404: "No chronicle answers to this link, or the link may not do this (read-only).",
    409: "Someone moved first: the version sent is not the chronicle's; nothing was changed.",
    413: "The request body is larger than the server accepts.",
    415: "The body must be JSON (Content-Type: application/json).",
    429: "Too many requests from this client; wait and try again.",
}
TOKEN_DOC = (
    "A capability token from a chronicle's link (host, seat or reader). With an "
    "`Authorization: Bearer <token>` header, this segment may instead be the chronicle's id."
)


def _ref(name: str) -> JSON:
    return {"$ref": f"#/components/schemas/{name}"}


def _nullable(schema: JSON) -> JSON:
    return {"anyOf": [schema, {"type": "null"}]}


def _obj(properties: JSON, required: tuple[str, ...] | None = None, **extra: Any) -> JSON:
    """A closed object schema; every property is required unless ``required`` says otherwise."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties if required is None else required),
        "additionalProperties": False,
        **extra,
    }


INT = {"type": "integer"}
STR = {"type": "string"}
BOOL = {"type": "boolean"}
TEXT = _nullable(_ref("Text"))


def _hint_schema(hint: Any) -> JSON:
    """The JSON schema of a command field's type hint (the shapes ``codec.decode`` accepts)."""
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        (inner,) = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        return _nullable(_hint_schema(inner))
    if origin is tuple:
        return {"type": "array", "items": _hint_schema(typing.get_args(hint)[0])}
    return {int: INT, str: STR, bool: BOOL}[hint]


def command_schema(cls: type[Any]) -> JSON:
    """One command's body: ``type`` plus its fields; ``seat`` may be left out (see the API doc)."""
    hints = typing.get_type_hints(cls)
    properties: JSON = {"type": {"const": cls.kind}}
    required = ["type"]
    for field in dataclasses.fields(cls):
        properties[field.name] = _hint_schema(hints[field.name])
        if field.name != "seat" and field.default is dataclasses.MISSING:
            required.append(field.name)
    return _obj(properties, tuple(required), title=cls.__name__, description=cls.__doc__)


def _error_schemas() -> JSON:
    error = _obj(
        {
            "error": {"type": "string", "description": "A sentence for the reader."},
            "code": {"type": "string", "description": "A stable kebab-case code."},
            "rule": {"type": "string", "description": "The rule refusing it (`4.4`, `D6`)."},
            "fields": {"type": "object", "additionalProperties": STR},
        },
        ("error", "code"),
    )
    stale = _obj(
        {
            "error": STR,
            "code": {"const": "stale-version"},
            "version": INT,
            "state": _ref("State"),
        }
    )
    return {"Error": error, "StaleVersion": stale}


def _state_parts() -> JSON:
    return {
        "Text": _obj(
            {
                "text": STR,
                "seq": {**INT, "description": "The event that wrote it: `revise-text`'s target."},
                "field": STR,
                "earlier": {"type": "array", "items": STR},
            }
        ),
        "Stage": _obj(
            {
                "index": {"type": "integer", "minimum": 0, "maximum": 3},
                "key": {"enum": ["youth", "prime", "maturity", "old-age"]},
                "suit": {"enum": ["hearts", "diamonds", "clubs", "spades"]},
                "dice": {"type": "integer", "minimum": 1, "maximum": 4},
                "age": STR,
            }
        ),
        "Pioneer": _obj({"name": STR, "people": STR, "concept": STR}),
        "Player": _obj({"seat": INT, "name": STR, "oldest": BOOL}),
        "Pile": _obj(
            {
                "pile": {"enum": list(PILES)},
                "count": {"type": "integer", "minimum": 0, "maximum": 5},
                "cards": {
                    "type": "array",
                    "items": STR,
                    "description": "Table mode only, current pile only: the cards left in it.",
                },
            },
            ("pile", "count"),
        ),
        "Keystone": _obj(
            {
                "id": STR,
                "kind": {"enum": list(KINDS)},
                "name": STR,
                "description": STR,
                "status": {"enum": ["kept", "sacrificed", "lost"]},
                "stage": _nullable(INT),
                "round": _nullable(INT),
                "seq": _nullable(INT),
                "why": TEXT,
                "outcome": TEXT,
                "narration": TEXT,
            }
        ),
        "Mark": _obj(
            {
                "number": INT,
                "name": _ref("Text"),
                "description": _ref("Text"),
                "stage": INT,
                "round": INT,
                "seat": INT,
                "player": STR,
                "age": STR,
                "seq": INT,
            }
        ),
        "Tokens": _obj({"count": INT, "usable": INT}),
        "Roll": _obj(
            {"faces": {"type": "array", "items": INT}, "success": BOOL, "reroll": BOOL, "seq": INT}
        ),
        "Payment": _obj(
            {
                "kind": {"enum": ["sacrifice", "token"]},
                "seq": INT,
                "keystone": _nullable(STR),
                "why": TEXT,
                "outcome": TEXT,
            }
        ),
        "Loss": _obj({"keystone": STR, "narration": _ref("Text"), "seq": INT}),
        "Legal": _obj(
            {
                "type": {"enum": sorted(COMMAND_TYPES)},
                "seat": {**_nullable(INT), "description": "Who may issue it; null: anyone."},
                "options": {"type": "object", "description": "The choices it may take."},
                "yours": {**BOOL, "description": "Whether this link may issue it."},
            }
        ),
        "You": _obj(
            {
                "role": {"enum": ["host", "seat", "reader"]},
                "seat": _nullable(INT),
                "can_act": BOOL,
            }
        ),
    }


def _turning_point(with_prompts: bool) -> JSON:
    properties: JSON = {
        "stage": INT,
        "round": INT,
        "turn": INT,
        "seat": INT,
        "player": STR,
        "pile": {"enum": list(PILES)},
        "card": STR,
        "seq": INT,
        "veiled": {"type": "array", "items": INT},
        "prompt_index": _nullable(INT),
        "prompt": _nullable(STR),
        "question": TEXT,
        "answer": TEXT,
        "stakes": _obj({"success": TEXT, "failure": TEXT}),
        "rolls": {"type": "array", "items": _ref("Roll")},
        "withdrawn": {
            "type": "array",
            "items": _ref("Roll"),
            "description": "Rolls taken back by an undo, kept as corrections; never counted.",
        },
        "payments": {"type": "array", "items": _ref("Payment")},
        "losses": {"type": "array", "items": _ref("Loss")},
        "outcome": _nullable({"enum": ["success", "failure", "mark"]}),
        "narration": TEXT,
        "mark": _nullable(INT),
    }
    if with_prompts:
        properties["prompts"] = {
            "type": "array",
            "description": "The card's prompts that are not veiled (a veiled one is never sent).",
            "items": _obj({"index": INT, "text": STR}),
        }
    return _obj(properties)


def _state() -> JSON:
    array = {"type": "array"}
    return _obj(
        {
            "id": STR,
            "title": STR,
            "version": INT,
            "pioneer": _ref("Pioneer"),
            "players": {**array, "items": _ref("Player")},
            "language": {"enum": ["en", "ja"]},
            "mode": {"enum": ["digital", "table"]},
            "pack": STR,
            "forgiving_undo": BOOL,
            "lines": STR,
            "veils": STR,
            "phase": {"enum": list(PHASES)},
            "step": {"enum": [*STEPS, "ended"]},
            "ended": BOOL,
            "end": _nullable({"enum": list(END_REASONS)}),
            "stage": _ref("Stage"),
            "round": INT,
            "turn": INT,
            "turn_no": INT,
            "seat": {**INT, "description": "Whose turn it is."},
            "player": STR,
            "first_seat": INT,
            "pile": {"enum": list(PILES)},
            "piles": {
                **array,
                "items": _ref("Pile"),
                "description": "Cards left per pile. The order of a shuffled pile is never sent.",
            },
            "keystones": {**array, "items": _ref("Keystone")},
            "tokens": _ref("Tokens"),
            "marks": {**array, "items": _ref("Mark")},
            "check": _nullable(_ref("Check")),
            "epilogue": TEXT,
            "legal": {
                **array,
                "items": _ref("Legal"),
                "description": "What the rules accept now (the rules core's legal_commands).",
            },
            "you": _ref("You"),
        }
    )


def _story() -> JSON:
    chapter = _obj(
        {
            "stage": _ref("Stage"),
            "turning_points": {"type": "array", "items": _ref("TurningPoint")},
            "marks": {"type": "array", "items": INT, "description": "Mark numbers."},
            "fallen": {"type": "array", "items": STR, "description": "Keystone ids."},
        }
    )
    return _obj(
        {
            "id": STR,
            "title": STR,
            "version": INT,
            "pioneer": _ref("Pioneer"),
            "players": {"type": "array", "items": STR},
            "ended": BOOL,
            "end": _nullable({"enum": list(END_REASONS)}),
            "chapters": {"type": "array", "items": chapter},
            "keystones": {"type": "array", "items": _ref("Keystone")},
            "marks": {"type": "array", "items": _ref("Mark")},
            "tokens": _ref("Tokens"),
            "epilogue": TEXT,
        }
    )


def _requests() -> JSON:
    keystone = _obj(
        {
            "kind": {"enum": list(KINDS)},
            "name": {"type": "string", "minLength": 1, "maxLength": 200},
            "description": {"type": "string", "maxLength": 20000},
        },
        ("kind", "name"),
    )
    create = _obj(
        {
            "pioneer": _obj(
                {
                    "name": {"type": "string", "minLength": 1, "maxLength": 200},
                    "people": {"type": "string", "maxLength": 200},
                    "concept": {"type": "string", "maxLength": 20000},
                },
                ("name",),
            ),
            "players": {
                "type": "array",
                "items": {"type": "string", "minLength": 1, "maxLength": 200},
                "minItems": 1,
                "maxItems": 8,
                "description": "Names in clockwise seating order; the index is the seat.",
            },
            "oldest": {"type": "integer", "minimum": 0, "default": 0},
            "keystones": {
                "type": "array",
                "items": keystone,
                "maxItems": 18,
                "description": "Default: three placeholder keystones of each kind (rule D1).",
            },
            "language": {"enum": ["en", "ja"], "description": "Default: the request's locale."},
            "mode": {"enum": ["digital", "table"], "default": "digital"},
            "pack": {"type": "string", "default": "standard"},
            "forgiving_undo": {"type": "boolean", "default": False},
            "lines": {"type": "string", "maxLength": 20000, "default": ""},
            "veils": {"type": "string", "maxLength": 20000, "default": ""},
        },
        ("pioneer", "players"),
    )
    commands = {
        "type": "object",
        "properties": {
            "version": {**INT, "description": "The state's version the commands were chosen on."},
            "command": _ref("Command"),
            "commands": {
                "type": "array",
                "items": _ref("Command"),
                "minItems": 1,
                "maxItems": 50,
                "description": "Applied in order, all or none.",
            },
        },
        "required": ["version"],
        "oneOf": [{"required": ["command"]}, {"required": ["commands"]}],
        "additionalProperties": False,
    }
    variants = [command_schema(cls) for cls in COMMAND_TYPES.values()]
    created = _obj(
        {
            "id": STR,
            "host_token": {**STR, "description": "Acts for every seat. Shown once."},
            "reader_token": {**STR, "description": "Reads only. Shown once."},
            "links": _obj({"host": STR, "reader": STR, "api": STR}),
            "state": _ref("State"),
        }
    )
    return {
        "CreateChronicle": create,
        "Created": created,
        "Command": {"oneOf": variants},
        "Commands": commands,
    }


def _exports() -> JSON:
    job = _obj(
        {
            "id": STR,
            "format": {"enum": ["pdf", "epub"]},
            "layout": {
                **STR,
                "description": "book, print, cover-<paper thickness in micrometres>, vertical,"
                " epub or epub-vertical.",
            },
            "version": {**INT, "description": "The chronicle's version the book shows."},
            "edition": {"enum": list(EDITIONS)},
            "paper": {"enum": list(PAPERS)},
            "status": {"enum": list(jobs.STATUSES)},
            "progress": {"type": "integer", "minimum": 0, "maximum": 100},
            "page": _nullable(INT),
            "message": STR,
            "status_url": STR,
            "file_url": {**_nullable(STR), "description": "Where the file is, once done."},
        },
        ("id", "format", "layout", "version", "edition", "paper", "status", "progress", "page",
         "message", "status_url", "file_url"),
    )  # fmt: skip
    job["properties"]["cover"] = {
        **_ref("ExportJob"),
        "description": "The print shop's cover, made after its pages (print_shop only).",
    }
    made = _obj(
        {
            "format": {"enum": ["md", "json"]},
            "version": INT,
            "edition": _nullable({"enum": list(EDITIONS)}),
            "status": {"const": "done"},
            "content_type": STR,
            "content": {**STR, "description": "The Markdown story, or the backup's JSON text."},
        }
    )
    request = _obj(
        {
            "format": {"enum": list(FORMATS)},
            "edition": {"enum": list(EDITIONS), "default": DEFAULT_EDITION},
            "paper": {"enum": list(PAPERS), "default": DEFAULT_PAPER},
            "print_shop": {
                "type": "boolean",
                "default": False,
                "description": "PDF with bleed and crop marks, and a cover spread.",
            },
            "vertical": {
                "type": "boolean",
                "default": False,
                "description": "Vertical Japanese (PDF or EPUB); Japanese chronicles only.",
            },
            "paper_thickness": {
                "type": "number",
                "minimum": 0.04,
                "maximum": 0.3,
                "default": DEFAULT_THICKNESS_MM,
                "description": "Millimetres per leaf, for the cover's spine.",
            },
        },
        ("format",),
    )
    return {"ExportJob": job, "ExportFile": made, "ExportRequest": request}


def _json(schema: JSON, description: str) -> JSON:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*statuses: int) -> JSON:
    return {str(s): _json(_ref("Error"), ERROR_CODES[s]) for s in statuses}


def _token_param() -> JSON:
    return {
        "name": "token",
        "in": "path",
        "required": True,
        "description": TOKEN_DOC,
        "schema": {"type": "string", "minLength": 1},
    }


EXAMPLES: JSON = {
    "CreateChronicle": {
        "pioneer": {"name": "Kaya Wren", "people": "human", "concept": "A cartographer."},
        "players": ["Ali", "Brianna", "Cardon"],
        "oldest": 0,
        "keystones": [
            {"kind": "resource", "name": "The Tern", "description": "a small boat"},
            {"kind": "attachment", "name": "Sister Ide"},
            {"kind": "creed", "name": "Maps must be true"},
        ],
        "mode": "table",
    },
    "Commands": {"version": 1, "command": {"type": "draw-card", "card": "AH"}},
    "ExportRequest": {"format": "md", "edition": "story"},
}


def _body(name: str) -> JSON:
    media = {"schema": _ref(name), "example": EXAMPLES[name]}
    return {"required": True, "content": {"application/json": media}}


def _paths() -> JSON:
    chronicle = "/api/v1/chronicles/{token}"
    token = [_token_param()]
    job = {
        "name": "job",
        "in": "path",
        "required": True,
        "description": "An export job's id, from requestExport.",
        "schema": {"type": "string", "minLength": 1},
    }
    optional_auth: list[JSON] = [{}, {"capability": []}]
    return {
        "/api/v1/chronicles": {
            "post": {
                "operationId": "createChronicle",
                "summary": "Start a chronicle; returns its host and reader tokens (shown once).",
                "requestBody": _body("CreateChronicle"),
                "responses": {
                    "201": _json(_ref("Created"), "The chronicle has begun."),
                    **_errors(400, 413, 415, 429),
                },
            }
        },
        f"{chronicle}/state": {
            "get": {
                "operationId": "getState",
                "summary": "The chronicle's state as this link may see it, with the legal commands.",
                "parameters": token,
                "security": optional_auth,
                "responses": {"200": _json(_ref("State"), "The state."), **_errors(404, 429)},
            }
        },
        f"{chronicle}/commands": {
            "post": {
                "operationId": "postCommands",
                "summary": "Apply one command, or several atomically, at the version sent.",
                "description": (
                    "A seat link acts for its seat only. The host acts for the `seat` given in "
                    "the command, by default whoever's turn it is at `version`. A read-only link "
                    "gets 404. A stale `version` gets 409 with the current state. `undo` takes "
                    "back a decision only for the seat that made it (403 `not-your-decision`); "
                    "a decision the rules keep gets 409 (`dice-stay-rolled`, `card-stays-veiled`)."
                ),
                "parameters": token,
                "security": optional_auth,
                "requestBody": _body("Commands"),
                "responses": {
                    "200": _json(_ref("State"), "Applied; the new state."),
                    **_errors(400, 403, 404),
                    "409": _json(
                        {"anyOf": [_ref("StaleVersion"), _ref("Error")]},
                        ERROR_CODES[409]
                        + " Or the rules keep the decision an undo would take back.",
                    ),
                    **_errors(413, 415, 429),
                },
            }
        },
        f"{chronicle}/story": {
            "get": {
                "operationId": "getStory",
                "summary": "The story log: chapters, turning points with every text, the epilogue.",
                "parameters": token,
                "security": optional_auth,
                "responses": {"200": _json(_ref("Story"), "The story."), **_errors(404, 429)},
            }
        },
        f"{chronicle}/exports": {
            "post": {
                "operationId": "requestExport",
                "summary": "Markdown or the JSON backup at once; a PDF book as a job.",
                "description": (
                    "`md` and `json` answer 200 with the text. `pdf` answers 202 with a job to "
                    "poll (200 if the book of this version is made already). While a digital "
                    "chronicle's piles hold hidden cards, only the host's link may take the "
                    "backup (it holds the shuffled piles); others get 404 `host-only`."
                ),
                "parameters": token,
                "security": optional_auth,
                "requestBody": _body("ExportRequest"),
                "responses": {
                    "200": _json(
                        {"oneOf": [_ref("ExportFile"), _ref("ExportJob")]}, "Made at once."
                    ),
                    "202": _json(_ref("ExportJob"), "The book is being made: poll status_url."),
                    **_errors(400, 404, 413, 415, 429),
                },
            }
        },
        f"{chronicle}/exports/{{job}}": {
            "get": {
                "operationId": "getExport",
                "summary": "A PDF book's progress, and its file_url once made.",
                "parameters": [*token, job],
                "security": optional_auth,
                "responses": {"200": _json(_ref("ExportJob"), "The job."), **_errors(404, 429)},
            }
        },
        f"{chronicle}/exports/{{job}}/file": {
            "get": {
                "operationId": "getExportFile",
                "summary": "The finished PDF book; 404 until it is made.",
                "parameters": [*token, job],
                "security": optional_auth,
                "responses": {
                    "200": {
                        "description": "The PDF.",
                        "content": {
                            "application/pdf": {"schema": {"type": "string", "format": "binary"}}
                        },
                    },
                    **_errors(404, 429),
                },
            }
        },
        "/api/openapi.json": {
            "get": {
                "operationId": "getOpenApi",
                "summary": "This document.",
                "responses": {"200": _json({"type": "object"}, "The OpenAPI document.")},
            }
        },
    }


def document() -> JSON:
    """The whole OpenAPI 3.1 document."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "遺燼抄 companion API",
            "version": "1.0.0",
            "description": (
                "Play and read chronicles of 遺燼抄 as JSON. A chronicle's capability token "
                "(in the URL, or as `Authorization: Bearer`) is the only credential: no cookies, "
                "so no CSRF token. Errors are JSON `{error, code}`. Messages follow `?lang=` or "
                "Accept-Language (en, ja)."
            ),
        },
        "servers": [{"url": "/"}],
        "paths": _paths(),
        "components": {
            "schemas": {
                **_error_schemas(),
                **_state_parts(),
                "TurningPoint": _turning_point(with_prompts=False),
                "Check": _turning_point(with_prompts=True),
                "State": _state(),
                "Story": _story(),
                **_requests(),
                **_exports(),
            },
            "securitySchemes": {
                "capability": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A chronicle's capability token, instead of the URL.",
                }
            },
        },
    }


def allowed_methods(path: str) -> list[str]:
    """The methods the document lists for a concrete ``path``; empty if no path matches."""
    for template, operations in _paths().items():
        pattern = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
        if re.fullmatch(pattern, path):
            return sorted(method.upper() for method in operations)
    return []
