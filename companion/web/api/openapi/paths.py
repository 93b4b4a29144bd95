"""The OpenAPI document's paths: every address of the API, its parameters and answers."""

from __future__ import annotations

from companion.web.api.openapi.parts import (
    ERROR_CODES,
    JSON,
    error_responses,
    json_response,
    ref,
    token_param,
)

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
    media = {"schema": ref(name), "example": EXAMPLES[name]}
    return {"required": True, "content": {"application/json": media}}


def _created_links() -> JSON:
    """What a new chronicle's host token opens: its state, its commands, its story, a book."""
    host = {"token": "$response.body#/host_token"}
    return {
        "GetState": {
            "operationId": "getState",
            "parameters": host,
            "description": "The state, with the legal commands.",
        },
        "PostCommands": {
            "operationId": "postCommands",
            "parameters": host,
            "description": "A command at `state.version` (choose it from `state.legal`).",
        },
        "GetStory": {"operationId": "getStory", "parameters": host, "description": "The story."},
        "RequestExport": {
            "operationId": "requestExport",
            "parameters": host,
            "description": "A book or a backup of the chronicle.",
        },
        "GetStateAsReader": {
            "operationId": "getState",
            "parameters": {"token": "$response.body#/reader_token"},
            "description": "The state as the reader's link sees it.",
        },
    }


def paths() -> JSON:
    """Every path of the API with its operations."""
    chronicle = "/api/v1/chronicles/{token}"
    token = [token_param()]
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
                    "201": {
                        **json_response(ref("Created"), "The chronicle has begun."),
                        "headers": {
                            "Location": {
                                "description": (
                                    "The new chronicle's state, addressed by its id: send the"
                                    " host token as `Authorization: Bearer` to read it."
                                ),
                                "required": True,
                                "schema": {"type": "string", "format": "uri"},
                            }
                        },
                        "links": _created_links(),
                    },
                    **error_responses(400, 413, 415, 429),
                },
            }
        },
        f"{chronicle}/state": {
            "get": {
                "operationId": "getState",
                "summary": "The chronicle's state as this link may see it, with the legal commands.",
                "parameters": token,
                "security": optional_auth,
                "responses": {
                    "200": json_response(ref("State"), "The state."),
                    **error_responses(404, 429),
                },
            }
        },
        f"{chronicle}/commands": {
            "post": {
                "operationId": "postCommands",
                "summary": "Apply one command, or several atomically, at the version sent.",
                "description": (
                    "A seat link acts for its seat only. The host acts for the `seat` given in "
                    "the command, by default whoever's turn it is at `version`. A read-only link "
                    "gets 404. A stale `version` gets 409 with the current state and, in `kept`, "
                    "every text the refused commands carried. `undo` takes "
                    "back a decision only for the seat that made it (403 `not-your-decision`); "
                    "a decision the rules keep gets 409 (`dice-stay-rolled`, `card-stays-veiled`)."
                ),
                "parameters": token,
                "security": optional_auth,
                "requestBody": _body("Commands"),
                "responses": {
                    "200": json_response(ref("State"), "Applied; the new state."),
                    **error_responses(400, 403, 404),
                    "409": json_response(
                        {"anyOf": [ref("StaleVersion"), ref("Error")]},
                        ERROR_CODES[409]
                        + " Or the rules keep the decision an undo would take back.",
                    ),
                    **error_responses(413, 415, 429),
                },
            }
        },
        f"{chronicle}/story": {
            "get": {
                "operationId": "getStory",
                "summary": "The story log: chapters, turning points with every text, the epilogue.",
                "parameters": token,
                "security": optional_auth,
                "responses": {
                    "200": json_response(ref("Story"), "The story."),
                    **error_responses(404, 429),
                },
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
                    "backup (it holds the shuffled piles); others get 404 `host-only`. A "
                    "chronicle has a few books waiting at once at most: past them, 429 "
                    "`export-queue-full`; exports are also counted per link and per address "
                    "(429 `rate-limited`)."
                ),
                "parameters": token,
                "security": optional_auth,
                "requestBody": _body("ExportRequest"),
                "responses": {
                    "200": json_response(
                        {"oneOf": [ref("ExportFile"), ref("ExportJob")]}, "Made at once."
                    ),
                    "202": {
                        **json_response(
                            ref("ExportJob"), "The book is being made: poll status_url."
                        ),
                        "links": {
                            name: {
                                "operationId": operation,
                                "parameters": {
                                    "token": "$request.path.token",
                                    "job": "$response.body#/id",
                                },
                                "description": description,
                            }
                            for name, operation, description in (
                                ("GetExport", "getExport", "The job's progress."),
                                ("GetExportFile", "getExportFile", "The book, once made."),
                            )
                        },
                    },
                    **error_responses(400, 404, 413, 415, 429),
                },
            }
        },
        f"{chronicle}/exports/{{job}}": {
            "get": {
                "operationId": "getExport",
                "summary": "A PDF book's progress, and its file_url once made.",
                "parameters": [*token, job],
                "security": optional_auth,
                "responses": {
                    "200": json_response(ref("ExportJob"), "The job."),
                    **error_responses(404, 429),
                },
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
                    **error_responses(404, 429),
                },
            }
        },
        "/api/openapi.json": {
            "get": {
                "operationId": "getOpenApi",
                "summary": "This document.",
                "responses": {"200": json_response({"type": "object"}, "The OpenAPI document.")},
            }
        },
    }
