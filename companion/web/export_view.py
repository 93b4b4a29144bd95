"""Exports in the browser: Markdown, the JSON backup, the PDF book and its progress; import.

Any link that opens a chronicle may export it (a reader too); an import creates a new chronicle
whose host link goes to the browser that uploaded it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    jsonify,
    redirect,
    request,
    url_for,
)
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from .. import chronicles, ratelimit
from ..db import get_db
from ..export import DEFAULT_THICKNESS_MM, EDITIONS, PAPERS, THICKNESS_RANGE_MM, jobs, keeper
from ..export import vertical as vertical_book
from ..export.backup import MAX_BYTES, export_backup, import_backup, may_back_up
from ..export.contents import EditionError
from ..export.editions import check, layouts_for, parse_layout
from ..export.errors import BackupError
from ..export.markdown import story_markdown
from ..export.vertical import INSTALL_COMMAND
from . import streams
from .access import remember
from .chronicle import open_chronicle
from .downloads import download
from .text_errors import rule_message

bp = Blueprint("exports", __name__, url_prefix="/c/<token>")
streams.use_stream_errors(bp)
import_bp = Blueprint("imports", __name__)
BACK = ("story.log", "story.end")
PAPER_LABELS = {"a5": "A5", "a4": "A4", "b6": "B6", "a6": "A6", "shinsho": "新書"}
# The exports page's choices: (format, print shop, vertical) for each.
KINDS = {
    "book": ("pdf", False, False),
    "print-shop": ("pdf", True, False),
    "vertical": ("pdf", False, True),
    "epub": ("epub", False, False),
    "epub-vertical": ("epub", False, True),
}
THICKNESSES = (0.08, 0.1, 0.13, 0.16)


def _exports_dir() -> Path:
    return Path(current_app.config["EXPORTS_DIR"])


def download_name(chronicle: chronicles.Chronicle, suffix: str) -> str:
    name = re.sub(r'[\x00-\x1f/\\:*?"<>|]+', "", chronicle.title).strip() or "chronicle"
    return name[:60] + suffix


def download_suffix(job: jobs.Job) -> str:
    """A finished book's file name after the title: edition, paper, layout and extension."""
    parsed = parse_layout(job.layout)
    layout = "" if job.layout == "book" else f"-{job.layout}"
    return f"-{job.edition}-{job.paper}{layout}.{parsed.extension}"


@bp.get("/export.md")
def markdown(token: str) -> Response:
    """The story as one Markdown file."""
    _cap, chronicle = open_chronicle(token)
    edition = request.args.get("edition", "annotated")
    if edition not in EDITIONS:
        abort(404)
    text = story_markdown(chronicle.state, edition)
    name = download_name(chronicle, ".md")
    return download(text.encode("utf-8"), "text/markdown; charset=utf-8", name)


@bp.get("/export.json")
def backup(token: str) -> Response:
    """The JSON backup: the whole event log and its metadata."""
    cap, chronicle = open_chronicle(token)
    if not may_back_up(cap.role, chronicle.state):
        abort(404)  # the shuffled piles would show the cards still to come
    text = export_backup(get_db(), chronicle.id)
    name = download_name(chronicle, ".json")
    return download(text.encode("utf-8"), "application/json; charset=utf-8", name)


@bp.post("/export/pdf")
def pdf(token: str) -> Response:
    """Ask for the PDF book of this version: served at once if made, else made by a worker."""
    _cap, chronicle = open_chronicle(token)
    edition, paper = request.form.get("edition", ""), request.form.get("paper", "")
    back = request.form.get("back", "story.log")
    back_url = url_for(back if back in BACK else "story.log", token=token, _anchor="exports")
    if edition not in EDITIONS or paper not in PAPERS:
        flash(_("Choose an edition and a paper size for the book."), "error")
        return redirect(back_url)
    try:
        layouts = _layouts(
            chronicle, request.form.get("kind", "book"), request.form.get("thickness")
        )
    except BookRefusedError as refused:
        flash(str(refused), "error")
        return redirect(back_url)
    requested = [
        jobs.request_book(
            get_db(), _exports_dir(), chronicle.id, chronicle.version, edition, paper, layout
        )
        for layout in layouts
    ]
    if all(job.status == "done" for job, _needed in requested) and len(requested) == 1:
        return redirect(_book_url(token, requested[0][0]))
    if any(needed for _job, needed in requested):
        _ensure_worker()
    flash(
        _("The book is being made; it will be ready to download here in a few seconds."), "success"
    )
    return redirect(back_url)


