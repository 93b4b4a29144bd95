"""The story log, corrections, and the end of the life (result, epilogue, timeline)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, session, url_for

from companion.base.limits import TEXT_LIMIT
from companion.export import jobs
from companion.legacy import RuleError, State
from companion.legacy.cards import STAGES
from companion.legacy.commands import Command, ReviseText, WriteEpilogue
from companion.legacy.texts import find_text
from companion.store import drafts
from companion.store.capabilities import Capability
from companion.store.db import get_db
from companion.store.events import StaleVersionError
from companion.streams import chronicles
from companion.streams.chronicle_limits import LimitError
from companion.text.bidi import isolate
from companion.text.story import (
    life_timeline,
    page_at,
    story_chapters,
    story_pages,
    timeline_rounds,
)
from companion.text.terms import stage_name
from companion.text.wording import gettext as _
from companion.web.chronicle.kept_words import holder, too_long_message
from companion.web.chronicle.narrate import actor_of, describe_since
from companion.web.chronicle.opening import acting_seat, open_chronicle
from companion.web.shell import streams
from companion.web.shell.access import require_write
from companion.web.shell.text_errors import rule_message, rule_status

bp = Blueprint("story", __name__, url_prefix="/c/<token>")
streams.use_stream_errors(bp)


@bp.get("/story")
def log(token: str) -> str | bytes:
    """The life as a story: a chapter per stage, each turning point in full; a long life a
    page at a time (``?at=`` names a turning point on the page; none: the latest page)."""
    at = story_at()
    known = streams.known_page("story", token)
    if known is not None:
        return known
    cap, chronicle = open_chronicle(token)
    context = _context(token, cap, chronicle)
    pages = story_pages(chronicle.state)
    shown = page_at(pages, at)
    context.update(at=at, pages=pages, page=shown)

    chapters_key = streams.cache_key("story", cap, chronicle.version, shown.number)

    def chapters() -> str:
        return render_template(
            "chronicle/_chapters.html", chapters=story_chapters(chronicle.state), **context
        )

    def page() -> str:
        chapters_html = streams.cached_part(chapters_key, token, chapters)
        return render_template("chronicle/story.html", chapters_html=chapters_html, **context)

    if request.args.get("fragment"):  # the live part, fetched by open pages when it changed
        return streams.cached_page(chapters_key, token, chapters)
    if session.get("_flashes"):
        return page()
    # The whole page is kept too; the export panel's books are part of its key.
    books = tuple(
        (job.id, job.status, job.progress, job.page)
        for job in jobs.jobs_for(get_db(), chronicle.id, chronicle.version)
    )
    key = streams.cache_key("story-page", cap, chronicle.version, request.full_path, books)
    return streams.cached_page(key, token, page)


def story_at() -> int | None:
    """The turning point a story address names (``?at=``): None when it names none; a value
    that is not a seq is a page that does not exist."""
    raw = request.args.get("at")
    if raw is None:
        return None
    at = _read_seq(raw)
    if at is None:
        abort(404)
    return at


def _read_seq(raw: object) -> int | None:
    """An event's seq as a form or an address writes it (digits only), or None."""
    if isinstance(raw, str) and raw.isascii() and raw.isdigit() and len(raw) <= 18:
        return int(raw)
    return None


@bp.get("/text/<int:seq>/<field>")
def text(token: str, seq: int, field: str) -> str:
    """A text of the story with its history, and the form that corrects it."""
    cap, chronicle = open_chronicle(token)
    require_write(cap)
    found = find_text(chronicle.state, seq, field)
    if found is None:
        abort(404)
    posted = _kept(chronicle, cap).get(_revise_key(seq, field))
    return _text_page(token, cap, chronicle, found, posted)


def _revise_key(seq: int, field: str) -> str:
    """The kept-words field a correction's text is kept under when it is refused."""
    return f"revise:{seq}:{field}"


def _kept(chronicle: chronicles.Chronicle, cap: Capability) -> dict[str, str]:
    """The words kept for this link, by field (a refused correction's or epilogue's text)."""
    if not cap.can_write:
        return {}
    return {
        name: text for name, (text, _p) in drafts.kept(get_db(), chronicle.id, holder(cap)).items()
    }


def _keep(chronicle: chronicles.Chronicle, cap: Capability, name: str, text: str) -> None:
    """Keep a refused form's text for this link: its page shows it again in the form."""
    if not streams.wants_json():
        drafts.keep(get_db(), chronicle.id, holder(cap), {name: text})


@bp.post("/revise")
def revise(token: str) -> streams.Refusal:
    """Correct a text written earlier; the correction is an event and the history stays."""
    cap, chronicle = open_chronicle(token)
    require_write(cap)
    form = request.form
    found = find_text(chronicle.state, _seq(form), form.get("field", ""))
    if found is None:
        abort(404)  # as the correction page of a text that is not there
    name, typed = _revise_key(found.seq, found.field), form.get("text", "")
    back = url_for("story.text", token=token, seq=found.seq, field=found.field)
    if len(typed) > TEXT_LIMIT:
        _keep(chronicle, cap, name, typed)
        return streams.refuse(too_long_message(), 400, back)
    if streams.is_stale(form, chronicle.version):
        _keep(chronicle, cap, name, typed)
        return _stale(chronicle, streams.posted_version(form), back)
    command = ReviseText(acting_seat(cap, chronicle), found.seq, found.field, typed)
    refused = _execute(
        chronicle,
        cap,
        command,
        back,
        lambda _state: drafts.drop_kept(get_db(), chronicle.id, holder(cap), [name]),
    )
    if refused is not None:
        _keep(chronicle, cap, name, typed)
        return refused
    flash(_("The correction is kept; earlier versions stay in its history."), "success")
    anchor = form.get("anchor", "")
    return redirect(url_for("story.log", token=token, at=_anchored(anchor), _anchor=anchor))


