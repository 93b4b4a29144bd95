"""Exports in the browser: Markdown, the JSON backup, the books and their progress.

Any link that opens a chronicle may export it (a reader too), within the exports' rate limit
(per address and per link) and the chronicle's share of the book queue. Import is
``import_view.py``.
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
    render_template,
    request,
    url_for,
)
from werkzeug.wrappers import Response

from companion.export import (
    DEFAULT_THICKNESS_MM,
    EDITIONS,
    PAPERS,
    THICKNESS_RANGE_MM,
    jobs,
    keeper,
)
from companion.export import vertical as vertical_book
from companion.export.backup import export_backup, may_back_up
from companion.export.contents import EditionError
from companion.export.editions import check, layouts_for, needs_chromium, parse_layout
from companion.export.markdown import markdown_file
from companion.export.rendering import edition_name
from companion.export.typeset import printable
from companion.export.vertical import INSTALL_COMMAND
from companion.store.capabilities import Capability
from companion.store.db import get_db
from companion.streams import chronicles
from companion.text.wording import gettext as _
from companion.web.chronicle.opening import open_chronicle
from companion.web.shell import ratelimit, streams
from companion.web.shell.downloads import download

bp = Blueprint("exports", __name__, url_prefix="/c/<token>")
streams.use_stream_errors(bp)
BACK = ("story.log", "story.end")
PAPER_LABELS = {
    "a5": "A5",
    "a4": "A4",
    "b6": "B6",
    "a6": "A6",
    "shinsho": "新書",
    "half-letter": "",
}
# The exports page's choices: (format, print shop, vertical, booklet) for each.
KINDS = {
    "book": ("pdf", False, False, False),
    "print-shop": ("pdf", True, False, False),
    "vertical": ("pdf", False, True, False),
    "booklet": ("pdf", False, False, True),
    "booklet-vertical": ("pdf", False, True, True),
    "epub": ("epub", False, False, False),
    "epub-vertical": ("epub", False, True, False),
    "vault": ("vault", False, False, False),
}
THICKNESSES = (0.08, 0.1, 0.13, 0.16)


def _exports_dir() -> Path:
    return Path(current_app.config["EXPORTS_DIR"])


def download_name(chronicle: chronicles.Chronicle, suffix: str) -> str:
    title = printable(chronicle.title)
    name = re.sub(r'[\x00-\x1f/\\:*?"<>|]+', "", title).strip() or "chronicle"
    return name[:60] + suffix


def download_suffix(job: jobs.Job) -> str:
    """A finished book's file name after the title: edition, paper, layout and extension."""
    parsed = parse_layout(job.layout)
    layout = "" if job.layout == "book" else f"-{job.layout}"
    return f"-{job.edition}-{job.paper}{layout}.{parsed.extension}"


def limit_exports(cap: Capability) -> None:
    """Count an export against the client's and the link's allowance (429 past it)."""
    ratelimit.check_export(cap.token_hash)


def per_stream() -> int:
    """How many books of one chronicle may wait or be made at once (EXPORT_QUEUE_PER_STREAM)."""
    return keeper.per_stream(current_app.config)


def queue_full(limit: int) -> str:
    """Why another book of this chronicle is refused now."""
    return _(
        "This chronicle already has %(count)d books waiting to be made. Wait until one of them"
        " is ready, then ask again.",
        count=limit,
    )


@bp.get("/export.md")
def markdown(token: str) -> Response:
    """The story as one Markdown file."""
    cap, chronicle = open_chronicle(token)
    edition = request.args.get("edition", "annotated")
    if edition not in EDITIONS:
        abort(404)
    limit_exports(cap)
    text = markdown_file(chronicle.id, chronicle.version, chronicle.state, edition)
    name = download_name(chronicle, ".md")
    return download(text.encode("utf-8"), "text/markdown; charset=utf-8", name)


@bp.get("/export.json")
def backup(token: str) -> Response:
    """The JSON backup: the whole event log and its metadata."""
    cap, chronicle = open_chronicle(token)
    if not may_back_up(cap.role, chronicle.state):
        abort(404)  # the shuffled piles would show the cards still to come
    limit_exports(cap)
    text = export_backup(get_db(), chronicle.id)
    name = download_name(chronicle, ".json")
    return download(text.encode("utf-8"), "application/json; charset=utf-8", name)