class BookRefusedError(ValueError):
    """A book the exports page cannot make, with the sentence that says why."""


def _layouts(chronicle: chronicles.Chronicle, kind: str, thickness: str | None) -> list[str]:
    """The jobs the exports page's choice makes; BookRefusedError if it cannot be made."""
    if kind not in KINDS:
        raise BookRefusedError(_("This kind of book cannot be made of this chronicle."))
    fmt, print_shop, vertical = KINDS[kind]
    try:
        paper = float(thickness) if thickness else DEFAULT_THICKNESS_MM
        layouts = layouts_for(fmt, print_shop, vertical, paper)
    except (EditionError, ValueError):
        low, high = THICKNESS_RANGE_MM
        raise BookRefusedError(
            _("A paper is %(low)s to %(high)s mm thick.", low=low, high=high)
        ) from None
    try:
        for layout in layouts:
            check(chronicle.state, layout)
    except EditionError:
        raise BookRefusedError(_("This kind of book cannot be made of this chronicle.")) from None
    if vertical and fmt == "pdf" and vertical_book.chromium_path() is None:
        raise BookRefusedError(chromium_missing())
    return layouts


def chromium_missing() -> str:
    """Why the vertical PDF cannot be made here, and the command that would make it possible."""
    return _(
        "The vertical PDF is printed by Chromium, which is not installed on this server."
        " The host can install it with: %(command)s",
        command=INSTALL_COMMAND,
    )


def _ensure_worker() -> None:
    # Asking for a book may start the app's one supervisor; a status request never does.
    keeper.ensure_for_app(current_app)


PAPER_RULE = "<any(a5,a4,b6,a6,shinsho):paper>"


@bp.get(f"/book/v<int:version>-<any(story,annotated):edition>-{PAPER_RULE}.pdf")
@bp.get(f"/book/v<int:version>-<any(story,annotated):edition>-{PAPER_RULE}-<layout>.<ext>")
def book(
    token: str, version: int, edition: str, paper: str, layout: str = "book", ext: str = "pdf"
) -> Response:
    """A finished book."""
    _cap, chronicle = open_chronicle(token)
    try:
        parsed = parse_layout(layout)
    except EditionError:
        abort(404)
    if parsed.extension != ext or ("layout" in (request.view_args or {}) and layout == "book"):
        abort(404)  # one address per book
    job = jobs.find_book(get_db(), chronicle.id, version, edition, paper, layout)
    path = _exports_dir() / job.filename if job is not None else None
    if job is None or job.status != "done" or path is None or not path.is_file():
        abort(404)
    name = download_name(chronicle, download_suffix(job))
    return download(path, parsed.media_type, name)


@bp.get("/export/<job_id>.json")
def status(token: str, job_id: str) -> Response:
    """A book's progress, polled by the story page while it is made."""
    _cap, chronicle = open_chronicle(token)
    job = jobs.find(get_db(), job_id)
    if job is None or job.stream_id != chronicle.id:
        abort(404)
    return jsonify(describe(token, job))


def _book_url(token: str, job: jobs.Job) -> str:
    extra = {} if job.layout == "book" else {"layout": job.layout}
    if extra:
        extra["ext"] = parse_layout(job.layout).extension
    return url_for(
        "exports.book",
        token=token,
        version=job.version,
        edition=job.edition,
        paper=job.paper,
        **extra,
    )


def describe(token: str, job: jobs.Job) -> dict[str, Any]:
    """A job as the story page shows it: status, progress, a sentence and the download link."""
    return {
        "id": job.id,
        "status": job.status,
        "progress": job.progress,
        "page": job.page,
        "message": _message(job),
        "label": _label(job),
        "url": _book_url(token, job) if job.status == "done" else None,
        "status_url": url_for("exports.status", token=token, job_id=job.id),
    }


