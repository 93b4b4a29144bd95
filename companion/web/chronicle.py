"""A chronicle's pages: the play page, its form posts, drafts, undo and live polling."""

from __future__ import annotations

import logging
from collections.abc import Hashable
from typing import Any

from flask import (
    Blueprint,
    flash,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext as _
from markupsafe import Markup
from werkzeug.wrappers import Response

from .. import chronicles, drafts
from ..capabilities import Capability
from ..db import get_db
from ..legacy import RuleError, legal_commands
from ..legacy.commands import Undo
from ..store import StaleVersionError
from ..text import render_markdown
from . import streams
from .access import remember, require_write
from .narrate import describe_since
from .preview_limit import preview_allowed
from .text_errors import rule_message
from .turn_form import DRAFT_FIELDS, TEXT_FIELDS, FormError, commands_for, draft_allowed
from .undo_view import undo_offer, undo_seat

bp = Blueprint("chronicle", __name__, url_prefix="/c/<token>")
streams.use_stream_errors(bp)
log = logging.getLogger("companion.chronicle")
TEXT_LIMIT = 20_000
Refusal = tuple[str | Response, int]


def open_chronicle(token: str) -> tuple[Capability, chronicles.Chronicle]:
    """The capability a link grants and the chronicle it opens; the stream error page otherwise."""
    cap, chronicle = streams.open_stream(token, chronicles.load, chronicles.KIND)
    # Without an explicit choice, the interface follows the chronicle's language.
    g.content_language = chronicle.state.setup.language
    return cap, chronicle


def acting_seat(cap: Capability, chronicle: chronicles.Chronicle) -> int:
    """The seat a command from this link is issued for: the host acts for whoever's turn it is."""
    if cap.role == "seat" and cap.seat is not None:
        return cap.seat
    return chronicle.state.seat


def page_context(token: str, cap: Capability, chronicle: chronicles.Chronicle) -> dict[str, Any]:
    """Everything the play page and its live fragment need."""
    state = chronicle.state
    legal = {legal.kind: legal for legal in legal_commands(state)}
    return {
        "token": token,
        "cap": cap,
        "chronicle": chronicle,
        "state": state,
        "legal": legal,
        "drafts": drafts.for_turn(get_db(), chronicle.id, state.turn_no),
        "can_act": cap.can_write and cap.may_act_for(state.seat),
        # The X-card is a safety tool: any link that writes may set a prompt aside.
        "can_veil": cap.can_write and "veil-prompt" in legal,
        "undo": undo_offer(cap, state),
    }


def live_html(context: dict[str, Any]) -> Markup:
    """The live part of the play page, rendered once per version and viewer kind."""
    if context.get("posted"):
        return Markup(render_template("chronicle/_live.html", **context))  # noqa: S704
    return streams.live_fragment(live_key(context), "chronicle/_live.html", context)


def live_key(context: dict[str, Any], kind: str = "live", *more: Hashable) -> tuple[Any, ...]:
    """Everything the live part of the page (or, with ``more``, the whole page) depends on."""
    cap, chronicle = context["cap"], context["chronicle"]
    drafts_key = tuple(sorted(context["drafts"].items()))
    return streams.cache_key(
        kind,
        cap,
        chronicle.version,
        context["can_act"],
        context["can_veil"],
        context["undo"],
        drafts_key,
        *more,
    )


@bp.get("/")
def play(token: str) -> str:
    """The table's main screen: where the life stands and the current turn."""
    cap, chronicle = open_chronicle(token)
    remember(url_for("chronicle.play", token=token))
    context = page_context(token, cap, chronicle)
    html = live_html(context)
    if request.args.get("fragment"):
        return str(html)
    if session.get("_flashes"):
        return render_template("chronicle/play.html", live_html=html, **context)
    key = live_key(context, "play", request.full_path)
    return str(
        streams.cached_page(
            key, token, lambda: render_template("chronicle/play.html", live_html=html, **context)
        )
    )


@bp.get("/version")
def version(token: str) -> Response:
    """The chronicle's version, polled by open pages to notice changes."""
    _cap, chronicle = open_chronicle(token)
    return streams.version_json(chronicle.version, phase=chronicle.state.phase)


@bp.post("/turn")
def turn(token: str) -> Response | Refusal:
    """Apply a play-page form: one or more decisions of the current player."""
    cap, chronicle = open_chronicle(token)
    require_write(cap)
    form = request.form
    if cap.may_act_for(chronicle.state.seat):  # an X-card from another seat keeps no drafts
        _keep_drafts(chronicle, form)
    too_long = [name for name in TEXT_FIELDS if len(form.get(name, "")) > TEXT_LIMIT]
    if too_long:
        return _refuse(
            token,
            cap,
            chronicle,
            _(
                "A text may hold at most 20,000 characters; shorten it and try again. Your text is kept."
            ),
            400,
        )
    if streams.is_stale(form, chronicle.version):
        return _stale(token, cap, chronicle, streams.posted_version(form))
    try:
        seat = acting_seat(cap, chronicle)
        commands = commands_for(form.get("action", ""), form, chronicle.state, seat)
        updated = chronicles.execute(get_db(), chronicle, commands)
    except FormError as err:
        return _refuse(token, cap, chronicle, str(err), 400)
    except RuleError as err:
        return _refuse(token, cap, chronicle, rule_message(err), 400)
    except StaleVersionError:
        return _stale(token, cap, chronicles.load(get_db(), chronicle.id), chronicle.version)
    if not form.get("action", "").startswith("veil"):  # an X-card writes none of the texts
        drafts.clear_turn(get_db(), chronicle.id, chronicle.state.turn_no, _used_fields(form))
    drafts.restore_set_aside(get_db(), updated.id, updated.state, chronicle.version)
    return redirect(url_for("chronicle.play", token=token, v=updated.version, _anchor="turn"))


def _used_fields(form: Any) -> list[str]:
    return [name for name in DRAFT_FIELDS if name in form]


def _keep_drafts(chronicle: chronicles.Chronicle, form: Any) -> None:
    """Save every text (and the prompt chosen) as a draft first: a refusal never loses them."""
    for name in DRAFT_FIELDS:
        text = form.get(name)
        if text and draft_allowed(name, text, TEXT_LIMIT):
            drafts.save(get_db(), chronicle.id, chronicle.state.turn_no, name, text)


def _refuse(
    token: str, cap: Capability, chronicle: chronicles.Chronicle, message: str, status: int
) -> Refusal:
    return streams.refuse(message, status, lambda: _posted_page(token, cap, chronicle))


def _stale(token: str, cap: Capability, chronicle: chronicles.Chronicle, seen: int) -> Refusal:
    """409: the chronicle moved on from version ``seen``; the page says what happened since."""
    message = describe_since(chronicle, seen)
    return streams.stale(message, chronicle.version, lambda: _posted_page(token, cap, chronicle))


def _posted_page(token: str, cap: Capability, chronicle: chronicles.Chronicle) -> str:
    """The play page again with the texts the player sent still in the form."""
    context = page_context(token, cap, chronicle)
    context["posted"] = request.form
    return render_template("chronicle/play.html", live_html=live_html(context), **context)


@bp.post("/undo")
def undo(token: str) -> Response | Refusal:
    """Take back the last decision, if the rules allow it."""
    cap, chronicle = open_chronicle(token)
    require_write(cap)
    if streams.is_stale(request.form, chronicle.version):
        return _stale(token, cap, chronicle, streams.posted_version(request.form))
    try:
        undone = chronicles.execute(get_db(), chronicle, [Undo(undo_seat(cap, chronicle.state))])
    except RuleError as err:
        return _refuse(token, cap, chronicle, rule_message(err), 400)
    except StaleVersionError:
        return _stale(token, cap, chronicles.load(get_db(), chronicle.id), chronicle.version)
    drafts.restore_undone(get_db(), undone.id, undone.state)
    flash(_("The last decision was taken back."), "success")
    return redirect(url_for("chronicle.play", token=token))


@bp.post("/draft")
def save_draft(token: str) -> Response:
    """Keep a text as the player types it (called by the page's script)."""
    cap, chronicle = open_chronicle(token)
    require_write(cap)
    name, text = request.form.get("field", ""), request.form.get("text", "")
    if not draft_allowed(name, text, TEXT_LIMIT):
        return jsonify(error=_("This draft cannot be kept."), code="bad-draft"), 400  # type: ignore[return-value]
    # A fault while saving raises (503 with Retry-After): "saved" is only ever said of a commit.
    drafts.save(get_db(), chronicle.id, chronicle.state.turn_no, name, text)
    return jsonify(saved=True, version=chronicle.version)


@bp.post("/preview")
def preview(token: str) -> Response | tuple[Response, int]:
    """Markdown rendered and cleaned exactly as the story will show it (for links that write)."""
    cap, _chronicle = open_chronicle(token)
    require_write(cap)
    if not preview_allowed():
        message = _("Too many previews at once; the preview will be back in a moment.")
        return jsonify(error=message, code="too-many-previews"), 429
    text = request.form.get("text", "")
    if len(text) > TEXT_LIMIT:
        message = _("At most %(n)d characters.", n=TEXT_LIMIT)
        return jsonify(error=message, code="too-long"), 400
    return jsonify(html=str(render_markdown(text)))


# The links page joins this blueprint from its own module.
from . import links_view as _links_view  # noqa: E402, F401
