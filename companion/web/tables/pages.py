"""Card-game tables: set up seats (people and bots), play hot-seat or one device per seat."""

from __future__ import annotations

import json
from typing import Any

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from werkzeug.wrappers import Response

from companion import live
from companion.base import bounds
from companion.base.i18n_marks import N_
from companion.base.languages import DEFAULT
from companion.cardgames import AnyGame, CardGameRuleError, game_keys, get_game
from companion.store import held_forms
from companion.store.capabilities import Capability
from companion.store.db import get_db
from companion.store.events import StaleVersionError, UnknownStreamError
from companion.streams import matches
from companion.text import json_input
from companion.text.markdown import render_markdown
from companion.text.wording import gettext as _
from companion.web.boards import board_for
from companion.web.shell import links_sheet, polls, ratelimit, streams
from companion.web.shell.access import capability_for, remember, require_write
from companion.web.shell.text_errors import rule_message
from companion.web.tables import rules_page
from companion.web.tables import setup as table_setup
from companion.web.tables.view import (
    game_log,
    hold_device,
    humans_to_act,
    live_html,
    live_key,
    passing,
    read_only_notice,
    revealed_to,
    rules_note,
    seen_by,
    viewer_seat,
)

bp = Blueprint("tables", __name__)
bp.add_app_template_global(board_for, "board_for")  # the lobby and rules pages name each game
Refusal = streams.Refusal
streams.use_stream_errors(bp)


def _games() -> list[AnyGame]:
    return [get_game(key) for key in game_keys()]


HELD = "games"  # a refused lobby form's kind among the held forms (and its session key)


@bp.get("/games/")
def lobby() -> str:
    """Choose a game, name the seats, pick bots and the game's options; after a refused post,
    the form as it was sent."""
    held = held_forms.find(get_db(), HELD, session.get("held", {}).get(HELD))
    return _lobby(held if isinstance(held, dict) else {})


def _lobby(form: Any) -> str:
    from flask_babel import get_locale

    return render_template(
        "tables/lobby.html",
        games=_games(),
        bots=table_setup.bot_levels(),
        seat_rows=table_setup.SEAT_ROWS,
        form=form,
        game_options=table_setup.option_rows(str(get_locale())),
    )


@bp.post("/games/")
def create() -> Response:
    """Set up a table and deal the first match."""
    form = request.form
    key, mode, language = (
        form.get("game", ""),
        form.get("mode", "hotseat"),
        form.get("language", DEFAULT),
    )
    try:
        seats = table_setup.seats_from(form, language)
        options = table_setup.options_from(form, key)
        matches.check_seats(key, seats, mode, language)
        matches.check_options(key, options, len(seats))
    except matches.MatchSetupError as err:
        ratelimit.refusals_left()  # 429 for a client refused too often: nothing more is kept
        ratelimit.count_refusal()
        flash(rule_message(err), "error")
        before = session.get("held", {})
        limit = bounds.whole(current_app.config, "HELD_FORM_BYTES")
        kept = table_setup.keepable(form)
        held = held_forms.hold(get_db(), HELD, kept, limit, replaces=before.get(HELD))
        session["held"] = {**before, HELD: held}
        return redirect(url_for("tables.lobby"), streams.SEE_OTHER)
    ratelimit.check_creation()
    kept = dict(session.get("held", {}))
    if HELD in kept:
        held_forms.drop(get_db(), kept.pop(HELD))
        session["held"] = kept
    title = table_setup.name_in(key, language)
    _sid, token = matches.create(get_db(), key, seats, mode, language, options=options, title=title)
    remember(url_for("tables.table", token=token))
    if mode == "devices":
        return redirect(url_for("tables.links", token=token))
    return redirect(url_for("tables.table", token=token))


@bp.get("/games/<key>/rules")
def rules(key: str) -> str:
    """The game's rules in the reader's language."""
    if key not in game_keys():
        abort(404)
    text = render_markdown(rules_page.markdown(key))
    return render_template("tables/rules.html", game=get_game(key), key=key, rules=text)


def open_table(token: str) -> tuple[Capability, matches.Match]:
    """The capability a link grants and the match it opens; the stream error page otherwise
    (with why, for a table whose record cannot be read at all)."""
    missing = (UnknownStreamError, matches.NotAMatchError)
    try:
        cap, match = streams.open_stream(token, matches.load, game_keys(), missing=missing)
    except matches.UnreadableMatchError:
        streams.unreadable(
            _(
                "This table's record is damaged: not even its seats can be read, so it cannot be shown."
            )
        )
    g.content_language = match.language
    return cap, match


