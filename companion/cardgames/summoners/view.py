"""What one seat may know (4.6, D21): hands, stones, the deck and the discard pile stay hidden.

Events never name card ids; their secret part (``private``) is merged only for its seats.
"""

from __future__ import annotations

from typing import Any

from .abilities import icon_counts, play_reach, reachable_actions
from .actions import action_prospects
from .cards import colour_of_card, kind_of_card, number_of_card
from .flow import pairing_card
from .legal import legal_actions
from .payment import cost_symbols
from .state import END_SPIRITS, END_VP, FAITH_CAP, NO_PAIRING, State, may_declare

PUBLIC_WAIT_KEYS = ("seat", "phase", "to", "hand", "mana", "kind")


def card_view(card: str) -> dict[str, Any]:
    """A face-up card as the table shows it."""
    return {
        "id": card,
        "kind": kind_of_card()[card],
        "colour": colour_of_card()[card],
        "number": number_of_card()[card],
    }


def view(s: State, seat: int | None, *, events: bool = True) -> dict[str, Any]:
    """The match as ``seat`` sees it (None: a spectator). JSON-serialisable."""
    ctx = s["await"]
    mine = ctx is not None and seat is not None and ctx["seat"] == seat
    out: dict[str, Any] = {
        "game": s["game"],
        "seat": seat,
        "players": s["players"],
        "start": s["start"],
        "current": ctx["seat"] if ctx else None,
        "active": s["turn"].get("seat"),
        "turn_number": s["turn_number"],
        "waiting": {k: ctx[k] for k in PUBLIC_WAIT_KEYS if k in ctx} if ctx else None,
        "command": _command(s),
        "reveal": [card_view(c) for c in s["turn"].get("reveal", [])],
        "deck": len(s["deck"]),
        "discard": len(s["discard"]),
        "seats": [_seat(s, i, seat) for i in range(s["players"])],
        "next_pairing": _next_pairing(s),
        "declarer": s["declarer"],
        "end_spirits": END_SPIRITS,
        "end_vp": END_VP,
        "faith_cap": FAITH_CAP,
        "final_turns_left": s["final_left"],
        "pending": None,
        "result": s["result"],
        "events": _events(s, seat) if events else [],
    }
    if mine and seat is not None and ctx is not None:
        pending: dict[str, Any] = {"seat": seat, "phase": ctx["phase"]}
        if events:
            pending["actions"] = legal_actions(s, seat)
            pending.update(_prospects(s, seat, pending["actions"]))
        if ctx["phase"] == "keep":
            pending["drawn"] = [card_view(c) for c in s["turn"]["drawn"]]
        out["pending"] = pending
    return out


def _next_pairing(s: State) -> dict[str, Any] | None:
    """In Phase I, the face-up mana card the active player will pair with (public)."""
    if s["await"] is None or s["await"]["phase"] != "play":
        return None
    card = pairing_card(s, s["await"]["seat"])
    return card_view(card) if card is not None else None


def _prospects(s: State, seat: int, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """What the seat's own choices would do: each play's command number and reach, each
    summon's cost after discounts, and what each action gives now."""
    types = {a["type"] for a in actions}
    out: dict[str, Any] = {}
    if "play" in types:
        pair = pairing_card(s, seat)
        pair_no = number_of_card()[pair] if pair else NO_PAIRING
        out["plays"] = {
            a["card"]: {
                "number": pair_no + number_of_card()[a["card"]],
                "reach": {
                    k: list(v)
                    for k, v in play_reach(s, seat, pair_no, number_of_card()[a["card"]]).items()
                },
            }
            for a in actions
            if a["type"] == "play"
        }
    summons = [a["card"] for a in actions if a["type"] == "summon"]
    if summons:
        out["costs"] = {
            kind_of_card()[c]: cost_symbols(s, seat, kind_of_card()[c]) for c in summons
        }
    if "act" in types:
        out["gains"] = action_prospects(s, seat)
    return out


def _command(s: State) -> dict[str, Any] | None:
    t = s["turn"]
    if not t or t.get("base") is None or s["await"] is None or s["await"]["phase"] == "play":
        return None
    seat = t["seat"]
    in_view = {c for p in s["seats"] for c in p["mana"]}
    return {
        "seat": seat,
        "played": _history_card(t["played"], in_view),
        "pairing": _history_card(t["pairing_card"], in_view),
        "pairing_number": t["pairing_num"],
        "number": t["base"],
        "actions": {k: list(v) for k, v in reachable_actions(s, seat).items()},
        "paid": dict(t["paid"]),
        "placed": t["placed"],
        "action": t["action"],
    }


def _history_card(card: str | None, in_view: set[str]) -> dict[str, Any] | None:
    """A card seen earlier this turn; its id only while it is still face up."""
    if card is None:
        return None
    shown = card_view(card)
    if card not in in_view:
        del shown["id"]
    return shown


def _seat(s: State, i: int, viewer: int | None) -> dict[str, Any]:
    p = s["seats"][i]
    return {
        "seat": i,
        "vp": p["vp"],
        "faith": p["faith"],
        "hand_count": len(p["hand"]),
        "hand": [card_view(c) for c in p["hand"]] if viewer == i else None,
        "mana": [{**card_view(c), "pairing": c == p["pairing"]} for c in p["mana"]],
        "pairing": p["pairing"] if p["pairing"] in p["mana"] else None,
        "stones": len(p["stones"]),
        "spirits": [card_view(c) for c in p["spirits"]],
        "icons": dict(icon_counts(s, i)),
        "turns": p["turns"],
        "declared": s["declarer"] == i,
        "can_declare": may_declare(s, i),
    }


def _events(s: State, seat: int | None) -> list[dict[str, Any]]:
    shown = []
    for event in s["events"]:
        private = event.get("private")
        if private is None:
            shown.append(event)
            continue
        public = {k: v for k, v in event.items() if k != "private"}
        if seat is not None and seat in private["seats"]:
            public.update({k: v for k, v in private.items() if k != "seats"})
        shown.append(public)
    return shown
