"""The story log, corrections, and the end of the life (result, epilogue, timeline)."""

from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, request, session, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from markupsafe import Markup
from werkzeug.wrappers import Response

from .. import chronicles
from ..db import get_db
from ..export import jobs
from ..legacy import RuleError
from ..legacy.cards import STAGES
from ..legacy.commands import ReviseText, WriteEpilogue
from ..legacy.texts import find_text
from ..store import StaleVersionError
from ..story import life_timeline, story_chapters, timeline_rounds
from . import streams
from .access import require_write
from .chronicle import acting_seat, open_chronicle
from .render_cache import cached
from .terms import stage_name
from .text_errors import rule_message

bp = Blueprint("story", __name__, url_prefix="/c/<token>")
streams.use_stream_errors(bp)
TEXT_LIMIT = 20_000


@bp.get("/story")
def log(token: str) -> str:
    """The life as a story: a chapter per stage, each turning point in full."""
    cap, chronicle = open_chronicle(token)
    context = {"token": token, "cap": cap, "chronicle": chronicle, "state": chronicle.state}
    key = ("story", chronicle.id, chronicle.version, str(get_locale()), cap.can_write)

    def chapters_html() -> Markup:
        return cached(
            key,
            lambda: render_template(
                "chronicle/_chapters.html", chapters=story_chapters(chronicle.state), **context
            ),
            token=token,
        )

    if session.get("_flashes"):
        return render_template("chronicle/story.html", chapters_html=chapters_html(), **context)
    # The whole page is kept too; the export panel's books are part of its key.
    books = tuple(
        (job.id, job.status, job.progress, job.page)
        for job in jobs.jobs_for(get_db(), chronicle.id, chronicle.version)
    )
    page_key = ("story-page", request.full_path, key, cap.role, books)
    return str(
        cached(
            page_key,
            lambda: render_template(
                "chronicle/story.html", chapters_html=chapters_html(), **context
            ),
            token=token,
        )
    )


@bp.get("/text/<int:seq>/<field>")
def text(token: str, seq: int, field: str) -> str:
    """A text of the story with its history, and the form that corrects it."""
    cap, chronicle = open_chronicle(token)
    require_write(cap)
    found = find_text(chronicle.state, seq, field)
    if found is None:
        abort(404)
    anchor = next(
        (f"tp-{tp.seq}" for tp in reversed(chronicle.state.turning_points) if tp.seq <= seq), ""
    )
    return render_template(
        "chronicle/text.html",
        token=token,
        cap=cap,
        chronicle=chronicle,
        state=chronicle.state,
        text=found,
        anchor=anchor,
    )


@bp.post("/revise")
def revise(token: str) -> Response | tuple[str, int]:
    """Correct a text written earlier; the correction is an event and the history stays."""
    cap, chronicle = open_chronicle(token)
    require_write(cap)
    text = request.form.get("text", "")
    back = url_for("story.log", token=token, _anchor=request.form.get("anchor", ""))
    if len(text) > TEXT_LIMIT:
        flash(_("A text may hold at most 20,000 characters; nothing was changed."), "error")
        return redirect(back)
    try:
        command = ReviseText(
            acting_seat(cap, chronicle),
            int(request.form.get("target_seq", "")),
            request.form.get("field", ""),
            text,
        )
        chronicles.execute(get_db(), chronicle, [command])
    except ValueError as err:
        message = (
            rule_message(err) if isinstance(err, RuleError) else _("That text cannot be found.")
        )
        flash(message, "error")
    except StaleVersionError:
        flash(_("Someone changed the chronicle at the same moment; try again."), "error")
    else:
        flash(_("The correction is kept; earlier versions stay in its history."), "success")
    return redirect(back)


@bp.get("/end")
def end(token: str) -> str:
    """The result of the life, the epilogue and the timeline."""
    cap, chronicle = open_chronicle(token)
    state = chronicle.state
    return render_template(
        "chronicle/end.html",
        token=token,
        cap=cap,
        chronicle=chronicle,
        state=state,
        signs=[r for r in timeline_rounds(state) if r.mark or r.sacrifices or r.losses],
        timeline=life_timeline(
            state,
            [f"{stage_name(s.index)} {s.age}" for s in STAGES],
            _("The life of %(name)s", name=state.setup.pioneer),
        ),
    )


@bp.post("/epilogue")
def epilogue(token: str) -> Response:
    """Write (or rewrite) the epilogue once the life has ended."""
    cap, chronicle = open_chronicle(token)
    require_write(cap)
    text = request.form.get("epilogue", "")
    try:
        if chronicle.state.epilogue is not None:
            seq, field = chronicle.state.epilogue.seq, chronicle.state.epilogue.field
            command = ReviseText(acting_seat(cap, chronicle), seq, field, text)
        else:
            command = WriteEpilogue(acting_seat(cap, chronicle), text)
        chronicles.execute(get_db(), chronicle, [command])
    except RuleError as err:
        flash(rule_message(err), "error")
    except StaleVersionError:
        flash(_("Someone changed the chronicle at the same moment; try again."), "error")
    else:
        flash(_("The epilogue is written."), "success")
    return redirect(url_for("story.end", token=token))