@bp.get("/t/<token>/")
def table(token: str) -> str | bytes:
    """The table: the deck, every hand (backs for others), the played cards, scores and the log.

    Rendered once per version and viewer (``view.live_key``): a view of a kept page works
    out nothing but whose eyes it looks through."""
    # In hot-seat, whose eyes: the device holder this browser remembers (``viewer_seat``).
    known = streams.known_page("table", token, repr(session.get("revealed")))
    if known is not None:
        remember(url_for("tables.table", token=token))
        return known
    cap, match = open_table(token)
    remember(url_for("tables.table", token=token))
    seat = viewer_seat(cap, match)

    def page(template: str) -> str:
        context = seen_by(token, cap, match, seat)
        if template == "tables/_live.html":
            return render_template(template, **context)
        return render_template(template, live_html=live_html(context), **context)

    keyed = {"cap": cap, "match": match, "seat": seat, "passing": passing(cap, match)}
    if request.args.get("fragment"):
        key = live_key(keyed)
        return streams.cached_page(key, token, lambda: page("tables/_live.html"))
    if session.get("_flashes"):
        return page("tables/table.html")
    key = live_key(keyed, "table", request.full_path)
    return streams.cached_page(key, token, lambda: page("tables/table.html"))


@bp.get("/t/<token>/version")
def version(token: str) -> Response:
    """The match's version, polled by open pages: read from the store's header of the match,
    never by replaying it."""
    _cap, header = streams.open_header(token, game_keys())
    return jsonify(polls.answer(get_db(), "t", header))


@bp.get("/t/<token>/events")
def events(token: str) -> Response:
    """The version answer, pushed to open pages each time it changes (server-sent events)."""
    cap = capability_for(token)
    return live.respond(cap.stream_id, "tables.version", link=cap.token_hash, token=token)


@bp.post("/t/<token>/reveal")
def reveal(token: str) -> Response | Refusal:
    """Hot-seat: the person whose turn it is takes the device and shows their hand."""
    cap, match = open_table(token)
    if cap.role != "host" or match.mode != "hotseat":
        abort(404)
    seat = streams.posted_number(request.form, "seat")
    if seat not in humans_to_act(match):
        message = _("It is not that seat's turn.")
        return streams.refuse(message, 409, url_for("tables.table", token=token))
    hold_device(match.id, seat)
    return redirect(url_for("tables.table", token=token))


@bp.post("/t/<token>/pass")
def pass_device(token: str) -> Response:
    """Hot-seat: the person who just moved has seen what their move showed them; the device
    is passed on (the cover screen hides every hand again)."""
    cap, match = open_table(token)
    if cap.role != "host" or match.mode != "hotseat":
        abort(404)
    hold_device(match.id, None)
    return redirect(url_for("tables.table", token=token))


@bp.post("/t/<token>/act")
def act(token: str) -> Response | Refusal:
    """Apply one of the legal actions of the viewing seat."""
    cap, match = open_table(token)
    require_write(cap)
    if match.read_only is not None:
        return _refused(token, cap, match, matches.MatchReadOnlyError())
    if streams.is_stale(request.form, match.version):
        return _stale(token, cap, match)
    seat = viewer_seat(cap, match)
    batched = "batch" in request.form
    sent = request.form.getlist("actions") if batched else [request.form.get("action", "")]
    if len(sent) > MAX_BATCH:
        return _refused(token, cap, match, None)
    try:
        actions = [json_input.loads(text) for text in sent]
    except (json.JSONDecodeError, json_input.JsonInputError):
        return _refused(token, cap, match, None)
    # Only the input's and the rules' refusals are answered here: any other error is a fault
    # of the engine, and reaches the error log (500, with the request's id) instead.
    try:
        if seat is None or not actions or not all(isinstance(a, dict) for a in actions):
            raise CardGameRuleError("no-seat", N_("Choose an action from the table."))
        if batched:
            _check_batch(match, seat, actions)
        moved = matches.act_all(get_db(), match, seat, actions, match.version)
    except StaleVersionError:
        return _stale(token, cap, matches.load(get_db(), match.id))
    except CardGameRuleError as err:
        return _refused(token, cap, match, err)
    _look_before_passing(cap, match, moved, seat)
    return redirect(url_for("tables.table", token=token))


# The most moves one form may send at once (a batch: the cards ticked to discard).
MAX_BATCH = 64


