"""The Age of Summoners board as its template draws it, worked out from one seat's ``view``.

Everything here reads the view (what one seat may know), never the engine state, so the board
cannot show more than the view holds; what a rule decides comes in the view already decided.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from markupsafe import Markup, escape

from companion.cardgames.summoners.cards import COLOURS, kinds
from companion.cardgames.summoners.view import View

from . import phrases
from .catalogue import pgettext
from .rules_text import card_text
from .seats import seat_info
from .shapes import Board, ChoiceInfo, CommandInfo, EndLine, HandCard, HandInfo, OrderSeat, Status
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


def board(view: View, names: Sequence[str], bots: Sequence[object]) -> Board:
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


def seat_order(view: View) -> list[int]:
    """The viewer's own seat first, then the others in turn order (a spectator: from seat 1)."""
    order = view["order"]
    first = order.index(view["seat"] or 0)
    return order[first:] + order[:first]


def status(view: View, names: Sequence[str]) -> Status:
    """Whose turn it is and what the player who must choose now is doing."""
    me = view["seat"]
    waiting = view["waiting"]
    if view["result"] is not None or waiting is None:
        over = pgettext("age-of-summoners", "The match is over")
        return {"turn": over, "now": "", "mine": False, "acting": None}
    current = waiting["seat"]
    active = view["active"]
    if active == me and me is not None:
        turn = pgettext("age-of-summoners", "Your turn")
    elif current == me and me is not None:  # a discard-down or a gift in another's turn
        turn = pgettext(
            "age-of-summoners", "Your move, in %(name)s's turn", name=seat_name(active, names)
        )
    else:
        turn = pgettext("age-of-summoners", "%(name)s's turn", name=seat_name(active, names))
    asking = [kind_name(k) for k in waiting.get("kinds", []) if k in kinds()]
    params = {
        "name": seat_name(current, names),
        "to": seat_name(waiting.get("to"), names),
        "right": seat_name(view["seats"][current]["assists_to"], names),
        "hand": waiting.get("hand", ""),
        "mana": waiting.get("mana", ""),
        "kind": listed(asking),
        "refill": view["numbers"]["refill_to"],
    }
    mine = current == me and me is not None
    sentence = phrases.NOW.get((waiting["phase"], mine))
    now = str(sentence) % params if sentence is not None else waiting["phase"]
    return {"turn": turn, "now": now, "mine": mine, "acting": current}


def end_info(view: View, names: Sequence[str]) -> EndLine:
    """The end declaration and the final lap, or how the end can be declared."""
    declarer = view["declarer"]
    left = view["final_turns_left"]
    if declarer is None:
        line = str(phrases.END_RULE) % {"spirits": view["end_spirits"], "vp": view["end_vp"]}
        return {"declared": False, "line": line}
    if view["result"] is not None:
        return {"declared": True, "line": ""}
    sentence = phrases.LAST_TURN if left is not None and left <= 1 else phrases.DECLARED
    return {
        "declared": True,
        "line": str(sentence) % {"name": seat_name(declarer, names), "n": left},
    }


def play_order(view: View, names: Sequence[str]) -> list[OrderSeat]:
    """Every seat in turn order, starting with the player whose turn it is."""
    return [
        {"seat": s, "name": seat_name(s, names), "active": s == view["active"]}
        for s in view["order"]
    ]


def command_info(view: View, names: Sequence[str]) -> CommandInfo | None:
    """The command number of this turn (pairing card + played card), what it reaches and what
    was chosen; in Phase I, the card the active player will pair with."""
    command = view["command"]
    if view["result"] is not None:
        return None
    name = seat_name(view["active"], names)
    if command is None:
        waiting = view["waiting"]
        return _phase1(view, name) if waiting and waiting["phase"] == "play" else None
    vias = {
        "zero-played": pgettext("age-of-summoners", "Asmodai: the played card counts 0"),
        "shift": pgettext("age-of-summoners", "Sandman: shifted"),
    }
    chosen = command["action"]
    return {
        "phase1": False,
        "name": name,
        "pairing": command["pairing"],
        "pairing_number": command["pairing_number"],
        "played": command["played"],
        "played_number": command["number"] - command["pairing_number"],
        "number": command["number"],
        "reach": [
            {"action": action_name(action), "number": number, "note": vias.get(via, "")}
            for action, (number, via) in command["actions"].items()
        ],
        "chosen": action_name(chosen) if chosen else "",
        "reveal": view["reveal"],
    }


