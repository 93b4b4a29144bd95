"""Traitor's Flame: what a play's forecast says (``effects.outcome``, shown beside each legal
play) is what the rules then do, over thousands of seeded positions of random matches."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from companion.cardgames.traitors_flame import engine
from companion.cardgames.traitors_flame.effects import Step, outcome
from companion.cardgames.traitors_flame.moves import FLAMES, Event

# the story's events a forecast speaks for, by the block that tells them
TOLD = {"took", "fizzled", "gave", "bottomed", "looked", "reversed", "skip-set", "peeked"}


def foretold(steps: list[Step]) -> list[tuple[Any, ...]]:
    """The events a forecast promises, in order, as (type, what is public about it)."""
    out: list[tuple[Any, ...]] = []
    for step in steps:
        name = step["block"]
        if name == "TAKE":
            take = step.get("take")
            out.append(("fizzled",) if take is None else ("took", take == "flame"))
        elif name == "GIVE" and step.get("card") is not None:
            out.append(("gave", step.get("card") in FLAMES))
        elif name == "BOTTOM" and (step["source"] == "deck_top" or step.get("card") is not None):
            out.append(("bottomed", step["source"]))
        elif name == "LOOK_HAND":
            out.append(("looked",))
        elif name == "REVERSE":
            out.append(("reversed",))
        elif name == "SKIP":
            out.append(("skip-set",))
        elif name == "PEEK":
            out.append(("peeked",))
    return out


def told(events: list[Event]) -> tuple[list[tuple[Any, ...]], bool]:
    """What a play's events did, as ``foretold`` spells it, and whether the deck ran out."""
    out: list[tuple[Any, ...]] = []
    for ev in events:
        kind = ev["type"]
        if kind == "round-ended":
            return out, ev["ended_by"] == "deck"
        if kind in ("took", "gave"):
            out.append((kind, ev["flame"]))
        elif kind == "bottomed":
            out.append((kind, ev["source"]))
        elif kind in TOLD:
            out.append((kind,))
    return out, False


def test_every_forecast_is_what_the_play_does() -> None:
    checked: Counter[str] = Counter()
    positions = 0
    for seed in range(60):
        players = 2 + seed % 5
        st = engine.new(players, seed, {"max_rounds": 2})
        rng = random.Random(seed)
        while engine.result(st) is None:
            seat = st["night"]
            legal = engine.legal_actions(st, seat)
            flames, counts = st["flames"], [len(h) for h in st["hands"]]
            positions += 1
            for action in legal:
                if action["type"] != "play":
                    continue
                promised = foretold(outcome(flames, counts, seat, action))
                after = engine.apply(st, seat, action)
                done, ran_out = told(after["events"][len(st["events"]) :])
                if ran_out:  # the blocks after the deck runs out are cancelled (D2)
                    assert done == promised[: len(done)], (seed, action)
                else:
                    assert done == promised, (seed, action, promised, done)
                checked.update(step[0] if step[0] != "took" else f"took-{step[1]}" for step in done)
            st = engine.apply(st, seat, rng.choice(legal))
    assert positions > 2000
    # every kind of outcome was met, each many times: flames and non-Flames taken, fizzles...
    for kind in ("took-True", "took-False", "gave", "bottomed", "looked", "peeked"):
        assert checked[kind] > 300, checked
    assert checked["fizzled"] > 10, checked  # a TAKE with nothing of its kind to take


def test_a_play_at_oneself_takes_gives_and_looks_at_nothing() -> None:
    """D10: every play aimed at its own player, in every position met, tells none of it."""
    met = 0
    for seed in range(40):
        st = engine.new(3, seed, {"max_rounds": 1})
        rng = random.Random(seed)
        while engine.result(st) is None:
            seat = st["night"]
            legal = engine.legal_actions(st, seat)
            for action in legal:
                if action.get("target") == seat:
                    met += 1
                    assert not {"take", "give"} & set(action), action
                    after = engine.apply(st, seat, action)
                    done, _ = told(after["events"][len(st["events"]) :])
                    assert not {"took", "fizzled", "gave", "looked"} & {d[0] for d in done}
            st = engine.apply(st, seat, rng.choice(legal))
    assert met > 50
