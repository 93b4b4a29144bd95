"""Traitor's Flame rules: pure functions over a JSON-serialisable state dict.

The deck is a list with its top card LAST. ``apply`` validates, copies and then runs ``step``,
which mutates only that private copy; bots' rollouts call ``step`` on their own sampled states.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypedDict, cast

from companion.cardgames import CardGameRuleError, chance, shown

from . import cards, moves, refusals
from .cards import Kind
from .effects import asking_blocks, choices, run_card, targets
from .moves import FLAMES, KIND, SINKS, Action, Options, Result, RoundSummary, State, draw
from .playout import random_action as random_action
from .standing import WIN_SCORE

KEY = "traitors-flame"
# Change whenever a rule change makes a recorded match replay differently (docs/cardgames.md).
# Version 1 draws every outcome from the seed on replay too; version 2 records its chance (the
# deals, the start player, a random take) with the moves, and has no burnt draw (``_take``).
ENGINE_VERSION = 2
VERSIONS = (1, 2)
FLAME_END = 3
DECK = cards.deck_cards()


class Shuffled(TypedDict):
    """A round's deal as chance draws it: the deck (top last) and the shuffles it took (D1)."""

    deck: list[str]
    shuffles: int


def new(
    players: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    *,
    quiet: bool = False,
    version: int = ENGINE_VERSION,
    outcomes: Sequence[Any] | None = None,
) -> State:
    """A fresh match under engine ``version``: seeded start player (or ``options["start"]``),
    round 1 dealt; ``outcomes``: the deal's recorded chance (see ``apply``).

    ``quiet`` (simulations only) skips the log, events and knowledge; such a state cannot replay.
    """
    if version not in VERSIONS:
        raise ValueError(f"no engine version {version!r}: {VERSIONS}")
    if not isinstance(players, int) or not 2 <= players <= 6:
        raise CardGameRuleError(
            "bad-players",
            refusals.BAD_PLAYERS,
            players=players,
        )
    opts = cast(Options, dict(options or {}))  # a table's JSON options; new reads two of them
    st: State = {
        "game": KEY,
        "version": version,
        "players": players,
        "seed": seed,
        "options": opts,
        "quiet": quiet,
        "rng": 0,
        "round": 0,
        "turn": 0,
        "first": 0,
        "start": 0,
        "direction": 1,
        "night": 0,
        "dawn": None,
        "skip": False,
        "deck": [],
        "hands": [],
        "flames": [],
        "played": [],
        "known": [],
        "totals": [0] * players,
        "rounds": [],
        "log": [],
        "events": [],
        "round_events": 0,
        "result": None,
    }
    start = opts.get("start")
    if start is not None and start not in range(players):
        raise CardGameRuleError("bad-seat", refusals.BAD_START, seat=start)
    _begin(st, outcomes)
    if start is None:
        start = moves.chance(
            st, "start", lambda rng: rng.randrange(players), chance.is_seat(players)
        )
    st["first"] = start
    deal(st, start, moves.sink(st))
    chance.finish(st.pop("script", None))
    return st


def _begin(st: State, outcomes: Sequence[Any] | None) -> None:
    """Ready ``st`` for a ``new`` or ``apply``: under a version that records chance, an empty
    list of outcomes drawn, and the recorded ones a replay hands in (ChanceRecordError when the
    record cannot be this version's)."""
    if st["version"] >= 2:
        st["drawn"] = []
    script = chance.start(st.get("drawn"), outcomes)
    if script is not None:
        st["script"] = script


def replay(
    seed: int, players: int, options: Mapping[str, Any] | None, actions: list[list[Any]]
) -> State:
    """Rebuild a match from its seed and its log of ``[seat, action]`` pairs."""
    st = new(players, seed, options)
    for seat, action in actions:
        st = apply(st, seat, action)
    return st


def copy_state(st: State) -> State:
    """A copy deep enough for ``step`` to mutate without touching ``st`` (events are immutable)."""
    out = st.copy()
    out["deck"], out["flames"], out["played"] = (
        list(st["deck"]),
        list(st["flames"]),
        list(st["played"]),
    )
    out["totals"], out["rounds"] = list(st["totals"]), list(st["rounds"])
    out["log"], out["events"] = list(st["log"]), list(st["events"])
    out["hands"] = [list(h) for h in st["hands"]]
    out["known"] = [list(k) for k in st["known"]]
    if "drawn" in st:
        out["drawn"] = list(st["drawn"])
    return out


