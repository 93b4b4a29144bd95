"""The OpenAPI schemas of request bodies: a chronicle's setup, commands (derived from the rules
core's command dataclasses) and exports."""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any

from companion.base.languages import LANGUAGES
from companion.base.limits import COMMAND_BATCH_LIMIT, NAME_LIMIT, NUMBER_LIMIT, TEXT_LIMIT
from companion.export import (
    DEFAULT_EDITION,
    DEFAULT_PAPER,
    DEFAULT_THICKNESS_MM,
    EDITIONS,
    FORMATS,
    PAPERS,
    editions,
    jobs,
)
from companion.legacy import COMMAND_TYPES, KINDS
from companion.legacy.setup import MAX_PER_KIND, MAX_PLAYERS, MODES
from companion.web.api.openapi.parts import BOOL, INT, JSON, STR, TEXT_IN, nullable, obj, ref


def _hint_schema(hint: Any) -> JSON:
    """The JSON schema of a command field's type hint (the shapes ``codec.decode`` accepts)."""
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        (inner,) = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        return nullable(_hint_schema(inner))
    if origin is tuple:
        return {"type": "array", "items": _hint_schema(typing.get_args(hint)[0])}
    return {int: INT, str: TEXT_IN, bool: BOOL}[hint]


def command_schema(cls: type[Any]) -> JSON:
    """One command's body: ``type`` plus its fields; ``seat`` may be left out (see the API doc)."""
    hints = typing.get_type_hints(cls)
    properties: JSON = {"type": {"const": cls.kind}}
    required = ["type"]
    for field in dataclasses.fields(cls):
        properties[field.name] = _hint_schema(hints[field.name])
        if field.name != "seat" and field.default is dataclasses.MISSING:
            required.append(field.name)
    return obj(properties, tuple(required), title=cls.__name__, description=cls.__doc__)


def request_schemas() -> JSON:
    """The setup, command and creation schemas."""
    keystone = obj(
        {
            "kind": {"enum": list(KINDS)},
            "name": {**TEXT_IN, "minLength": 1, "maxLength": NAME_LIMIT},
            "description": {**TEXT_IN, "maxLength": TEXT_LIMIT},
        },
        ("kind", "name"),
    )
    create = obj(
        {
            "pioneer": obj(
                {
                    "name": {**TEXT_IN, "minLength": 1, "maxLength": NAME_LIMIT},
                    "people": {**TEXT_IN, "maxLength": NAME_LIMIT},
                    "concept": {**TEXT_IN, "maxLength": TEXT_LIMIT},
                },
                ("name",),
            ),
            "players": {
                "type": "array",
                "items": {**TEXT_IN, "minLength": 1, "maxLength": NAME_LIMIT},
                "minItems": 1,
                "maxItems": MAX_PLAYERS,
                "description": "Names in clockwise seating order; the index is the seat.",
            },
            "oldest": {"type": "integer", "minimum": 0, "default": 0},
            "keystones": {
                "type": "array",
                "items": keystone,
                "maxItems": len(KINDS) * MAX_PER_KIND,
                # At most MAX_PER_KIND of each kind, as the setup's rule says.
                "allOf": [
                    {
                        "contains": {"properties": {"kind": {"const": kind}}},
                        "minContains": 0,
                        "maxContains": MAX_PER_KIND,
                    }
                    for kind in KINDS
                ],
                "description": (
                    f"At most {MAX_PER_KIND} of each kind. Default: three placeholder keystones"
                    " of each kind (rule D1)."
                ),
            },
            "language": {
                "enum": sorted(LANGUAGES),
                "description": "Default: the request's locale.",
            },
            "mode": {"enum": list(MODES), "default": "digital"},
            "pack": {**TEXT_IN, "default": "standard"},
            "forgiving_undo": {"type": "boolean", "default": False},
            "show_writing": {
                "type": "boolean",
                "default": True,
                "description": "Whether every device shows the turn's texts as they are typed.",
            },
            "lines": {**TEXT_IN, "maxLength": TEXT_LIMIT, "default": ""},
            "veils": {**TEXT_IN, "maxLength": TEXT_LIMIT, "default": ""},
        },
        ("pioneer", "players"),
    )
    commands = {
        "type": "object",
        "properties": {
            "version": {
                **INT,
                "minimum": 0,
                "maximum": NUMBER_LIMIT,
                "description": "The state's version the commands were chosen on.",
            },
            "command": ref("Command"),
            "commands": {
                "type": "array",
                "items": ref("Command"),
                "minItems": 1,
                "maxItems": COMMAND_BATCH_LIMIT,
                "description": "Applied in order, all or none.",
            },
        },
        "required": ["version"],
        "oneOf": [{"required": ["command"]}, {"required": ["commands"]}],
        "additionalProperties": False,
    }
    variants = [command_schema(cls) for cls in COMMAND_TYPES.values()]
    created = obj(
        {
            "id": STR,
            "host_token": {**STR, "description": "Acts for every seat. Shown once."},
            "reader_token": {**STR, "description": "Reads only. Shown once."},
            "links": obj({"host": STR, "reader": STR, "api": STR}),
            "state": ref("State"),
        }
    )
    return {
        "CreateChronicle": create,
        "Created": created,
        "Command": {"oneOf": variants},
        "Commands": commands,
    }


def _layouts_described() -> str:
    """The layouts a job may have, as ``editions.KINDS`` lists them (a cover by its paper)."""
    keys = [k if k != "cover" else "cover-<paper thickness in micrometres>" for k in editions.KINDS]
    return ", ".join(keys[:-1]) + " or " + keys[-1] + "."


def export_schemas() -> JSON:
    """The export job, file and request schemas."""
    job = obj(
        {
            "id": STR,
            "format": {"enum": list(editions.FORMATS)},
            "layout": {
                **STR,
                "description": _layouts_described(),
            },
            "version": {**INT, "description": "The chronicle's version the book shows."},
            "edition": {"enum": list(EDITIONS)},
            "paper": {"enum": list(PAPERS)},
            "status": {"enum": list(jobs.SHOWN_STATUSES)},
            "progress": {"type": "integer", "minimum": 0, "maximum": 100},
            "page": nullable(INT),
            "message": STR,
            "status_url": STR,
            "file_url": {**nullable(STR), "description": "Where the file is, once done."},
        },
        ("id", "format", "layout", "version", "edition", "paper", "status", "progress", "page",
         "message", "status_url", "file_url"),
    )  # fmt: skip
    job["properties"]["cover"] = {
        **ref("ExportJob"),
        "description": "The print shop's cover, made after its pages (print_shop only).",
    }
    made = obj(
        {
            "format": {"enum": ["md", "json"]},
            "version": INT,
            "edition": nullable({"enum": list(EDITIONS)}),
            "status": {"const": "done"},
            "content_type": STR,
            "content": {**STR, "description": "The Markdown story, or the backup's JSON text."},
        }
    )
    request = obj(
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
            "booklet": {
                "type": "boolean",
                "default": False,
                "description": "A PDF imposed two pages a side for a home printer: an A5 book"
                " on A4 or a half-letter book on US Letter.",
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