@bp.post("/export/pdf")
def pdf(token: str) -> Response | tuple[str, int]:
    """Ask for the PDF book of this version: served at once if made, else made by a worker."""
    cap, chronicle = open_chronicle(token)
    limit_exports(cap)
    edition, paper = request.form.get("edition", ""), request.form.get("paper", "")
    back = request.form.get("back", "story.log")
    back_url = url_for(back if back in BACK else "story.log", token=token, _anchor="exports")
    if edition not in EDITIONS or paper not in PAPERS:
        flash(_("Choose an edition and a paper size for the book."), "error")
        return redirect(back_url)
    try:
        layouts = _layouts(
            chronicle, request.form.get("kind", "book"), request.form.get("thickness"), paper
        )
    except BookRefusedError as refused:
        flash(str(refused), "error")
        return redirect(back_url)
    try:
        requested = jobs.request_books(
            get_db(),
            _exports_dir(),
            chronicle.id,
            chronicle.version,
            edition,
            paper,
            layouts,
            per_stream(),
        )
    except jobs.QueueFullError as full:
        return render_template("errors/429.html", reason=queue_full(full.limit), back=back_url), 429
    if all(job.status == "done" for job, _needed in requested) and len(requested) == 1:
        return redirect(_book_url(token, requested[0][0]))
    if any(needed for _job, needed in requested):
        ensure_worker()
    flash(
        _("The book is being made; it will be ready to download here in a few seconds."), "success"
    )
    return redirect(back_url)


class BookRefusedError(ValueError):
    """A book the exports page cannot make, with the sentence that says why."""


def _layouts(
    chronicle: chronicles.Chronicle, kind: str, thickness: str | None, paper_key: str
) -> list[str]:
    """The jobs the exports page's choice makes; BookRefusedError if it cannot be made."""
    if kind not in KINDS:
        raise BookRefusedError(_("This kind of book cannot be made of this chronicle."))
    fmt, print_shop, vertical, booklet = KINDS[kind]
    try:
        paper = float(thickness) if thickness else DEFAULT_THICKNESS_MM
        layouts = layouts_for(fmt, print_shop, vertical, paper, booklet)
    except (EditionError, ValueError):
        low, high = THICKNESS_RANGE_MM
        raise BookRefusedError(
            _("A paper is %(low)s to %(high)s mm thick.", low=low, high=high)
        ) from None
    if any(paper_key not in parse_layout(layout).kind.papers for layout in layouts):
        raise BookRefusedError(  # only a booklet is made on some papers alone
            _("A booklet is an A5 book printed on A4, or a half-letter book on US Letter.")
        )
    try:
        for layout in layouts:
            check(chronicle.state, layout, paper_key)
    except EditionError:
        raise BookRefusedError(_("This kind of book cannot be made of this chronicle.")) from None
    if needs_chromium(layouts) and not vertical_book.ready():
        raise BookRefusedError(chromium_missing())
    return layouts


def chromium_missing() -> str:
    """Why the vertical PDF cannot be made here, and the command that would make it possible."""
    if vertical_book.playwright_installed():
        return _(
            "The vertical PDF is printed by Chromium, which is not installed on this server."
            " The host can install it with: %(command)s",
            command=INSTALL_COMMAND,
        )
    return _(
        "The vertical PDF is printed by Chromium through Playwright, which are not both"
        " installed with this server. The host can install them with: %(command)s",
        command=vertical_book.install_command(),
    )


def ensure_worker() -> None:
    """Start the app's export supervisor if it is not running (asking for a book does)."""
    # Asking for a book may start the app's one supervisor; a status request never does.
    keeper.ensure_for_app(current_app)


PAPER_RULE = "<any(" + ",".join(f'"{p}"' for p in PAPERS) + "):paper>"
EDITION_RULE = "<any(" + ",".join(f'"{e}"' for e in EDITIONS) + "):edition>"


