"""A chronicle's pages: the play page, its form posts, drafts, undo and live polling."""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable
from typing import Any

from flask import (
    Blueprint,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import format_number
from flask_babel import gettext as _
from markupsafe import Markup
from werkzeug.wrappers import Response

from companion import live
from companion.base.limits import TEXT_LIMIT
from companion.legacy import RuleError, State, legal_commands
from companion.legacy.commands import Undo
from companion.store import drafts
from companion.store.capabilities import Capability
from companion.store.db import get_db
from companion.store.events import StaleVersionError
from companion.streams import chronicle_limits, chronicles
from companion.text.markdown import render_markdown
from companion.web.chronicle.kept_words import (
    STEP_FIELDS,
    author,
    for_page,
    holder,
    keep_late_draft,
    keep_refused,
    sent,
    too_long_message,
    typed_again,
    writable,
)
from companion.web.chronicle.narrate import actor_of, describe_since
from companion.web.chronicle.opening import acting_seat, open_chronicle
from companion.web.chronicle.story_view import story_at
from companion.web.chronicle.turn_form import TEXT_FIELDS, FormError, commands_for, draft_allowed
from companion.web.chronicle.undo_view import undo_offer, undo_seat
from companion.web.chronicle.writing import writing_now
from companion.web.shell import polls, ratelimit, streams
from companion.web.shell.access import capability_for, remember, require_write
from companion.web.shell.preview_limit import preview_allowed
from companion.web.shell.text_errors import rule_message

bp = Blueprint("chronicle", __name__, url_prefix="/c/<token>")
streams.use_stream_errors(bp)
log = logging.getLogger("companion.chronicle")
ROLLS = ("roll", "reroll", "sacrifice", "token")
# The live parts a chronicle's page may have pushed with each change (``?part=`` of its feed).
LIVE_PARTS = {"play": "chronicle.play", "story": "story.log"}


def page_context(token: str, cap: Capability, chronicle: chronicles.Chronicle) -> dict[str, Any]:
    """Everything the play page and its live fragment need."""
    state = chronicle.state
    legal = {legal.kind: legal for legal in legal_commands(state)}
    can_act = cap.can_write and cap.may_act_for(state.seat)
    mark = holder(cap)
    in_form, beside = for_page(chronicle, cap, can_act)
    fields = STEP_FIELDS.get(state.step, frozenset())
    rows = drafts.rows_for_turn(get_db(), chronicle.id, state.turn_no)  # read once, used twice
    return {
        "token": token,
        "cap": cap,
        "chronicle": chronicle,
        "state": state,
        "legal": legal,
        "drafts": drafts.for_turn(get_db(), chronicle.id, state.turn_no, mark, rows),
        "can_act": can_act,
        # The X-card is a safety tool: any link that writes may set a prompt aside.
        "can_veil": cap.can_write and "veil-prompt" in legal,
        "posted": in_form,
        "kept": beside,
        "writing": writing_now(chronicle, cap, can_act, fields, mark, rows),
    }


def rendering(context: dict[str, Any]) -> dict[str, Any]:
    """The context with what only a rendering needs: the undo offer, which the version and the
    link's role and seat in every cache key decide (``streams.cache_key``), so a page served
    from the cache never works it out."""
    if "undo" not in context:
        context["undo"] = undo_offer(context["cap"], context["state"])
    return context


def live_html(context: dict[str, Any]) -> Markup:
    """The live part of the play page, rendered once per version and viewer kind."""
    if context.get("posted") or context.get("kept"):  # this link's own words: never shared
        return Markup(render_template("chronicle/_live.html", **rendering(context)))  # noqa: S704
    return streams.live_fragment(live_key(context), "chronicle/_live.html", rendering(context))


def live_key(context: dict[str, Any], kind: str = "live", *more: Hashable) -> tuple[Any, ...]:
    """Everything the live part of the page (or, with ``more``, the whole page) depends on:
    the link and the version (which decide the undo offer), who may act, this link's drafts of
    the turn and who else is writing what (a page showing this link's kept words is never
    cached)."""
    cap, chronicle = context["cap"], context["chronicle"]
    drafts_key = tuple(sorted(context["drafts"].items()))
    return streams.cache_key(
        kind,
        cap,
        chronicle.version,
        context["can_act"],
        context["can_veil"],
        drafts_key,
        context["writing"],
        *more,
    )


@bp.get("/")
def play(token: str) -> str | bytes:
    """The table's main screen: where the life stands and the current turn."""
    known = streams.known_page("play", token)
    if known is not None:
        remember(url_for("chronicle.play", token=token))
        return known
    cap, chronicle = open_chronicle(token)
    remember(url_for("chronicle.play", token=token))
    context = page_context(token, cap, chronicle)
    own = context["posted"] or context["kept"]  # this link's own words: never shared
    if request.args.get("fragment"):
        if own:
            return render_template("chronicle/_live.html", **rendering(context))
        return streams.cached_page(
            live_key(context),
            token,
            lambda: render_template("chronicle/_live.html", **rendering(context)),
        )
    if session.get("_flashes") or own:
        live = live_html(context)
        return render_template("chronicle/play.html", live_html=live, **rendering(context))
    key = live_key(context, "play", request.full_path)
    return streams.cached_page(
        key,
        token,
        lambda: render_template(
            "chronicle/play.html", live_html=live_html(context), **rendering(context)
        ),
    )


@bp.get("/version")
def version(token: str) -> Response:
    """The chronicle's version, polled by open pages to notice changes: read from the store's
    header of the chronicle, never by replaying it; ``drafts`` changes whenever a text of the
    turn is typed, so pages show who is writing (and what) live."""
    _cap, header = streams.open_header(token, chronicles.KIND)
    return jsonify(polls.answer(get_db(), "c", header))


@bp.get("/events")
def events(token: str) -> Response:
    """The version answer, pushed to open pages each time it changes (server-sent events)."""
    cap = capability_for(token, chronicles.KIND)
    # The story's part is its page: the one ``?at=`` names, as the page that opened the feed.
    at = story_at() if request.args.get("part") == "story" else None
    part = streams.live_part(LIVE_PARTS, token=token, **({} if at is None else {"at": at}))
    return live.respond(cap.stream_id, "chronicle.version", part, link=cap.token_hash, token=token)


@bp.post("/turn")
def turn(token: str) -> streams.Refusal:
    """Apply a play-page form: one or more decisions of the current player."""
    cap, chronicle = open_chronicle(token)
    require_write(cap)
    form = request.form
    seen = streams.posted_version(form)
    too_long = [name for name in TEXT_FIELDS if len(form.get(name, "")) > TEXT_LIMIT]
    if too_long:
        return _refuse(token, cap, chronicle, too_long_message(), 400, seen)
    if seen != chronicle.version:
        return _stale(token, cap, chronicle, seen)
    try:
        seat = acting_seat(cap, chronicle)
        commands = commands_for(form.get("action", ""), form, chronicle.state, seat)
        actor = actor_of(cap.role, cap.seat)
        drafts_after = _drafts_after(chronicle, cap, form)
        updated = chronicles.execute(get_db(), chronicle, commands, actor=actor, then=drafts_after)
    except FormError as err:
        return _refuse(token, cap, chronicle, str(err), 400, seen)
    except RuleError as err:
        return _refuse(token, cap, chronicle, rule_message(err), 400, seen)
    except StaleVersionError:
        return _stale(token, cap, chronicles.load(get_db(), chronicle.id), chronicle.version)
    # After the dice, the page opens at their outcome: what happened and what to do now.
    rolled = form.get("action") in ROLLS and updated.state.step in ("success", "mark", "failure")
    anchor = "roll-outcome" if rolled else "turn"
    return redirect(url_for("chronicle.play", token=token, v=updated.version, _anchor=anchor))


def _drafts_after(
    chronicle: chronicles.Chronicle, cap: Capability, form: Any
) -> Callable[[State], None]:
    """A move's draft bookkeeping, committed with its events (``chronicles.execute``)."""

    def bookkeeping(state: State) -> None:
        if not form.get("action", "").startswith("veil"):  # an X-card writes none of the texts
            sent(chronicle, cap, form)
        # an X-card on the chosen prompt gives back the answer and stakes written for it
        drafts.restore_set_aside(get_db(), chronicle.id, state, chronicle.version)

    return bookkeeping


def _refuse(
    token: str,
    cap: Capability,
    chronicle: chronicles.Chronicle,
    message: str,
    status: int,
    seen: int,
) -> streams.Refusal:
    """A refused form: its words are kept for this link, and the page says why."""
    if not streams.wants_json():
        keep_refused(chronicle, cap, request.form, seen)
    target = url_for("chronicle.play", token=token, _anchor="turn")
    return streams.refuse(message, status, target, kept=_kept_json(request.form))


def _stale(
    token: str, cap: Capability, chronicle: chronicles.Chronicle, seen: int
) -> streams.Refusal:
    """409: the chronicle moved on from version ``seen``; the page says who did what since."""
    if not streams.wants_json():
        keep_refused(chronicle, cap, request.form, seen)
    message = describe_since(chronicle, seen)
    target = url_for("chronicle.play", token=token, _anchor="turn")
    return streams.stale(message, chronicle.version, target, kept=_kept_json(request.form))


def _kept_json(form: Any) -> dict[str, str]:
    """The texts a refused form carried, as a JSON refusal gives them back."""
    return {name: form[name] for name in TEXT_FIELDS if form.get(name)}


@bp.post("/undo")
def undo(token: str) -> streams.Refusal:
    """Take back the last decision, if the rules allow it."""
    cap, chronicle = open_chronicle(token)
    require_write(cap)
    back = url_for("chronicle.play", token=token)
    if streams.is_stale(request.form, chronicle.version):
        seen = streams.posted_version(request.form)
        return streams.stale(describe_since(chronicle, seen), chronicle.version, back)
    try:
        seat = undo_seat(cap, chronicle.state)
        actor = actor_of(cap.role, cap.seat)
        chronicles.execute(
            get_db(),
            chronicle,
            [Undo(seat)],
            actor=actor,
            then=lambda state: drafts.restore_undone(get_db(), chronicle.id, state),
        )
    except RuleError as err:
        return streams.refuse(rule_message(err), 400, back)
    except StaleVersionError:
        latest = chronicles.load(get_db(), chronicle.id)
        return streams.stale(describe_since(latest, chronicle.version), latest.version, back)
    flash(_("The last decision was taken back."), "success")
    return redirect(back)


@bp.post("/draft")
def save_draft(token: str) -> Response:
    """Keep a text as the player types it (called by the page's script).

    A draft sent for a turn or step that has moved on (another device moved meanwhile) is not
    lost: it becomes this link's kept words, offered beside the story."""
    cap, chronicle = open_chronicle(token)
    require_write(cap)
    if not ratelimit.drafts_left(cap.token_hash):  # typing saves a few a second at most
        message = _("Too many drafts at once; this one is sent again in a moment.")
        return jsonify(error=message, code="drafts-too-fast"), 429  # type: ignore[return-value]
    name, text = request.form.get("field", ""), request.form.get("text", "")
    if not draft_allowed(name, text, TEXT_LIMIT):
        return jsonify(error=_("This draft cannot be kept."), code="bad-draft"), 400  # type: ignore[return-value]
    state, db = chronicle.state, get_db()
    turn_sent = streams.posted_number(request.form, "turn")
    # A fault while saving raises (503 with Retry-After): "saved" is only ever said of a commit.
    if turn_sent in (-1, state.turn_no) and writable(state, name):
        if not cap.may_act_for(state.seat):  # the turn's texts are its player's (or the host's)
            message = _("Only %(name)s, or the host, writes this turn's texts.", name=state.player)
            return jsonify(error=message, code="not-your-turn"), 403  # type: ignore[return-value]
        private = not state.setup.show_writing
        if not drafts.save(
            db, chronicle.id, state.turn_no, name, text, by=author(cap), private=private
        ):
            return jsonify(error=full_message(), code="chronicle-full"), 400  # type: ignore[return-value]
        typed_again(chronicle, cap, name)
        kept = False
    else:
        keep_late_draft(chronicle, cap, name, text)
        kept = True
    signature = drafts.signature(db, chronicle.id)
    return jsonify(saved=True, kept=kept, version=chronicle.version, drafts=signature)


def full_message() -> str:
    """Why a draft is not kept: the chronicle's texts and drafts fill its budget."""
    megabytes = max(1, chronicle_limits.from_settings().nbytes // chronicle_limits.MiB)
    return str(
        _(
            "This chronicle is full: its texts and drafts may take at most %(megabytes)s MB."
            " Your text stays here, not saved.",
            megabytes=format_number(megabytes),
        )
    )


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
        message = _("At most %(n)s characters.", n=format_number(TEXT_LIMIT))
        return jsonify(error=message, code="too-long"), 400
    return jsonify(html=str(render_markdown(text)))
