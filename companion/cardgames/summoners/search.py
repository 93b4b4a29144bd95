"""The search bot: determinised sampling over the view only, never the hidden state.

In the last turns of a match (the heuristic's estimate of turns left is at most
``ENDGAME_TURNS``, or the final lap is running) it deals the unseen cards at random (other
hands, every stone, the deck and the discard pile) into full states, tries the heuristic's best
few actions for Phase I, Phase II and the declaration in each, plays the match out with heuristic
bots in every seat, and keeps the action with the best mean final margin (a win counts extra).
The same sampled worlds and rollout seeds serve every candidate (common random numbers); the
work is a count of rollouts, never a clock, so a seeded match plays the same anywhere. Earlier
in the match, and for the small choices (keep, give, discards...), it plays as the heuristic:
rollouts from early positions were measured to be too noisy, and a one-round horizon with a
fitted evaluation was measured to play worse than the heuristic (36-40% heads-up).
"""

from __future__ import annotations

import random
from typing import Any, cast

from .bots import SCORERS, Action, View, group_key, heuristic_bot
from .cards import card_ids
from .engine import step
from .legal import legal_actions
from .state import Action as Move
from .state import Options, Seat, State, Step, Turn, copy_state, new_turn
from .valuation import Eye
from .view import CardView, bot_view

# Bots read actions as the plain dicts a view lists (bots.Action); ``step`` takes them as moves.
SEARCHED = ("play", "main", "declare")
ENDGAME_TURNS = 7.0
# Rollouts per decision, shared by the candidates (about 0.5 s on the reference machine).
ROLLOUTS = 24
MIN_SAMPLES = 2


def search_bot(
    view: View,
    legal: list[Action],
    rng: random.Random,
    top: int = 5,
    rollouts: int = ROLLOUTS,
) -> Action:
    """Pick among the heuristic's ``top`` candidates by sampled rollouts (about ``rollouts`` in
    all, every candidate on the same samples, at least ``MIN_SAMPLES`` of them)."""
    pending = view["pending"] or {}
    if pending.get("phase") not in SEARCHED or len(legal) == 1:
        return heuristic_bot(view, legal, rng)
    if Eye(view).turns_left > ENDGAME_TURNS:
        return heuristic_bot(view, legal, rng)
    candidates = shortlist(view, legal, top)
    if len(candidates) == 1:
        return candidates[0]
    seat = view["seat"]
    totals = [0.0] * len(candidates)
    for _ in range(max(MIN_SAMPLES, rollouts // len(candidates))):
        world = determinize(view, rng)
        seed = rng.getrandbits(32)
        scores = []
        for action in candidates:
            s = copy_state(world)
            step(s, seat, cast(Move, action))
            rollout(s, seat, random.Random(seed))
            scores.append(evaluate(s, seat))
        totals = [t + x for t, x in zip(totals, scores, strict=True)]
    return candidates[max(range(len(candidates)), key=totals.__getitem__)]


def shortlist(view: View, legal: list[Action], top: int) -> list[Action]:
    """The heuristic's best action per group (payments collapse), best ``top`` groups."""
    eye = Eye(view)
    scorer = SCORERS[view["pending"]["phase"]]
    best: dict[tuple[Any, ...], tuple[float, int]] = {}
    for i, action in enumerate(legal):
        score = scorer(eye, action)
        key = group_key(action) + (action.get("choice"), action.get("victim"), action.get("flip"))
        if key not in best or score > best[key][0]:
            best[key] = (score, i)
    ranked = sorted(best.values(), reverse=True)[:top]
    return [legal[i] for _, i in ranked]


def determinize(view: View, rng: random.Random) -> State:
    """A full state consistent with the view: unseen cards dealt at random."""
    seat = view["seat"]
    known: set[str] = set()
    for p in view["seats"]:
        known.update(c["id"] for c in p["mana"])
        known.update(c["id"] for c in p["spirits"])
    known.update(c["id"] for c in view["seats"][seat]["hand"] or [])
    known.update(c["id"] for c in view["reveal"])
    unseen = [c for c in card_ids() if c not in known]
    rng.shuffle(unseen)
    seats: list[Seat] = []
    for p in view["seats"]:
        hand = [c["id"] for c in p["hand"]] if p["seat"] == seat else _take(unseen, p["hand_count"])
        seats.append(
            {
                "hand": hand,
                "mana": [c["id"] for c in p["mana"]],
                "stones": _take(unseen, p["stones"]),
                "spirits": [c["id"] for c in p["spirits"]],
                "vp": p["vp"],
                "faith": p["faith"],
                "pairing": p["pairing"],
                "turns": p["turns"],
            }
        )
    discard = _take(unseen, view["discard"])
    return {
        "game": view["game"],
        "version": view["version"],
        "seed": rng.getrandbits(32),
        "players": view["players"],
        "options": cast(Options, dict(view["options"])),
        "start": view["start"],
        "deck": unseen,
        "discard": discard,
        "seats": seats,
        "turn": _turn(view),
        "await": {"seat": seat, "phase": view["pending"]["phase"]},
        "todo": _todo(view),
        "declarer": view["declarer"],
        "final_left": view["final_turns_left"],
        "result": None,
        "turn_number": view["turn_number"],
        "reshuffles": 0,
        "rule99": 0,
        "log": [],
        "events": [],
    }


def _todo(view: View) -> list[Step]:
    """Steps still due this turn: only a declaration has any (the end of the turn)."""
    if view["pending"]["phase"] == "declare":
        return [{"step": "end-turn", "seat": view["seat"]}]
    return []


def _take(pool: list[str], count: int) -> list[str]:
    taken = pool[len(pool) - count :] if count else []
    del pool[len(pool) - count :]
    return taken


def _turn(view: View) -> Turn:
    command = view["command"]
    turn = new_turn(view["active"])
    turn["reveal"] = [c["id"] for c in view["reveal"]]
    if command is not None:
        turn["played"] = _card_id(command["played"])
        turn["pairing_card"] = _card_id(command["pairing"])
        turn["pairing_num"] = command["pairing_number"]
        turn["base"] = command["number"]
        turn["paid"] = dict(command["paid"])
        turn["placed"] = command["placed"]
    return turn


def _card_id(card: CardView | None) -> str | None:
    """A card seen this turn; a stand-in copy of its kind once it has left the table."""
    if card is None:
        return None
    return str(card.get("id") or f"{card['kind']}-1")


def rollout(s: State, seat: int, rng: random.Random, limit: int = 80) -> None:
    """Heuristic bots play every seat until ``seat``'s next Phase I (or the end)."""
    start = s["turn_number"]
    for _ in range(limit):
        ctx = s["await"]
        if ctx is None or (
            ctx["seat"] == seat and ctx["phase"] == "play" and s["turn_number"] > start
        ):
            return
        actor = ctx["seat"]
        legal = cast(list[Action], legal_actions(s, actor))
        step(s, actor, cast(Move, heuristic_bot(bot_view(s, actor), legal, rng)))


def evaluate(s: State, seat: int) -> float:
    """This seat's standing: its value minus the best other seat's (a win counts extra)."""
    if s["result"] is not None:
        res = s["result"]
        totals = res["totals"]
        best_other = max(t for i, t in enumerate(totals) if i != seat)
        return float(totals[seat] - best_other) + (6.0 if res["winner"] == seat else 0.0)
    values = [Eye(bot_view(s, i)).position_value() for i in range(s["players"])]
    return values[seat] - max(v for i, v in enumerate(values) if i != seat)