def _anchored(anchor: str) -> int | None:
    """The turning point a story anchor (``tp-<seq>``) is on, for the page that holds it."""
    return _read_seq(anchor.removeprefix("tp-")) if anchor.startswith("tp-") else None


def _seq(form: Any) -> int:
    seq = _read_seq(form.get("target_seq", ""))
    return -1 if seq is None else seq


def _execute(
    chronicle: chronicles.Chronicle,
    cap: Capability,
    command: Command,
    back: str,
    then: Callable[[State], None],
) -> streams.Refusal | None:
    """Carry out ``command`` and ``then`` its draft bookkeeping, in one transaction; a refusal
    (the rules, or someone writing first) goes ``back``."""
    actor = actor_of(cap.role, cap.seat)
    try:
        chronicles.execute(get_db(), chronicle, [command], actor=actor, then=then)
    except LimitError as err:  # the chronicle is full, or corrected too often or too fast
        return streams.refuse(rule_message(err), rule_status(err), back)
    except RuleError as err:
        return streams.refuse(rule_message(err), 400, back)
    except StaleVersionError:
        return _stale(chronicles.load(get_db(), chronicle.id), chronicle.version, back)
    return None


def _stale(chronicle: chronicles.Chronicle, seen: int, back: str) -> streams.Refusal:
    """409: the chronicle moved on since the form was made; the page shows it now, text kept."""
    message = describe_since(chronicle, seen)
    return streams.stale(message, chronicle.version, back)


def _context(token: str, cap: Capability, chronicle: chronicles.Chronicle) -> dict[str, Any]:
    return {"token": token, "cap": cap, "chronicle": chronicle, "state": chronicle.state}


def _text_page(
    token: str,
    cap: Capability,
    chronicle: chronicles.Chronicle,
    found: Any,
    posted: str | None = None,
) -> str:
    anchor = next(
        (f"tp-{tp.seq}" for tp in reversed(chronicle.state.turning_points) if tp.seq <= found.seq),
        "",
    )
    return render_template(
        "chronicle/text.html",
        text=found,
        anchor=anchor,
        at=_anchored(anchor),
        posted=posted,
        **_context(token, cap, chronicle),
    )


@bp.get("/end")
def end(token: str) -> str:
    """The result of the life, the epilogue and the timeline."""
    cap, chronicle = open_chronicle(token)
    state = chronicle.state
    fragment = bool(request.args.get("fragment"))  # only its live part, for open pages
    return render_template(
        "chronicle/_end_live.html" if fragment else "chronicle/end.html",
        signs=[r for r in timeline_rounds(state) if r.mark or r.sacrifices or r.losses],
        timeline=life_timeline(
            state,
            [f"{stage_name(s.index)} {s.age}" for s in STAGES],
            _("The life of %(name)s", name=isolate(state.setup.pioneer)),
        ),
        posted=_kept(chronicle, cap).get("epilogue"),
        draft=_epilogue_draft(chronicle, cap),
        **_context(token, cap, chronicle),
    )


def _epilogue_draft(chronicle: chronicles.Chronicle, cap: Capability) -> str | None:
    """The epilogue as it is being typed (on any device, or taken back by an undo), if it is."""
    if not cap.can_write or not chronicle.state.ended:
        return None
    state = chronicle.state
    return drafts.for_turn(get_db(), chronicle.id, state.turn_no, holder(cap)).get("epilogue")


@bp.post("/epilogue")
def epilogue(token: str) -> streams.Refusal:
    """Write (or rewrite) the epilogue once the life has ended."""
    cap, chronicle = open_chronicle(token)
    require_write(cap)
    form, back = request.form, url_for("story.end", token=token, _anchor="epilogue")
    text = form.get("epilogue", "")
    if len(text) > TEXT_LIMIT:
        _keep(chronicle, cap, "epilogue", text)
        return streams.refuse(too_long_message(), 400, back)
    if streams.is_stale(form, chronicle.version):
        _keep(chronicle, cap, "epilogue", text)
        return _stale(chronicle, streams.posted_version(form), back)
    seat = acting_seat(cap, chronicle)
    written = chronicle.state.epilogue
    command: Command = (
        WriteEpilogue(seat, text)
        if written is None
        else ReviseText(seat, written.seq, written.field, text)
    )

    def written_out(_state: State) -> None:
        drafts.drop_kept(get_db(), chronicle.id, holder(cap), ["epilogue"])
        drafts.clear_turn(get_db(), chronicle.id, chronicle.state.turn_no, ["epilogue"])

    refused = _execute(chronicle, cap, command, back, written_out)
    if refused is not None:
        _keep(chronicle, cap, "epilogue", text)
        return refused
    flash(_("The epilogue is written."), "success")
    return redirect(url_for("story.end", token=token))