def _label(job: jobs.Job) -> str:
    edition = _("Story edition") if job.edition == "story" else _("Annotated edition")
    label = _("%(edition)s, %(paper)s", edition=edition, paper=PAPER_LABELS[job.paper])
    kind = parse_layout(job.layout).kind
    if kind == "book":
        return label
    return f"{_layout_name(kind)} · {label}"


def _layout_name(kind: str) -> str:
    return {
        "print": _("Print shop: the pages"),
        "cover": _("Print shop: the cover"),
        "vertical": _("Vertical PDF"),
        "epub": _("EPUB"),
        "epub-vertical": _("Vertical EPUB"),
    }[kind]


def _message(job: jobs.Job) -> str:
    if job.status == "done":
        return _("Ready.")
    if job.reason == jobs.TIME_LIMIT:
        seconds = int(current_app.config.get("EXPORT_TIME_LIMIT", 300))
        return _(
            "The book took longer than %(seconds)d seconds and was stopped. Try a smaller"
            " paper or the story edition; if it fails again, tell the host.",
            seconds=seconds,
        )
    if job.reason == jobs.WORKER_LOST:
        return _("The book could not be made: its maker stopped twice. Tell the host.")
    if job.status == "failed":
        return _("The book could not be made. Try again; if it fails again, tell the host.")
    if job.status == "queued":
        return _("Waiting for its turn…")
    if job.step == "layout" and job.page:
        return _("Laying out page %(page)d…", page=job.page)
    if job.step == "writing":
        return _("Writing the PDF…")
    return _("Preparing the text…")


@bp.app_context_processor
def _template_helpers() -> dict[str, Any]:
    return {
        "export_jobs_for": export_jobs_for,
        "may_back_up": may_back_up,
        "chromium_installed": lambda: vertical_book.chromium_path() is not None,
        "chromium_install_command": INSTALL_COMMAND,
        "paper_thicknesses": THICKNESSES,
        "default_thickness": DEFAULT_THICKNESS_MM,
    }


def export_jobs_for(token: str, chronicle: chronicles.Chronicle) -> list[dict[str, Any]]:
    """The books of the chronicle's current version, for the export panel."""
    return [
        describe(token, job) for job in jobs.jobs_for(get_db(), chronicle.id, chronicle.version)
    ]


# Multipart framing around the file: boundaries, part headers and the CSRF field.
UPLOAD_OVERHEAD = 64 * 1024


@import_bp.url_value_preprocessor
def _allow_whole_backups(endpoint: str | None, values: dict[str, Any] | None) -> None:
    """Let the import form carry any backup this app exports (requests elsewhere stay capped).

    A URL value preprocessor runs before every before_request hook, so the limit is raised
    before the CSRF check reads the form.
    """
    if endpoint == "imports.upload":
        request.max_content_length = MAX_BYTES + UPLOAD_OVERHEAD


@import_bp.post("/import")
@ratelimit.limited_like_creation
def upload() -> Response:
    """Create a new chronicle from a JSON backup, then open it as its host."""
    upload = request.files.get("backup")
    if upload is None or not upload.filename:
        return _refuse_import(_("Choose a backup file (.json) to import."))
    try:
        created = import_backup(get_db(), upload.read(MAX_BYTES + 1))
    except BackupError as err:
        return _refuse_import(backup_message(err))
    url = url_for("chronicle.play", token=created.host_token)
    remember(url)
    flash(_("The chronicle is imported. This is its host link: keep it."), "success")
    return redirect(url)


def backup_message(err: BackupError) -> str:
    """A refused backup's message in the reader's language."""
    params = dict(err.params)
    if err.cause is not None:
        params["problem"] = rule_message(err.cause)
    try:
        return _(err.message) % params
    except (KeyError, TypeError, ValueError):
        return str(err)


def _refuse_import(message: str) -> Response:
    """A refused backup: the start page says why (post/redirect/get: Back never posts again)."""
    flash(message, "error")
    return redirect(url_for("main.index", _anchor="import"), 303)
