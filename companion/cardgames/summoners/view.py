"""What one seat may know (4.6, D21): hands, stones, the deck and the discard pile stay hidden.

Events never name card ids; their secret part (``private``) is merged only for its seats.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict, cast

from .abilities import play_reach, reachable_actions
from .cards import colour_of_card, kind_of_card, number_of_card
from .flow import pairing_card
from .legal import legal_actions
from .lineup import icon_counts
from .payment import Cost, cost_symbols
from .prospects import Gains, action_prospects
from .records import Event, Result
from .scoring import ranking, tie_order
from .state import (
    ALCHEMY_DRAW,
    ALCHEMY_FAITH,
    ASSIST_DRAW,
    CONQUEST_TAKE,
    END_SPIRITS,
    END_VP,
    FAITH_CAP,
    FESTIVAL_FAITH,
    FESTIVAL_REVEAL,
    NO_PAIRING,
    PILGRIMAGE_DRAW,
    PILGRIMAGE_FAITH,
    PRAYER_DRAW,
    REFILL_TO,
    RULE99_HAND,
    RULE99_MANA,
    Action,
    Await,
    Options,
    State,
    mana_count,
    may_declare,
    right_of,
    seats_from,
    turn_cap,
)

Reach = tuple[int, str]  # an action's command number and how it is reached (base, shift...)


class CardView(TypedDict):
    """A face-up card; one seen this turn that has left the table keeps its kind, not its id."""

    id: NotRequired[str]
    kind: str
    colour: str
    number: int


class ManaView(CardView):
    """A card in a mana row: whether it is the seat's pending pairing card."""

    pairing: bool


class SeatView(TypedDict):
    """One seat as the viewer sees it; ``hand`` only for the viewer's own seat."""

    seat: int
    vp: int
    faith: int
    hand_count: int
    hand: list[CardView] | None
    mana: list[ManaView]
    pairing: str | None
    stones: int  # a count, for everyone (D21)
    spirits: list[CardView]
    icons: dict[str, int]
    turns: int
    declared: bool
    can_declare: bool
    assists_to: int  # the right-hand neighbour, who gets this seat's assist
    mana_total: int  # mana as the discard-down limits count it: stones included
    pairing_from: int | None  # who assisted the pending pairing card (None: nobody, or no events)


class CommandView(TypedDict):
    """This turn's command number: its two cards, what it reaches, what was paid and chosen."""

    seat: int
    played: CardView | None
    pairing: CardView | None
    pairing_number: int
    number: int
    actions: dict[str, Reach]
    paid: dict[str, int]
    placed: int
    action: str | None


class Play(TypedDict):
    """A card the seat may play: the command number it makes and the actions it reaches."""

    number: int
    reach: dict[str, Reach]


class Pending(TypedDict):
    """What the viewing seat must decide now, and what each choice would do."""

    seat: int
    phase: str
    actions: NotRequired[list[Action]]
    plays: NotRequired[dict[str, Play]]  # by card id
    costs: NotRequired[dict[str, Cost]]  # by kind
    gains: NotRequired[Gains]
    drawn: NotRequired[list[CardView]]  # the keep phase's two cards


class Numbers(TypedDict):
    """The amounts the rules use, for the words that tell them (state.py names each)."""

    no_pairing: int
    assist_draw: int
    conquest_take: int
    alchemy_draw: int
    alchemy_faith: int
    prayer_draw: int
    refill_to: int
    festival_faith: int
    festival_reveal: int
    pilgrimage_draw: int
    pilgrimage_faith: int
    rule99_hand: int
    rule99_mana: int


NUMBERS: Numbers = {
    "no_pairing": NO_PAIRING,
    "assist_draw": ASSIST_DRAW,
    "conquest_take": CONQUEST_TAKE,
    "alchemy_draw": ALCHEMY_DRAW,
    "alchemy_faith": ALCHEMY_FAITH,
    "prayer_draw": PRAYER_DRAW,
    "refill_to": REFILL_TO,
    "festival_faith": FESTIVAL_FAITH,
    "festival_reveal": FESTIVAL_REVEAL,
    "pilgrimage_draw": PILGRIMAGE_DRAW,
    "pilgrimage_faith": PILGRIMAGE_FAITH,
    "rule99_hand": RULE99_HAND,
    "rule99_mana": RULE99_MANA,
}


def numbers() -> Numbers:
    """The rules' amounts (a fresh copy): what a view carries as ``numbers``."""
    return NUMBERS.copy()


class TieBreak(TypedDict):
    """How the final standings were ordered (5.4): totals, then the tie order from ``anchor``."""

    anchor: int  # the declarer, else whoever took the last turn
    order: list[int]  # the order a tie goes, from the seat after the anchor
    ranking: list[int]  # seats from first place to last


class View(TypedDict):
    """The match as one seat (or a spectator) may know it."""

    game: str
    version: int  # the engine version whose rules the match plays (versions.py)
    options: Options  # the table's choices: all public
    seat: int | None
    players: int
    start: int
    current: int | None  # who must decide now
    active: int  # whose turn it is
    turn_number: int
    waiting: Await | None  # a wait is public whole (state.WaitFor)
    command: CommandView | None
    reveal: list[CardView]
    deck: int
    discard: int
    seats: list[SeatView]
    next_pairing: CardView | None
    declarer: int | None
    end_spirits: int
    end_vp: int
    faith_cap: int
    final_turns_left: int | None
    pending: Pending | None
    result: Result | None
    events: list[Event]
    order: list[int]  # every seat in turn order, from the active player
    turn_cap: int  # turns per player before the safety cap
    numbers: Numbers
    tie_break: TieBreak | None  # once the match is over


