"""The API's OpenAPI 3.1 document, built as a Python dict and served at ``/api/openapi.json``.

Command bodies are derived from the rules core's command dataclasses, so a new command or field
appears here without a second list to keep in step. ``tests/test_api_schema.py`` runs schemathesis
against this document to keep the rest honest.
"""

from __future__ import annotations

import re

from companion.base.languages import LANGUAGES
from companion.legacy import COMMAND_TYPES, KINDS, PILES
from companion.legacy.model import END_REASONS, PHASES
from companion.legacy.setup import MODES
from companion.web.api.openapi.bodies import export_schemas, request_schemas
from companion.web.api.openapi.parts import BOOL, INT, JSON, STR, TEXT
from companion.web.api.openapi.parts import nullable as _nullable
from companion.web.api.openapi.parts import obj as _obj
from companion.web.api.openapi.parts import ref as _ref
from companion.web.api.openapi.paths import paths

STEPS = ("draw", "choose", "answer", "stakes", "roll", "reroll", "success", "mark", "failure")


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
    kept = _obj(
        {
            "command": {**INT, "description": "The refused command's place in the batch."},
            "type": {
                **_nullable(STR),
                "description": "The refused command's `type` as sent (null: it had none).",
            },
            "field": STR,
            "text": STR,
        }
    )
    stale = _obj(
        {
            "error": STR,
            "code": {"const": "stale-version"},
            "version": INT,
            "state": _ref("State"),
            "kept": {
                "type": "array",
                "items": kept,
                "description": "Every text the refused commands carried, given back.",
            },
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
            "language": {"enum": sorted(LANGUAGES)},
            "mode": {"enum": list(MODES)},
            "pack": STR,
            "forgiving_undo": BOOL,
            "show_writing": BOOL,
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
        "paths": paths(),
        "components": {
            "schemas": {
                **_error_schemas(),
                **_state_parts(),
                "TurningPoint": _turning_point(with_prompts=False),
                "Check": _turning_point(with_prompts=True),
                "State": _state(),
                "Story": _story(),
                **request_schemas(),
                **export_schemas(),
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
    for template, operations in paths().items():
        pattern = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
        if re.fullmatch(pattern, path):
            return sorted(method.upper() for method in operations)
    return []