def deal(st: State, start: int, out: moves.Sink) -> None:
    """Start a round: reshuffle all 58 deck cards until the top is not a Flame (D1, D12)."""
    n = st["players"]
    st["round"] += 1
    st.update(
        {
            "turn": 0,
            "start": start,
            "night": start,
            "dawn": None,
            "skip": False,
            "played": [],
            "hands": [[] for _ in range(n)],
            "flames": [0] * n,
            "known": [[] for _ in range(n)],
            "round_events": len(st["events"]),
        }
    )
    shuffled = moves.chance(st, "deal", _shuffled, _sound_deal)
    shuffles = shuffled["shuffles"]
    st["deck"] = list(shuffled["deck"])  # a copy: the outcome is kept as drawn
    if out.keeps:
        out.event(
            st,
            {
                "type": "round-started",
                "start": start,
                "direction": st["direction"],
                "shuffles": shuffles,
            },
        )


def legal_actions(st: State, seat: int) -> list[Action]:
    """Every legal action of ``seat``: draw, or play a usable card with all its choices."""
    if st["result"] is not None or seat != st["night"]:
        return []
    acts: list[Action] = [{"type": "draw"}]
    hand = st["hands"][seat]
    counts: list[int] | None = None
    for card in hand:
        kind = KIND[card]
        if not kind["usable"]:
            continue
        if counts is None:
            counts = [len(h) for h in st["hands"]]
        acts.extend(plays(st["flames"], counts, seat, card, kind, hand))
    return acts


def plays(
    flames: list[int],
    counts: list[int],
    seat: int,
    card: str,
    kind: Kind,
    hand: list[str],
) -> list[Action]:
    """Every legal way to play ``card``, from public counts and the player's own hand: per target
    the card's rule allows, every combination of the choices it asks for there."""
    rest = [c for c in hand if c != card]
    asking = asking_blocks(kind["id"])
    out: list[Action] = []
    for target in targets(kind["target_rule"], seat, len(counts)):
        base: Action = {"type": "play", "card": card}
        if target is not None:
            base["target"] = target
        asks = choices(flames, counts, seat, target, kind, rest) if asking else []
        if not asks:
            out.append(base)
            continue
        keys = [k for k, _ in asks]
        for combo in itertools.product(*(opts for _, opts in asks)):
            out.append(cast(Action, {**base, **dict(zip(keys, combo, strict=True))}))
    return out


def apply(st: State, seat: int, action: Action, outcomes: Sequence[Any] | None = None) -> State:
    """The state after ``seat`` takes ``action``; raises CardGameRuleError and never mutates ``st``.

    ``outcomes``: a replay's recorded chance for this move (what the ``drawn`` of the state it
    made held), used instead of drawing; ChanceRecordError when they are not what this move
    draws. None: chance is drawn from the seed."""
    legal = legal_actions(st, seat) if type(seat) is int else []
    if action not in legal:
        _refuse(st, seat, action)
    nxt = copy_state(st)
    _begin(nxt, outcomes)
    step(nxt, seat, legal[legal.index(action)].copy())
    chance.finish(nxt.pop("script", None))
    return nxt


def step(st: State, seat: int, action: Action) -> None:
    """Carry out a legal action in place: draw or play, deck check, hand-off, Night check.

    What happens is told to the state's sink (``moves.sink``): a quiet state's drops it all, so
    quiet and recorded play run the very same rules."""
    out = SINKS[st["quiet"]]  # moves.sink(st), without the call
    keeps = out.keeps
    if "drawn" in st:  # what this move draws, not what the one before did
        st["drawn"] = []
    if keeps:
        out.logged(st, seat, action)
    st["turn"] += 1
    if action["type"] == "draw":
        ended = draw(st, seat, 1, out)
    else:
        card = action["card"]
        st["hands"][seat].remove(card)
        st["played"].append(card)
        if keeps:
            out.played(st, seat, card, action.get("target"))
        ended = run_card(st, seat, card, action, out)
    if ended:
        end_round(st, "deck", seat, out)
        return
    # the hand-off: Night to the next player (skips applied), Before-Dawn to ``seat``
    n, d = st["players"], st["direction"]
    nxt = (seat + d) % n
    if st["skip"]:
        if keeps:
            out.event(st, {"type": "skipped", "seat": nxt})
        nxt = (nxt + d) % n
        st["skip"] = False
    st["night"], st["dawn"] = nxt, seat
    if keeps:
        out.passed(st, seat, nxt)
    if st["flames"][nxt] >= FLAME_END:  # the Night check
        end_round(st, "flame", nxt, out)


