"""The turn machine: a stack of small steps, run until one waits on a player's choice.

Every step that needs a card from the deck is a ``deal`` step, so an empty deck and discard pile
can suspend it, run the 9/9 rule (4.7, D16) and retry once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Unpack

from .abilities import (
    action_triggers,
    end_of_turn_triggers,
    resolve,
    summon_triggers,
)
from .cards import kind_of_card, kinds, number_of_card
from .records import Private
from .scoring import final_result
from .state import (
    ASSIST_DRAW,
    END_SPIRITS,
    END_VP,
    FESTIVAL_REVEAL,
    NO_PAIRING,
    RULE99_HAND,
    RULE99_MANA,
    State,
    Step,
    WaitFor,
    deck_ready,
    emit,
    mana_count,
    new_turn,
    push,
    reshuffle,
    seats_from,
    turn_cap,
)

_KIND = kind_of_card()
_NUMBER = number_of_card()
_SPECS = kinds()


def advance(s: State) -> None:
    """Run scheduled steps until the match waits on a player or ends."""
    todo = s["todo"]
    steps = _STEPS
    while s["await"] is None and todo and s["result"] is None:
        step = todo.pop()
        steps[step["step"]](s, step)


def wait(s: State, seat: int, phase: str, **context: Unpack[WaitFor]) -> None:
    """Stop and wait for ``seat`` to choose (legal_actions lists the options)."""
    s["await"] = {"seat": seat, "phase": phase, **context}


def _deal(s: State, step: Step) -> None:
    seat, to = step["seat"], step["to"]
    n = step["n"]
    if "upto" in step:
        n = max(0, step["upto"] - len(s["seats"][seat]["hand"]))
    deck = s["deck"]
    if len(deck) >= n:  # the common case: take the top n cards at once
        if n == 2:
            got = [deck.pop(), deck.pop()]
        else:
            got = deck[len(deck) - n :][::-1]
            del deck[len(deck) - n :]
        if got or to == "play":
            _place(s, step, got)
        return
    got = []
    for i in range(n):
        if not deck_ready(s):
            if not step.get("after99"):
                _rule99(s, {**step, "n": n - i, "after99": True})
                if to == "play":
                    return
            break
        got.append(s["deck"].pop())
    if got or to == "play":
        _place(s, step, got)


def _rule99(s: State, retry: Step) -> None:
    s["rule99"] += 1
    emit(s, "rule-9-9", None)
    trims: list[Step] = [
        {"step": "trim", "seat": p, "hand": RULE99_HAND, "mana": RULE99_MANA}
        for p in seats_from(s, _active(s))
    ]
    push(s, *trims, {"step": "reform"}, retry)


def _active(s: State) -> int:
    return int(s["turn"].get("seat", s["start"]))


def _place(s: State, step: Step, got: list[str]) -> None:
    seat, to = step["seat"], step["to"]
    p = s["seats"][seat]
    kinds_got = [_KIND[c] for c in got]
    if to == "drawn":
        s["turn"]["drawn"] += got
        s["events"].append(
            {
                "type": "refill-drawn",
                "turn": s["turn_number"],
                "seat": seat,
                "count": len(got),
                "private": {"seats": [seat], "kinds": kinds_got},
            }
        )
    elif to == "hand":
        p["hand"] += got
        s["events"].append(
            {
                "type": "drew",
                "turn": s["turn_number"],
                "seat": seat,
                "count": len(got),
                "private": {"seats": [seat], "kinds": kinds_got},
            }
        )
    elif to == "stone":
        p["stones"] += got
        emit(s, "stones", seat, count=len(got))
    elif to == "mana":
        p["mana"] += got
        emit(s, "mana", seat, kinds=kinds_got)
    elif to == "reveal":
        s["turn"]["reveal"] += got
        emit(s, "revealed", seat, kinds=kinds_got)
    elif to == "give":
        receiver = step["receiver"]
        s["seats"][receiver]["hand"] += got
        private: Private = {"seats": [seat, receiver], "kinds": kinds_got}
        emit(s, "gave", seat, to=receiver, from_deck=True, private=private)
    else:
        set_command(s, seat, got[0] if got else None)


def pairing_card(s: State, seat: int) -> str | None:
    """The mana card the seat pairs with in Phase I: the pending pairing card, else its rightmost
    face-up mana (D5); None when it has no face-up mana (the pairing number is then 0)."""
    p = s["seats"][seat]
    if p["pairing"] in p["mana"]:
        return str(p["pairing"])
    return str(p["mana"][-1]) if p["mana"] else None


def set_command(s: State, seat: int, card: str | None) -> None:
    """Phase I: pair the played card with the pending pairing card (4.1, D5-D6) and wait."""
    p = s["seats"][seat]
    mana = p["mana"]
    pairing = p["pairing"] if p["pairing"] in mana else mana[-1] if mana else None
    number = _NUMBER[pairing] if pairing else NO_PAIRING
    played = _NUMBER[card] if card else 0
    if card is not None:
        mana.append(card)
    p["pairing"] = None
    t = s["turn"]
    t["played"] = card
    t["pairing_card"] = pairing
    t["pairing_num"] = number
    t["base"] = number + played
    s["events"].append(
        {
            "type": "command",
            "turn": s["turn_number"],
            "seat": seat,
            "played": _KIND[card] if card else None,
            "pairing": _KIND[pairing] if pairing else None,
            "pairing_number": number,
            "number": number + played,
        }
    )
    s["await"] = {"seat": seat, "phase": "main"}


def _trim(s: State, step: Step) -> None:
    p = s["seats"][step["seat"]]
    over_hand = len(p["hand"]) > step["hand"]
    over_mana = mana_count(p) > step["mana"]
    if over_hand or over_mana:
        push(s, step)
        wait(s, step["seat"], "trim", hand=step["hand"], mana=step["mana"])


def _reform(s: State, step: Step) -> None:
    if s["discard"]:
        reshuffle(s)


def _give(s: State, step: Step) -> None:
    giver, receiver = step["seat"], step["to"]
    assert isinstance(receiver, int)  # a give step's "to" is a seat (a deal's is a zone)
    if s["seats"][giver]["hand"]:
        wait(s, giver, "give", to=receiver)
    else:
        push(s, {"step": "deal", "seat": giver, "n": 1, "to": "give", "receiver": receiver})


def _festival(s: State, step: Step) -> None:
    seat = step["seat"]
    reveal = s["turn"]["reveal"]
    faith = s["seats"][seat]["faith"]
    lower = any(s["seats"][o]["faith"] < faith for o in seats_from(s, seat)[1:])
    if len(reveal) == FESTIVAL_REVEAL and not lower:
        wait(s, seat, "festival")
        return
    s["seats"][seat]["mana"] += reveal
    emit(s, "festival", seat, placed=[_KIND[c] for c in reveal], discarded=None)
    s["turn"]["reveal"] = []


def _prayer(s: State, step: Step) -> None:
    if s["seats"][step["seat"]]["hand"]:
        wait(s, step["seat"], "prayer-discard")


def _optional(s: State, step: Step) -> None:
    wait(s, step["seat"], "optional", kinds=step["kinds"], copies=step["copies"])


def _resolve(s: State, step: Step) -> None:
    kind = step["kind"]
    resolve(s, step["seat"], kind, _SPECS[kind]["ability"]["effects"], step["times"])


def _triggers(s: State, step: Step) -> None:
    action_triggers(s, step["seat"], step["action"])


def _on_summon(s: State, step: Step) -> None:
    summon_triggers(s, step["seat"], step["card"])


def _phase3(s: State, step: Step) -> None:
    seat = step["seat"]
    s["todo"] += (  # push(), in the reverse order it takes them
        {"step": "end-turn", "seat": seat},
        {"step": "end-check", "seat": seat},
        {"step": "end-of-turn", "seat": seat},
        {"step": "keep", "seat": seat},
        {"step": "deal", "seat": seat, "n": ASSIST_DRAW, "to": "drawn"},
    )


def _keep(s: State, step: Step) -> None:
    seat = step["seat"]
    drawn = s["turn"]["drawn"]
    if len(drawn) == ASSIST_DRAW:
        s["await"] = {"seat": seat, "phase": "keep"}
    elif drawn:
        s["seats"][seat]["hand"] += drawn
        emit(
            s,
            "kept",
            seat,
            assisted=None,
            private={"seats": [seat], "kinds": [_KIND[drawn[0]]]},
        )
        s["turn"]["drawn"] = []


def _end_of_turn(s: State, step: Step) -> None:
    end_of_turn_triggers(s, step["seat"])


def _end_check(s: State, step: Step) -> None:
    seat = step["seat"]
    p = s["seats"][seat]
    if s["declarer"] is None and (len(p["spirits"]) >= END_SPIRITS or p["vp"] >= END_VP):
        s["await"] = {"seat": seat, "phase": "declare"}  # may_declare(), inlined


def _end_turn(s: State, step: Step) -> None:
    seat = step["seat"]
    s["seats"][seat]["turns"] += 1
    if s["final_left"] is not None:
        s["final_left"] -= 1
        if s["final_left"] <= 0:
            finish(s, "declared")
            return
    nxt = (seat + 1) % s["players"]
    if s["seats"][nxt]["turns"] >= turn_cap(s):
        finish(s, "cap")
        return
    start_turn(s, nxt)


def start_turn(s: State, seat: int) -> None:
    """Begin ``seat``'s turn: Phase I waits for a card to play."""
    s["turn_number"] = number = s["turn_number"] + 1
    s["turn"] = new_turn(seat)
    s["events"].append({"type": "turn", "turn": number, "seat": seat})
    s["await"] = {"seat": seat, "phase": "play"}


def finish(s: State, reason: str) -> None:
    """End the match and record the final scores."""
    s["await"] = None
    s["todo"] = []
    res = final_result(s, reason)
    s["result"] = res
    emit(s, "game-end", None, reason=reason, totals=res["totals"], winner=res["winner"])


def _await(s: State, step: Step) -> None:
    s["await"] = {"seat": step["seat"], "phase": step["phase"]}


_STEPS: dict[str, Callable[[State, Step], None]] = {
    "deal": _deal,
    "trim": _trim,
    "reform": _reform,
    "give": _give,
    "festival": _festival,
    "prayer": _prayer,
    "optional": _optional,
    "resolve": _resolve,
    "triggers": _triggers,
    "on-summon": _on_summon,
    "phase3": _phase3,
    "keep": _keep,
    "end-of-turn": _end_of_turn,
    "end-check": _end_check,
    "end-turn": _end_turn,
    "await": _await,
}