def asking_copies(waiting: Mapping[str, Any] | None, kind: str) -> int:
    """The copies of ``kind`` an asked ability is used for now (one when the wait names none)."""
    if not waiting:
        return 1
    asking = list(waiting.get("kinds", [kind]))
    counts = list(waiting.get("copies", [1]))
    return int(counts[asking.index(kind)]) if kind in asking else 1


def card_view(card: str) -> CardView:
    """A face-up card as the table shows it."""
    return {
        "id": card,
        "kind": kind_of_card()[card],
        "colour": colour_of_card()[card],
        "number": number_of_card()[card],
    }


def view(s: State, seat: int | None, *, events: bool = True) -> View:
    """The match as ``seat`` sees it (None: a spectator). JSON-serialisable."""
    ctx = s["await"]
    out: View = {
        "game": s["game"],
        "version": s["version"],
        "options": s["options"].copy(),
        "seat": seat,
        "players": s["players"],
        "start": s["start"],
        "current": ctx["seat"] if ctx else None,
        "active": s["turn"]["seat"],
        "turn_number": s["turn_number"],
        "waiting": ctx.copy() if ctx else None,
        "command": _command(s),
        "reveal": [card_view(c) for c in s["turn"]["reveal"]],
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
        "order": seats_from(s, s["turn"]["seat"]),
        "turn_cap": turn_cap(s),
        "numbers": numbers(),
        "tie_break": _tie_break(s),
    }
    if events:
        for shown in out["seats"]:
            shown["pairing_from"] = _assisted_by(s, shown["seat"])
    if ctx is not None and seat is not None and ctx["seat"] == seat:
        out["pending"] = _pending(s, seat, ctx["phase"], events)
    return out


def bot_view(s: State, seat: int) -> dict[str, Any]:
    """The view bots get in simulations and rollouts (no events, no legal-action list), as the
    Bot contract takes a view: a plain dict (companion.cardgames.Bot)."""
    return cast(dict[str, Any], view(s, seat, events=False))


def _pending(s: State, seat: int, phase: str, actions: bool) -> Pending:
    """The decision the viewing seat owes; with ``actions``, its legal actions and prospects."""
    pending: Pending = {"seat": seat, "phase": phase}
    if actions:
        pending["actions"] = legal = legal_actions(s, seat)
        _prospects(s, seat, legal, pending)
    if phase == "keep":
        pending["drawn"] = [card_view(c) for c in s["turn"]["drawn"]]
    return pending


def _tie_break(s: State) -> TieBreak | None:
    result = s["result"]
    if result is None:
        return None
    anchor, order = tie_order(s)
    return {"anchor": anchor, "order": order, "ranking": ranking(result["totals"], order)}


def _assisted_by(s: State, seat: int) -> int | None:
    """Who assisted the seat's pending pairing card: the last assist it got since its own turn,
    if that card is still its pending one (else it is an initial mana card, or was replaced)."""
    p = s["seats"][seat]
    pairing = p["pairing"]
    if pairing is None or pairing not in p["mana"]:
        return None
    for event in reversed(s["events"]):
        if event["type"] == "turn" and event["seat"] == seat:
            return None
        if event["type"] == "assisted" and event.get("to") == seat:
            return event["seat"] if event.get("kind") == kind_of_card()[pairing] else None
    return None


def _next_pairing(s: State) -> CardView | None:
    """In Phase I, the face-up mana card the active player will pair with (public)."""
    if s["await"] is None or s["await"]["phase"] != "play":
        return None
    card = pairing_card(s, s["await"]["seat"])
    return card_view(card) if card is not None else None


def _prospects(s: State, seat: int, actions: list[Action], out: Pending) -> None:
    """What the seat's own choices would do: each play's command number and reach, each
    summon's cost after discounts, and what each action gives now."""
    types = {a["type"] for a in actions}
    if "play" in types:
        pair = pairing_card(s, seat)
        pair_no = number_of_card()[pair] if pair else NO_PAIRING
        out["plays"] = {
            a["card"]: {
                "number": pair_no + number_of_card()[a["card"]],
                "reach": play_reach(s, seat, pair_no, number_of_card()[a["card"]]),
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


def _command(s: State) -> CommandView | None:
    t = s["turn"]
    if s["await"] is None or s["await"]["phase"] == "play":
        return None
    seat = t["seat"]
    in_view = {c for p in s["seats"] for c in p["mana"]}
    return {
        "seat": seat,
        "played": _history_card(t["played"], in_view),
        "pairing": _history_card(t["pairing_card"], in_view),
        "pairing_number": t["pairing_num"],
        "number": t["base"],
        "actions": reachable_actions(s, seat),
        "paid": dict(t["paid"]),
        "placed": t["placed"],
        "action": t["action"],
    }


def _history_card(card: str | None, in_view: set[str]) -> CardView | None:
    """A card seen earlier this turn; its id only while it is still face up."""
    if card is None:
        return None
    shown = card_view(card)
    if card not in in_view:
        del shown["id"]
    return shown


def _seat(s: State, i: int, viewer: int | None) -> SeatView:
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
        "assists_to": right_of(s, i),
        "mana_total": mana_count(p),
        "pairing_from": None,
    }


def _events(s: State, seat: int | None) -> list[Event]:
    shown = []
    for event in s["events"]:
        private = event.get("private")
        if private is None:
            shown.append(event)
            continue
        public = event.copy()
        del public["private"]
        if seat is not None and seat in private["seats"]:
            if "kinds" in private:
                public["kinds"] = private["kinds"]
            if "kind" in private:
                public["kind"] = private["kind"]
        shown.append(public)
    return shown