def tie_order(st: State, ender: int) -> list[int]:
    """Seats from the next start player (after the ender) round to the ender, in direction (D6)."""
    n, d = st["players"], st["direction"]
    return [(ender + d * k) % n for k in range(1, n + 1)]


def end_round(st: State, how: Literal["flame", "deck"], ender: int, out: moves.Sink) -> None:
    """Score the round (negative sums count 0), then end the match or deal the next round."""
    raw = moves.score_hands(st)
    scores = [moves.round_score(v) for v in raw]
    totals = [t + s for t, s in zip(st["totals"], scores, strict=True)]
    st["totals"] = totals
    summary: RoundSummary = {
        "round": st["round"],
        "ended_by": how,
        "ender": ender,
        "turns": st["turn"],
        "raw": raw,
        "scores": scores,
        "totals": totals,
        "hands": moves.reveal(st),
    }
    st["rounds"].append(summary)
    if out.keeps:
        out.event(
            st,
            {
                "type": "round-ended",
                "ended_by": how,
                "ender": ender,
                "scores": scores,
                "totals": totals,
            },
        )
    order = tie_order(st, ender)
    best = max(totals)
    cap = st["options"].get("max_rounds")
    if best >= WIN_SCORE or (cap and st["round"] >= cap):
        winner = next(s for s in order if totals[s] == best)
        st["result"] = {
            "winner": winner,
            "totals": totals,
            "rounds": st["round"],
            "order": order,
            "capped": best < WIN_SCORE,
        }
        if out.keeps:
            out.event(st, {"type": "match-ended", "winner": winner, "totals": totals})
        return
    deal(st, order[0], out)


def _shuffled(rng: random.Random) -> Shuffled:
    draw, shuffles = rng.random, 0
    while True:
        # a uniform shuffle: sort by seeded random keys (cheaper than random.shuffle)
        deck = sorted(DECK, key=lambda _card: draw())
        shuffles += 1
        if deck[-1] not in FLAMES:
            return {"deck": deck, "shuffles": shuffles}


_ORDER_OF_DECK = chance.is_order_of(DECK)


def _sound_deal(value: Any) -> bool:
    """Whether a recorded deal is one the rules can deal: the 58 cards, no Flame on top."""
    return (
        isinstance(value, dict)
        and set(value) == {"deck", "shuffles"}
        and _ORDER_OF_DECK(value["deck"])
        and value["deck"][-1] not in FLAMES
        and type(value["shuffles"]) is int
        and value["shuffles"] >= 1
    )


def result(st: State) -> Result | None:
    """None while the match runs; then winner, totals, rounds, tie order and whether it was capped."""
    return st["result"]


def _refuse(st: State, seat: int, action: Any) -> None:
    """Raise the most telling CardGameRuleError for an action that is not legal."""
    if st["result"] is not None:
        raise CardGameRuleError("match-over", refusals.MATCH_OVER)
    if type(seat) is not int or seat not in range(st["players"]):
        raise CardGameRuleError("bad-seat", refusals.BAD_SEAT, seat=seat)
    if seat != st["night"]:
        raise CardGameRuleError(
            "not-your-turn",
            refusals.NOT_YOUR_TURN,
            seat=seat,
            current=st["night"],
        )
    kind = action.get("type") if isinstance(action, dict) else None
    if kind not in ("draw", "play"):
        raise CardGameRuleError(
            "unknown-action",
            refusals.UNKNOWN_ACTION,
            action=shown(action),
        )
    card = action.get("card")
    if kind == "play" and (not isinstance(card, str) or card not in st["hands"][seat]):
        raise CardGameRuleError("card-not-in-hand", refusals.NOT_IN_HAND, card=shown(card))
    if kind == "play" and not KIND[card]["usable"]:
        raise CardGameRuleError(
            "card-unusable", refusals.UNUSABLE, name=KIND[card]["name_en"], card=card
        )
    if kind == "play" and KIND[card]["target_rule"] != "none":
        counts = [len(h) for h in st["hands"]]
        options = plays(st["flames"], counts, seat, card, KIND[card], st["hands"][seat])
        target = action.get("target")
        if not any(_same(target, a.get("target")) for a in options):
            raise CardGameRuleError(
                "bad-target",
                refusals.BAD_TARGET,
                name=KIND[card]["name_en"],
                card=card,
                target=shown(target),
            )
    raise CardGameRuleError("bad-choice", refusals.BAD_CHOICE, action=shown(action))


def _same(sent: Any, listed: Any) -> bool:
    """Equal and of the same JSON type (``1``, ``1.0`` and ``true`` are three answers)."""
    return type(sent) is type(listed) and bool(sent == listed)
