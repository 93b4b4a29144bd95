"""The OpenAPI document's vocabulary: references, closed objects, JSON answers and errors."""

from __future__ import annotations

from typing import Any

from companion.text.input_text import TEXT_PATTERN

JSON = dict[str, Any]
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


def ref(name: str) -> JSON:
    """A reference to a schema of the components."""
    return {"$ref": f"#/components/schemas/{name}"}


def nullable(schema: JSON) -> JSON:
    """``schema`` or null."""
    return {"anyOf": [schema, {"type": "null"}]}


def obj(properties: JSON, required: tuple[str, ...] | None = None, **extra: Any) -> JSON:
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
# A text sent in: no character the server refuses (``companion.text.input_text``).
TEXT_IN = {"type": "string", "pattern": TEXT_PATTERN}
BOOL = {"type": "boolean"}
TEXT = nullable(ref("Text"))


def json_response(schema: JSON, description: str) -> JSON:
    """An answer with a JSON body of ``schema``."""
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def error_responses(*statuses: int) -> JSON:
    """The error answers for ``statuses``, each an ``Error`` body."""
    return {str(s): json_response(ref("Error"), ERROR_CODES[s]) for s in statuses}


def token_param() -> JSON:
    """The ``token`` path parameter of every chronicle address."""
    return {
        "name": "token",
        "in": "path",
        "required": True,
        "description": TOKEN_DOC,
        "schema": {"type": "string", "minLength": 1},
    }
