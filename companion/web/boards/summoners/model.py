"""The Age of Summoners board as its template draws it, worked out from one seat's ``view``.

Everything here reads the view (what one seat may know), never the engine state, so the board
cannot show more than the view holds; what a rule decides comes in the view already decided.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from markupsafe import Markup, escape

from companion.cardgames.summoners.cards import COLOURS, kinds

from . import phrases
from .catalogue import pgettext
from .rules_text import card_text
from .seats import seat_info
from .words import (
    action_name,
    card_tag,
    cost_words,
    icon_name,
    kind_id,
    kind_name,
    listed,
    points_words,
    seat_name,
)


def board(view: dict[str, Any], names: Sequence[str], bots: Sequence[Any]) -> dict[str, Any]:
    """Everything the board template shows, worked out from the view."""
    return {
        "status": status(view, names),
        "end": end_info(view, names),
        "order": play_order(view, names),
        "command": command_info(view, names),
        "choice": choice_info(view, names),
        "hand": hand_info(view),
        "seats": [seat_info(view, s, names, bots) for s in seat_order(view)],
    }


def seat_order(view: dict[str, Any]) -> list[int]:
    """The viewer's own seat first, then the others in turn order (a spectator: from seat 1)."""
    n = view["players"]
    first = view.get("seat") or 0
    return [(first + k) % n for k in range(n)]


def status(view: dict[str, Any], names: Sequence[str]) -> dict[str, Any]:
    """Whose turn it is and what the player who must choose now is doing."""
    me = view.get("seat")
    waiting = view.get("waiting")
    if view.get("result") is not None or waiting is None:
        over = pgettext("age-of-summoners", "The match is over")
        return {"turn": over, "now": "", "mine": False, "acting": None}
    current = waiting["seat"]
    active = view.get("active")
    if active == me and me is not None:
        turn = pgettext("age-of-summoners", "Your turn")
    else:
        turn = pgettext("age-of-summoners", "%(name)s's turn", name=seat_name(active, names))
    params = {
        "name": seat_name(current, names),
        "to": seat_name(waiting.get("to"), names),
        "right": seat_name((current - 1) % view["players"], names),
        "hand": waiting.get("hand", ""),
        "mana": waiting.get("mana", ""),
        "kind": kind_name(waiting["kind"]) if waiting.get("kind") in kinds() else "",
    }
    mine = current == me and me is not None
    sentence = phrases.NOW.get((waiting["phase"], mine))
    now = str(sentence) % params if sentence is not None else waiting["phase"]
    return {"turn": turn, "now": now, "mine": mine, "acting": current}


def end_info(view: dict[str, Any], names: Sequence[str]) -> dict[str, Any]:
    """The end declaration and the final lap, or how the end can be declared."""
    declarer = view.get("declarer")
    left = view.get("final_turns_left")
    if declarer is None:
        line = str(phrases.END_RULE) % {"spirits": view["end_spirits"], "vp": view["end_vp"]}
        return {"declared": False, "line": line}
    if view.get("result") is not None:
        return {"declared": True, "line": ""}
    sentence = phrases.LAST_TURN if left is not None and left <= 1 else phrases.DECLARED
    return {
        "declared": True,
        "line": str(sentence) % {"name": seat_name(declarer, names), "n": left},
    }


def play_order(view: dict[str, Any], names: Sequence[str]) -> list[dict[str, Any]]:
    """Every seat in turn order, starting with the player whose turn it is."""
    n = view["players"]
    start = view.get("active")
    if start is None:
        start = view.get("start") or 0
    return [
        {"seat": s, "name": seat_name(s, names), "active": s == view.get("active")}
        for s in ((start + k) % n for k in range(n))
    ]