def _check_batch(match: matches.Match, seat: int, actions: list[dict[str, Any]]) -> None:
    """A batch holds, for each group of its form, as many of that group's boxes as it asks
    (CardGameRuleError, naming the group, otherwise); the engine then checks every move."""
    view = match.game.view(match.state, seat)
    batch = board_for(match.key).batch(view, match.names())
    if batch is None:
        raise CardGameRuleError("no-batch", N_("Choose an action from the table."))
    left = list(actions)
    for group in batch["groups"]:
        offered = [item["action"] for item in group["items"]]
        ticked = [a for a in left if a in offered]
        if len(ticked) != group["need"]:
            raise CardGameRuleError(
                "batch-count",
                N_("Tick %(need)d, not %(ticked)d: %(group)s"),
                need=group["need"],
                ticked=len(ticked),
                group=group["title"],
            )
        left = [a for a in left if a not in offered]
    if left:
        raise CardGameRuleError("no-batch", N_("Choose an action from the table."))


def _look_before_passing(
    cap: Capability, before: matches.Match, after: matches.Match, seat: int
) -> None:
    """Hot-seat: when a move showed its player something hidden (a hand looked at, a card
    drawn) and the device goes to someone else next, that player sees it first; the page
    then offers to pass the device on."""
    if cap.role != "host" or before.mode != "hotseat" or seat in humans_to_act(after):
        return
    if revealed_to(seat, before.state, after.state):
        hold_device(after.id, [seat, after.version])


@bp.post("/t/<token>/rematch")
def rematch(token: str) -> Response | Refusal:
    """Deal again for the same seats, once the match is over."""
    cap, match = open_table(token)
    require_write(cap)
    if streams.is_stale(request.form, match.version):
        return _stale(token, cap, match)
    try:
        matches.rematch(get_db(), match, match.version)
    except StaleVersionError:
        return _stale(token, cap, matches.load(get_db(), match.id))
    except CardGameRuleError as err:
        return _refused(token, cap, match, err, status=409)
    return redirect(url_for("tables.table", token=token))


def _stale(token: str, cap: Capability, match: matches.Match) -> Refusal:
    """409: the table moved on since the page was made; the page (or JSON) shows it now."""
    message = _("Someone moved first; the table now shows the new state.")
    return streams.stale(message, match.version, url_for("tables.table", token=token))


def _refused(
    token: str,
    cap: Capability,
    match: matches.Match,
    err: CardGameRuleError | None,
    status: int = 400,
) -> Refusal:
    """A refused post: the rule's sentence (409 at a table that only replays), nothing stored;
    ``err`` None: the action sent could not be read as JSON."""
    read_only = isinstance(err, matches.MatchReadOnlyError)
    if isinstance(err, matches.MatchReadOnlyError):
        message = read_only_notice(match) or rule_message(err, match.key)
    elif err is not None:
        message = rule_message(err, match.key)
    else:
        message = _("That action could not be read.")
    return streams.refuse(
        message,
        409 if read_only else status,
        url_for("tables.table", token=token),
        code="read-only" if read_only else "refused",
    )


@bp.get("/t/<token>/replay")
def replay(token: str) -> str:
    """A finished match, step by step, as a spectator saw it."""
    _cap, match = open_table(token)
    moves = len(match.game.log(match.state))
    try:
        step = max(0, min(moves, int(request.args.get("step", moves))))
    except ValueError:
        step = moves
    state = matches.state_at(match, step)
    view = match.game.view(state, None)
    return render_template(
        "tables/replay.html",
        token=token,
        match=match,
        board=board_for(match.key),
        lang=match.language,
        game=match.game,
        view=view,
        step=step,
        moves=moves,
        log=game_log(match, view),
        notice=read_only_notice(match),
        rules_note=rules_note(match),
    )


def _sheet(match: matches.Match) -> links_sheet.Sheet:
    return links_sheet.Sheet(
        template="tables/links.html",
        opens="tables.table",
        manage="tables.issue_links",
        stream_id=match.id,
        seats=[None if seat.bot is not None else seat.name for seat in match.seats],
        revoked=_("The link was revoked: it no longer opens this table."),
        bare_post="everyone",
    )


@bp.get("/t/<token>/links")
def links(token: str) -> str:
    """The host's links sheet: each person's seat and the spectators, with QR codes."""
    cap, match = open_table(token)
    return links_sheet.show(token, cap, _sheet(match), match=match, board=board_for(match.key))


@bp.post("/t/<token>/links")
def issue_links(token: str) -> links_sheet.Answer:
    """Make links (one seat, the spectators, or everyone at once), or revoke one."""
    cap, match = open_table(token)
    return links_sheet.manage(token, cap, _sheet(match), match=match, board=board_for(match.key))