@bp.get(f"/book/v<int:version>-{EDITION_RULE}-{PAPER_RULE}.pdf")
@bp.get(f"/book/v<int:version>-{EDITION_RULE}-{PAPER_RULE}-<layout>.<ext>")
def book(
    token: str, version: int, edition: str, paper: str, layout: str = "book", ext: str = "pdf"
) -> Response:
    """A finished book."""
    _cap, chronicle = open_chronicle(token)
    if not 0 < version <= jobs.MAX_VERSION:
        abort(404)  # no log reaches it (and no database column holds it)
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
    extra: dict[str, Any] = {} if job.layout == "book" else {"layout": job.layout}
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
    status = job.shown_status(_exports_dir())
    return {
        "id": job.id,
        "status": status,
        "progress": job.progress,
        "page": job.page,
        "message": _message(job, status),
        "label": _label(job),
        "url": _book_url(token, job) if status == "done" else None,
        "status_url": url_for("exports.status", token=token, job_id=job.id),
    }


def _label(job: jobs.Job) -> str:
    """What a job makes, in words: its kind, its edition and, for a PDF, its paper."""
    edition = edition_name(job.edition)
    layout = parse_layout(job.layout)
    if not layout.paged:  # an EPUB or a vault has no paper
        return _("%(kind)s · %(edition)s", kind=_layout_name(layout.kind.key), edition=edition)
    paper = PAPER_LABELS[job.paper] or _("Half letter")
    if layout.kind.papers != PAPERS:  # a booklet: two pages a sheet
        sheet = _("A4") if job.paper == "a5" else _("US Letter")
        paper = _("%(paper)s on %(sheet)s", paper=paper, sheet=sheet)
    label = _("%(edition)s, %(paper)s", edition=edition, paper=paper)
    if layout.kind.key == "book":
        return label
    return _("%(kind)s · %(edition)s", kind=_layout_name(layout.kind.key), edition=label)


def _layout_name(kind: str) -> str:
    return {
        "print": _("Print shop: the pages"),
        "cover": _("Print shop: the cover"),
        "vertical": _("Vertical PDF"),
        "booklet": _("Booklet"),
        "booklet-vertical": _("Vertical booklet"),
        "epub": _("EPUB"),
        "epub-vertical": _("Vertical EPUB"),
        "vault": _("Obsidian vault"),
    }[kind]


def _message(job: jobs.Job, status: str) -> str:
    if status == "removed":
        return _(
            "This book's file is no longer kept on the server. Ask for it again and it will"
            " be made again."
        )
    if status == "done":
        return _("Ready.")
    if job.reason == jobs.TIME_LIMIT:
        stopped = _(
            "The book took longer than %(seconds)d seconds and was stopped. Ask for it again"
            " when the server is less busy, or try the story edition; if it fails again, the"
            " host can raise EXPORT_TIME_LIMIT.",
            seconds=_stopped_after(job),
        )
        if not job.page:
            return stopped
        # How far it got tells the host whether a little more time or much more would do.
        return _("%(stopped)s It had laid out %(page)d pages.", stopped=stopped, page=job.page)
    if job.reason == jobs.WORKER_LOST:
        return _("The book could not be made: its maker stopped twice. Tell the host.")
    if job.reason == jobs.DISK_FULL:
        return _("The book could not be made: the server's exports folder is full. Tell the host.")
    if job.status == "failed":
        return _("The book could not be made. Try again; if it fails again, tell the host.")
    if job.status == "queued":
        return _("Waiting for its turn…")
    if job.step == "layout" and job.page:
        return _("Laying out page %(page)d…", page=job.page)
    if job.step == "writing":
        return _("Writing the PDF…")
    return _("Preparing the text…")


def _stopped_after(job: jobs.Job) -> int:
    """The limit the book was stopped at, as its error says (a long book gets more time)."""
    found = re.search(r"after (\d+)", job.error or "")
    return int(found.group(1)) if found else int(current_app.config["EXPORT_TIME_LIMIT"])


@bp.app_context_processor
def _template_helpers() -> dict[str, Any]:
    return {
        "export_jobs_for": export_jobs_for,
        "may_back_up": may_back_up,
        "chromium_installed": vertical_book.ready,
        "chromium_install_command": vertical_book.install_command(),
        "paper_thicknesses": THICKNESSES,
        "default_thickness": DEFAULT_THICKNESS_MM,
    }


def export_jobs_for(token: str, chronicle: chronicles.Chronicle) -> list[dict[str, Any]]:
    """The books of the chronicle's current version, for the export panel."""
    return [
        describe(token, job) for job in jobs.jobs_for(get_db(), chronicle.id, chronicle.version)
    ]
