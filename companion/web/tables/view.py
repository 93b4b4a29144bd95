"""What a card table's page shows one viewer: whose eyes it looks through (a seat link's seat,
the person holding a hot-seat device), their view and choices, the log and the read-only notice,
and the live part of the page, rendered once per version and kind of viewer."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import current_app, request, session
from markupsafe import Markup

from companion.store.capabilities import Capability
from companion.streams import matches
from companion.text.wording import gettext as _
from companion.web.boards import board_for
from companion.web.shell import streams
from companion.web.tables.choosing import with_steps

LOG_LINES = 40  # the game log shows the latest events


def read_only_notice(match: matches.Match) -> str | None:
    """Why a match only replays, in the reader's language; None while it can be played."""
    if match.read_only == matches.ENGINE_CHANGED:
        return _(
            "This match was recorded under an earlier version of the rules. You can read it and"
            " replay it step by step, but no one can play on."
        )
    if match.read_only == matches.DAMAGED and match.damaged_from > 0:
        return _(
            "This match's record is damaged from move %(n)d; it can be read, not played.",
            n=match.damaged_from,
        )
    if match.read_only == matches.DAMAGED:
        return _("This match's record is damaged from its deal; it can be read, not played.")
    if match.read_only is not None:
        return _(
            "This match no longer replays under the current rules: it is shown up to its last move"
            " that still holds, and no one can play on."
        )
    return None


def rules_note(match: matches.Match) -> str | None:
    """Which rules an earlier version's match plays under, in the reader's language; None for
    a match of the current rules (or one that only replays: its notice says why)."""
    game = match.game
    if match.engine_version == game.engine_version or match.engine_version not in game.versions:
        return None
    return _(
        "This match was dealt under version %(version)d of this game's rules (the companion now"
        " deals version %(now)d): it is shown, replayed and played on under the rules it was"
        " dealt with. The rules page says what each version changed.",
        version=match.engine_version,
        now=game.engine_version,
    )


# Hot-seat tables whose device holder this browser remembers: the newest few (the session
# cookie stays small however many tables a browser opens).
REMEMBERED_TABLES = 8


def viewer_seat(cap: Capability, match: matches.Match) -> int | None:
    """Whose eyes this page looks through: a seat link's seat; in hot-seat the only person at
    the table, or else the person holding the device while it is their move, or just after it
    while they look at what the move showed them (the cover shows only when the device
    changes hands between people)."""
    if cap.role == "seat":
        return cap.seat
    if cap.role == "host" and match.mode == "hotseat":
        people = [s for s, seat in enumerate(match.seats) if seat.bot is None]
        if len(people) == 1:
            return people[0]
        holder, looking = _device_holder(match)
        if holder is not None and (looking or holder in humans_to_act(match)):
            return holder
    return None


def passing(cap: Capability, match: matches.Match) -> int | None:
    """In hot-seat, the person who just moved and now looks at what the move showed them
    before passing the device on; None otherwise."""
    if cap.role != "host" or match.mode != "hotseat":
        return None
    holder, looking = _device_holder(match)
    return holder if looking else None


def _device_holder(match: matches.Match) -> tuple[int | None, bool]:
    """The last person who took this device at this hot-seat table, and whether they are
    looking at what their move showed them (it was kept as ``[seat, version]`` at that move)."""
    held = dict(_remembered()).get(match.id)
    looking = False
    if isinstance(held, list) and held:
        looking = len(held) == 2 and held[1] == match.version and isinstance(held[0], int)
        held = held[0]
    return (held, looking) if isinstance(held, int) else (None, False)


def hold_device(match_id: str, held: int | list[int] | None) -> None:
    """Remember who holds this hot-seat device (``None``: nobody, the cover shows), keeping the
    newest few tables only."""
    revealed = [pair for pair in _remembered() if pair[0] != match_id]
    if held is not None:
        revealed.append((match_id, held))
    session["revealed"] = [[table, who] for table, who in revealed[-REMEMBERED_TABLES:]]