def command_info(view: dict[str, Any], names: Sequence[str]) -> dict[str, Any] | None:
    """The command number of this turn (pairing card + played card), what it reaches and what
    was chosen; in Phase I, the card the active player will pair with."""
    active = view.get("active")
    command = view.get("command")
    if view.get("result") is not None or active is None or active >= view["players"]:
        return None
    name = seat_name(active, names)
    if command is None:
        if (view.get("waiting") or {}).get("phase") != "play":
            return None
        pair = view.get("next_pairing")
        line = (
            pgettext("age-of-summoners", "%(name)s will pair with", name=name)
            if pair
            else pgettext(
                "age-of-summoners",
                "%(name)s has no face-up mana to pair with (counts 0).",
                name=name,
            )
        )
        return {"phase1": True, "name": name, "pairing": pair, "line": line}
    vias = {
        "zero-played": pgettext("age-of-summoners", "Asmodai: the played card counts 0"),
        "shift": pgettext("age-of-summoners", "Sandman: shifted"),
    }
    reach = [
        {"action": action_name(action), "number": number, "note": vias.get(via, "")}
        for action, (number, via) in (command.get("actions") or {}).items()
    ]
    chosen = command.get("action")
    return {
        "phase1": False,
        "name": name,
        "pairing": command.get("pairing"),
        "pairing_number": command.get("pairing_number", 0),
        "played": command.get("played"),
        "number": command.get("number"),
        "reach": reach,
        "chosen": action_name(chosen) if chosen else "",
        "reveal": view.get("reveal") or [],
    }


def choice_info(view: dict[str, Any], names: Sequence[str]) -> dict[str, Any] | None:
    """What the viewer must decide now, beyond the buttons: the two cards drawn in Phase III,
    the seat an inquisition gives to, the counts a discard must reach."""
    pending = view.get("pending")
    me = view.get("seat")
    if not pending or me is None:
        return None
    waiting = view.get("waiting") or {}
    phase = pending.get("phase")
    info: dict[str, Any] = {"phase": phase, "drawn": [], "note": ""}
    if phase == "keep":
        info["drawn"] = pending.get("drawn") or []
        right = seat_name((me - 1) % view["players"], names)
        info["note"] = pgettext(
            "age-of-summoners",
            "Keep one; the other goes to %(right)s's mana row and becomes their next pairing card.",
            right=right,
        )
    elif phase == "give":
        info["note"] = pgettext(
            "age-of-summoners",
            "Your hand is shown below: the card you pick goes to %(to)s.",
            to=seat_name(waiting.get("to"), names),
        )
    elif phase in ("trim", "prayer-discard"):
        seat = view["seats"][me]
        info["note"] = pgettext(
            "age-of-summoners",
            "Now: %(hand)s hand cards, %(mana)s mana.",
            hand=seat["hand_count"],
            mana=len(seat["mana"]) + seat["stones"],
        )
    elif phase == "optional" and waiting.get("kind") in kinds():
        info["note"] = ability_line(waiting["kind"])
    return info


def ability_line(kind: str) -> Markup:
    """A spirit's name and what it does: "Golem: …", its colour symbols drawn."""
    template = pgettext("age-of-summoners", "%(kind)s: %(text)s")
    return escape(template) % {"kind": kind_name(kind), "text": card_text(kind)}


def hand_info(view: dict[str, Any]) -> dict[str, Any] | None:
    """The viewer's own hand grouped by kind, with each card's cost, icons and ability; None for
    a spectator."""
    me = view["seats"][view["seat"]] if view.get("seat") is not None else {}
    if not me or me.get("hand") is None:
        return None
    actions = (view.get("pending") or {}).get("actions") or []
    summonable = {kind_id(a["card"]) for a in actions if a.get("type") == "summon"}
    counts = Counter(c["kind"] for c in me["hand"])
    cards = [_hand_card(kind, n, kind in summonable) for kind, n in counts.items()]
    cards.sort(key=lambda c: (not c["summonable"], COLOURS.index(c["colour"]), c["name"]))
    return {"count": me["hand_count"], "cards": cards}


def _hand_card(kind: str, count: int, summonable: bool) -> dict[str, Any]:
    spec = kinds()[kind]
    icons = [icon_name(i) for i in spec["icons"]]
    facts = pgettext(
        "age-of-summoners",
        "%(tag)s · cost %(cost)s · %(points)s · %(icons)s",
        tag=card_tag(kind),
        cost=cost_words(spec["cost"]),
        points=points_words(spec["points"]),
        icons=listed(icons) or pgettext("age-of-summoners", "no icons"),
    )
    return {
        "kind": kind,
        "count": count,
        "name": kind_name(kind),
        "colour": spec["colour"],
        "number": spec["number"],
        "tag": card_tag(kind),
        "cost": cost_words(spec["cost"]),
        "icons": icons,
        "points": spec["points"],
        "facts": facts,
        "text": card_text(kind),
        "summonable": summonable,
    }
