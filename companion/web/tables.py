"""Card-game tables: set up seats (people and bots), play hot-seat or one device per seat."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    abort,
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
from werkzeug.wrappers import Response

from .. import capabilities, json_input, matches, ratelimit
from ..capabilities import Capability
from ..cardgames import AnyGame, CardGameRuleError, game_keys, game_package, get_game
from ..db import get_db
from ..store import StaleVersionError, UnknownStreamError
from ..text import render_markdown
from . import table_setup
from .access import capability_for, remember, require_write
from .text_errors import rule_message

bp = Blueprint("tables", __name__)


def _games() -> list[AnyGame]:
    return [get_game(key) for key in game_keys()]


@bp.get("/games/")
def lobby() -> str:
    """Choose a game, name the seats, pick bots and the game's options."""
    return _lobby({})


def _lobby(form: Any) -> str:
    from flask_babel import get_locale

    return render_template(
        "tables/lobby.html",
        games=_games(),
        levels=matches.BOT_LEVELS,
        form=form,
        game_options=table_setup.option_rows(str(get_locale())),
    )


@bp.post("/games/")
def create() -> Response | tuple[str, int]:
    """Set up a table and deal the first match."""
    form = request.form
    key, mode, language = (
        form.get("game", ""),
        form.get("mode", "hotseat"),
        form.get("language", "en"),
    )
    seats = table_setup.seats_from(form, language)
    options = table_setup.options_from(form, key)
    try:
        matches.check_seats(key, seats, mode, language)
        matches.check_options(key, options)
    except matches.MatchSetupError as err:
        flash(rule_message(err), "error")
        return _lobby(form), 400
    ratelimit.check_creation()
    sid, token = matches.create(get_db(), key, seats, mode, language, options=options)
    remember(url_for("tables.table", token=token))
    if mode == "devices":
        return redirect(url_for("tables.links", token=token))
    return redirect(url_for("tables.table", token=token))


@bp.get("/games/<key>/rules")
def rules(key: str) -> str:
    """The game's rules in the reader's language."""
    if key not in game_keys():
        abort(404)
    from flask_babel import get_locale

    game = get_game(key)
    text = game.rules(str(get_locale()))
    return render_template("tables/rules.html", game=game, key=key, rules=render_markdown(text))


def _open(token: str) -> tuple[Capability, matches.Match]:
    cap = capability_for(token)
    try:
        match = matches.load(get_db(), cap.stream_id)
    except (UnknownStreamError, KeyError):
        abort(404)
    if match.key not in game_keys():
        abort(404)
    g.content_language = match.language
    return cap, match


def read_only_notice(match: matches.Match) -> str | None:
    """Why a match only replays, in the reader's language; None while it can be played."""
    if match.read_only == matches.ENGINE_CHANGED:
        return _(
            "This match was recorded under an earlier version of the rules. You can read it and"
            " replay it step by step, but no one can play on."
        )
    if match.read_only is not None:
        return _(
            "This match no longer replays under the current rules: it is shown up to its last move"
            " that still holds, and no one can play on."
        )
    return None


def viewer_seat(cap: Capability, match: matches.Match) -> int | None:
    """Whose eyes this page looks through: a seat link's seat; in hot-seat the person holding
    the device, while it is their move (the cover shows only when the device changes hands)."""
    if cap.role == "seat":
        return cap.seat
    if cap.role == "host" and match.mode == "hotseat":
        holder = _device_holder(match.id)
        if holder is not None and holder in _humans_to_act(match):
            return holder
    return None


def _device_holder(match_id: str) -> int | None:
    """The last person who took this device at this hot-seat table."""
    held = session.get("revealed", {}).get(match_id)
    if isinstance(held, list) and held:  # sessions from before kept [seat, version]
        held = held[0]
    return held if isinstance(held, int) else None


def _humans_to_act(match: matches.Match) -> list[int]:
    return [s for s in match.acting_seats() if match.seats[s].bot is None]


def table_context(token: str, cap: Capability, match: matches.Match) -> dict[str, Any]:
    """What the table page and its live fragment need."""
    seat = viewer_seat(cap, match)
    game = match.game
    view = game.view(match.state, seat)
    legal = game.legal_actions(match.state, seat) if seat is not None and cap.can_write else []
    if seat is not None and match.seats[seat].bot is not None:
        legal = []
    humans_to_act = _humans_to_act(match)
    return {
        "token": token,
        "cap": cap,
        "match": match,
        "game": game,
        "seat": seat,
        "view": view,
        "legal": legal,
        "choices": distinct_choices(match, legal, view),
        "board": board_module(match.key),
        "stylesheet": game_stylesheet(match.key),
        "lang": match.language,
        "log": [describe(game, e, match) for e in view.get("events", [])][-40:],
        "cover": cap.role == "host" and match.mode == "hotseat" and seat is None and humans_to_act,
        "humans_to_act": humans_to_act,
        "result": game.result(match.state),
        "standing": list(zip(match.names(), game.standings(match.state), strict=True)),
        "notice": read_only_notice(match),
    }


def distinct_choices(
    match: matches.Match, legal: list[dict[str, Any]], view: dict[str, Any]
) -> list[tuple[dict[str, Any], str]]:
    """One button per distinct label: two copies of a card in hand do the same thing."""
    seen: dict[str, dict[str, Any]] = {}
    for action in legal:
        seen.setdefault(action_label(match, action, view), action)
    return [(action, label) for label, action in seen.items()]


def game_stylesheet(key: str) -> str | None:
    """The game's own stylesheet under static/css/, if it has one."""
    from flask import current_app

    name = f"css/{key}.css"
    static = current_app.static_folder or ""
    return name if (Path(static) / name).is_file() else None