def _remembered() -> list[tuple[str, Any]]:
    """The tables whose holder this browser remembers, oldest first, as ``(table, holder)``.

    They are kept as a list of pairs: the session's JSON sorts a mapping's keys, so a mapping
    would come back in the order of the tables' names rather than the order they were held in.
    A mapping from an older cookie is read in the order it comes."""
    kept = session.get("revealed") or []
    pairs = kept.items() if isinstance(kept, dict) else kept
    return [
        (pair[0], pair[1])
        for pair in pairs
        if isinstance(pair, (list, tuple)) and len(pair) == 2 and isinstance(pair[0], str)
    ]


def revealed_to(seat: int, before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """Whether the events from ``before`` to ``after`` show ``seat`` something hidden (a hand
    looked at, a card drawn): the game's events carry that under ``private``."""
    old, new = before.get("events", []), after.get("events", [])
    fresh = new[len(old) :] if len(new) >= len(old) else new
    return any(
        isinstance(event, dict)
        and isinstance(event.get("private"), dict)
        and seat in event["private"].get("seats", [])
        for event in fresh
    )


def humans_to_act(match: matches.Match) -> list[int]:
    """The seats a person plays that have a move to make now."""
    return [s for s in match.acting_seats() if match.seats[s].bot is None]


def seen_by(token: str, cap: Capability, match: matches.Match, seat: int | None) -> dict[str, Any]:
    """What the table page and its live fragment need, through the eyes of ``seat``."""
    game = match.game
    view = game.view(match.state, seat)
    playable = cap.can_write and match.read_only is None
    legal = game.legal_actions(match.state, seat) if playable and seat is not None else []
    if seat is not None and match.seats[seat].bot is not None:
        legal = []
    people_to_act = humans_to_act(match)
    after_move = passing(cap, match)
    return {
        "token": token,
        "cap": cap,
        "match": match,
        "game": game,
        "seat": seat,
        "view": view,
        "legal": legal,
        "choices": with_steps(match.key, distinct_choices(match, legal, view), view, match.names()),
        "board": board_for(match.key),
        "stylesheet": game_stylesheet(match.key),
        "lang": match.language,
        "log": game_log(match, view),
        "cover": cap.role == "host" and match.mode == "hotseat" and seat is None and people_to_act,
        "humans_to_act": people_to_act,
        "passing": after_move,
        "result": game.result(match.state),
        "standing": list(zip(match.names(), game.standings(match.state), strict=True)),
        "notice": read_only_notice(match),
        "rules_note": rules_note(match),
        "batch": board_for(match.key).batch(view, match.names()) if legal else None,
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
    name = f"css/{key}.css"
    static = current_app.static_folder or ""
    return name if (Path(static) / name).is_file() else None


def action_label(match: matches.Match, action: dict[str, Any], view: dict[str, Any]) -> str:
    """The button text of an action: the game's own words, else a plain description."""
    return board_for(match.key).label(action, view, match.names())


def game_log(match: matches.Match, view: dict[str, Any]) -> list[str]:
    """The view's latest events as sentences in the reader's language, naming the seats."""
    board, names = board_for(match.key), match.names()
    return [board.describe(event, names) for event in view.get("events", [])[-LOG_LINES:]]


def live_html(context: dict[str, Any]) -> Markup:
    """The live part of the table page, rendered once per version and kind of viewer."""
    return streams.live_fragment(live_key(context), "tables/_live.html", context)


def live_key(context: dict[str, Any], kind: str = "table-live", *more: Any) -> tuple[Any, ...]:
    """Everything the live part (or, with ``more``, the whole page) depends on: the link, the
    version and whose eyes it looks through (in hot-seat, whoever holds the device, and whether
    the one who just moved is still looking). ``context`` needs only ``cap``, ``match``, ``seat``
    and ``passing``."""
    match = context["match"]
    asked = tuple(sorted((k, v) for k, v in request.args.items(multi=True) if k != "fragment"))
    return streams.cache_key(
        kind, context["cap"], match.version, context["seat"], context["passing"], asked, *more
    )
