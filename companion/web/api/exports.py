"""The API's exports: Markdown and the backup at once, books as jobs a worker makes."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, jsonify
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from companion.export import (
    DEFAULT_EDITION,
    DEFAULT_PAPER,
    DEFAULT_THICKNESS_MM,
    EDITIONS,
    FORMATS,
    PAPERS,
    THICKNESS_RANGE_MM,
    jobs,
)
from companion.export import vertical as vertical_book
from companion.export.backup import export_backup, may_back_up
from companion.export.contents import EditionError
from companion.export.editions import check, layouts_for, needs_chromium, parse_layout
from companion.export.markdown import markdown_file
from companion.store.db import get_db
from companion.streams import chronicles
from companion.web.api.routes import ApiError, Reply, json_body, open_link
from companion.web.api.state import export_file_json, export_job_json
from companion.web.chronicle import export_view
from companion.web.shell.downloads import download

# Nested in the API blueprint (``companion.web.api``), under its ``/api`` prefix.
bp = Blueprint("exports", __name__)

EXPORT_FIELDS = {
    "format",
    "edition",
    "paper",
    "print_shop",
    "vertical",
    "paper_thickness",
    "booklet",
}


@bp.post("/v1/chronicles/<token>/exports")
def request_export(token: str) -> Reply:
    """Markdown and the JSON backup at once; a book (PDF or EPUB) as jobs made by a worker."""
    cap, chronicle = open_link(token)
    body = json_body()
    fmt, edition, paper = _export_choice(body)
    options = _book_options(body)
    if fmt == "json" and not may_back_up(cap.role, chronicle.state):
        message = _("Only the host's link may take a backup while the piles hold hidden cards.")
        raise ApiError(404, "host-only", message)
    export_view.limit_exports(cap)
    if fmt in ("pdf", "epub", "vault"):
        return _request_books(token, chronicle, fmt, edition, paper, options)
    content = (
        markdown_file(chronicle.id, chronicle.version, chronicle.state, edition)
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
            check(chronicle.state, layout, paper)
    except EditionError:
        raise ApiError(
            400, "bad-export", _("This kind of book cannot be made of this chronicle.")
        ) from None
    if needs_chromium(layouts) and not vertical_book.ready():
        raise ApiError(400, "chromium-missing", export_view.chromium_missing())
    try:
        requested = jobs.request_books(
            get_db(),
            _exports_dir(),
            chronicle.id,
            chronicle.version,
            edition,
            paper,
            layouts,
            export_view.per_stream(),
        )
    except jobs.QueueFullError as full:
        raise ApiError(429, "export-queue-full", export_view.queue_full(full.limit)) from None
    if any(needed for _job, needed in requested):
        export_view.ensure_worker()  # the export pages' own rule
    first = export_job_json(token, requested[0][0])
    if len(requested) > 1:
        first["cover"] = export_job_json(token, requested[1][0])
    done = all(job.status == "done" for job, _needed in requested)
    return jsonify(first), 200 if done else 202


def _book_options(body: Mapping[str, Any]) -> tuple[bool, bool, float, bool]:
    print_shop, vertical = body.get("print_shop", False), body.get("vertical", False)
    booklet = body.get("booklet", False)
    thickness = body.get("paper_thickness", DEFAULT_THICKNESS_MM)
    if not isinstance(print_shop, bool) or not isinstance(vertical, bool):
        raise ApiError(400, "bad-export", _("print_shop and vertical are true or false."))
    if not isinstance(booklet, bool):
        raise ApiError(400, "bad-export", _("booklet is true or false."))
    low, high = THICKNESS_RANGE_MM
    if isinstance(thickness, bool) or not isinstance(thickness, int | float):
        raise ApiError(400, "bad-export", _("paper_thickness is a number of millimetres."))
    if not low <= thickness <= high:
        message = _("A paper is %(low)s to %(high)s mm thick.", low=low, high=high)
        raise ApiError(400, "bad-export", message)
    return print_shop, vertical, float(thickness), booklet


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
            "Choose a format (pdf, epub, vault, md or json), an edition (story or annotated) and a paper (a5, a4, b6, a6, shinsho or half-letter)."
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
    if made.status == "done" and not path.is_file():
        message = _("The book's file is no longer kept: ask for the book again to make it again.")
        raise ApiError(404, "removed", message)
    if made.status != "done":
        raise ApiError(404, "not-ready", _("The book is not made yet."))
    layout = parse_layout(made.layout)
    name = export_view.download_name(chronicle, export_view.download_suffix(made))
    return download(path, layout.media_type, name)


def _job(token: str, job_id: str) -> jobs.Job:
    return _job_of(token, job_id)[0]


def _job_of(token: str, job_id: str) -> tuple[jobs.Job, chronicles.Chronicle]:
    _cap, chronicle = open_link(token)
    job = jobs.find(get_db(), job_id)
    if job is None or job.stream_id != chronicle.id:
        raise ApiError(404, "not-found", _("There is no such export of this chronicle."))
    return job, chronicle