def _phase1(view: View, name: str) -> CommandInfo:
    pair = view["next_pairing"]
    if pair:
        line = pgettext("age-of-summoners", "%(name)s will pair with", name=name)
    else:
        line = pgettext(
            "age-of-summoners",
            "%(name)s has no face-up mana to pair with (counts %(n)s).",
            name=name,
            n=view["numbers"]["no_pairing"],
        )
    return {"phase1": True, "name": name, "pairing": pair, "line": line}


def choice_info(view: View, names: Sequence[str]) -> ChoiceInfo | None:
    """What the viewer must decide now, beyond the buttons: the two cards drawn in Phase III,
    the seat an inquisition gives to, the counts a discard must reach; None when the buttons
    say it all."""
    pending = view["pending"]
    me = view["seat"]
    if not pending or me is None:
        return None
    waiting = view["waiting"]
    phase = pending["phase"]
    info: ChoiceInfo = {"phase": phase, "drawn": [], "note": Markup()}
    if phase == "keep":
        info["drawn"] = pending.get("drawn") or []
        right = seat_name(view["seats"][me]["assists_to"], names)
        info["note"] = escape(
            pgettext(
                "age-of-summoners",
                "Keep one; the other goes to %(right)s's mana row and becomes their next"
                " pairing card.",
                right=right,
            )
        )
    elif phase == "give":
        info["note"] = escape(
            pgettext(
                "age-of-summoners",
                "Your hand is shown below: the card you pick goes to %(to)s.",
                to=seat_name(waiting.get("to") if waiting else None, names),
            )
        )
    elif phase in ("trim", "prayer-discard"):
        seat = view["seats"][me]
        info["note"] = escape(
            pgettext(
                "age-of-summoners",
                "Now: %(hand)s hand cards, %(mana)s mana.",
                hand=seat["hand_count"],
                mana=seat["mana_total"],
            )
        )
    elif phase == "optional" and waiting:
        asking = [kind for kind in waiting.get("kinds", []) if kind in kinds()]
        lines = [ability_line(kind) for kind in asking]
        if len(asking) > 1:
            lines.append(
                escape(
                    pgettext(
                        "age-of-summoners",
                        "These abilities come at once: choose the one to use or decline first;"
                        " the others are asked next.",
                    )
                )
            )
        info["note"] = Markup("<br>").join(lines)
    return info if info["drawn"] or info["note"] else None


def ability_line(kind: str) -> Markup:
    """A spirit's name and what it does: "Golem: …", its colour symbols drawn."""
    template = pgettext("age-of-summoners", "%(kind)s: %(text)s")
    return escape(template) % {"kind": kind_name(kind), "text": card_text(kind)}


def hand_info(view: View) -> HandInfo | None:
    """The viewer's own hand grouped by kind, with each card's cost, icons and ability; None for
    a spectator."""
    me = view["seat"]
    hand = view["seats"][me]["hand"] if me is not None else None
    if me is None or hand is None:
        return None
    pending = view["pending"]
    actions = pending.get("actions", []) if pending else []
    summonable = {kind_id(a["card"]) for a in actions if a["type"] == "summon"}
    counts = Counter(c["kind"] for c in hand)
    cards = [_hand_card(kind, n, kind in summonable) for kind, n in counts.items()]
    cards.sort(key=lambda c: (not c["summonable"], COLOURS.index(c["colour"]), c["name"]))
    return {"count": view["seats"][me]["hand_count"], "cards": cards}


def _hand_card(kind: str, count: int, summonable: bool) -> HandCard:
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