def board_module(key: str) -> Any | None:
    """The game's page helpers (``<package>.board``: ``label`` and what its board template uses)."""
    import importlib

    try:
        return importlib.import_module(game_package(key) + ".board")
    except ModuleNotFoundError:
        return None


def action_label(match: matches.Match, action: dict[str, Any], view: dict[str, Any]) -> str:
    """The button text of an action: the game's own words, else a plain description."""
    from flask_babel import get_locale

    board = board_module(match.key)
    if board is not None and hasattr(board, "label"):
        return str(board.label(action, view, str(get_locale()), match.names()))
    rest = ", ".join(f"{k}: {v}" for k, v in action.items() if k != "type")
    return f"{action.get('type', '?')}{(' — ' + rest) if rest else ''}"


def describe(game: AnyGame, event: dict[str, Any], match: matches.Match) -> str:
    """An event of the view as a sentence in the reader's language, naming the seats."""
    from flask_babel import get_locale

    return game.describe(event, match.names(), str(get_locale()))


@bp.get("/t/<token>/")
def table(token: str) -> str:
    """The table: the deck, every hand (backs for others), the played cards, scores and the log."""
    cap, match = _open(token)
    remember(url_for("tables.table", token=token))
    context = table_context(token, cap, match)
    if request.args.get("fragment"):
        return render_template("tables/_live.html", **context)
    return render_template("tables/table.html", **context)


@bp.get("/t/<token>/version")
def version(token: str) -> Response:
    """The match's version, polled by open pages."""
    _cap, match = _open(token)
    return jsonify(version=match.version)


@bp.post("/t/<token>/reveal")
def reveal(token: str) -> Response:
    """Hot-seat: the person whose turn it is takes the device and shows their hand."""
    cap, match = _open(token)
    if cap.role != "host" or match.mode != "hotseat":
        abort(404)
    try:
        seat = int(request.form.get("seat", ""))
    except ValueError:
        abort(400)
    if seat not in _humans_to_act(match):
        flash(_("It is not that seat's turn."), "error")
    else:
        revealed = dict(session.get("revealed", {}))
        revealed[match.id] = seat
        session["revealed"] = revealed
    return redirect(url_for("tables.table", token=token))


@bp.post("/t/<token>/act")
def act(token: str) -> Response | tuple[str, int]:
    """Apply one of the legal actions of the viewing seat."""
    cap, match = _open(token)
    require_write(cap)
    seat = viewer_seat(cap, match)
    try:
        if match.read_only is not None:
            raise matches.MatchReadOnlyError()
        version = int(request.form.get("version", ""))
        action = json_input.loads(request.form.get("action", ""))
        if seat is None or not isinstance(action, dict):
            raise CardGameRuleError("Choose an action from the table.", "no-seat")
        matches.act(get_db(), match, seat, action, version)
    except ValueError as err:
        message = (
            rule_message(err)
            if isinstance(err, CardGameRuleError)
            else _("That action could not be read.")
        )
        if isinstance(err, StaleVersionError):
            message = _("Someone moved first; the table now shows the new state.")
        flash(message, "error")
        status = 409 if isinstance(err, (StaleVersionError, matches.MatchReadOnlyError)) else 400
        return render_template(
            "tables/table.html", **table_context(token, cap, matches.load(get_db(), match.id))
        ), status
    return redirect(url_for("tables.table", token=token))


@bp.post("/t/<token>/rematch")
def rematch(token: str) -> Response:
    """Deal again for the same seats."""
    cap, match = _open(token)
    require_write(cap)
    try:
        matches.rematch(get_db(), match, int(request.form.get("version", "-1")))
    except (CardGameRuleError, StaleVersionError) as err:
        flash(
            rule_message(err) if isinstance(err, CardGameRuleError) else _("Someone moved first."),
            "error",
        )
    return redirect(url_for("tables.table", token=token))


@bp.get("/t/<token>/replay")
def replay(token: str) -> str:
    """A finished match, step by step, as a spectator saw it."""
    _cap, match = _open(token)
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
        board=board_module(match.key),
        lang=match.language,
        game=match.game,
        view=view,
        step=step,
        moves=moves,
        log=[describe(match.game, e, match) for e in view.get("events", [])][-40:],
        notice=read_only_notice(match),
    )


@bp.get("/t/<token>/links")
def links(token: str) -> str:
    """The host's join links: one per person's seat, and a spectator link, with QR codes."""
    cap, match = _open(token)
    if cap.role != "host":
        abort(404)
    return render_template("tables/links.html", token=token, match=match, fresh=[])


@bp.post("/t/<token>/links")
def issue_links(token: str) -> str:
    """Issue fresh links for every person's seat and a spectator link (old ones are revoked)."""
    from .links_view import qr_svg

    cap, match = _open(token)
    if cap.role != "host":
        abort(404)
    db = get_db()
    for old in capabilities.active(db, match.id):
        if old.role != "host":
            capabilities.revoke(db, match.id, old.token_hash)
    fresh = []
    for seat, person in enumerate(match.seats):
        if person.bot is None:
            new = capabilities.issue(db, match.id, "seat", seat)
            fresh.append({"label": person.name, "url": _table_url(new)})
    watcher = capabilities.issue(db, match.id, "reader")
    fresh.append({"label": _("Spectators"), "url": _table_url(watcher)})
    for item in fresh:
        item["qr"] = qr_svg(item["url"])
    return render_template("tables/links.html", token=token, match=match, fresh=fresh)


def _table_url(token: str) -> str:
    return url_for("tables.table", token=token, _external=True)
