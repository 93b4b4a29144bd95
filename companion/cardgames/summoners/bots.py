"""Bots for Age of Summoners. Each sees only a view and the legal actions, and takes an rng.

- ``random``: a uniformly random group of legal actions (a summon with all its payments is one
  group), then a random member; each pick is one ``rng.random()`` draw, and a group of one
  member takes none.
- ``heuristic``: scores every legal action with hand-tuned values (VP = 1) over the view.
- ``search``: determinised rollouts over the view (see search.py).
"""

from __future__ import annotations

import random
from typing import Any

from .cards import kinds, number_of_action
from .playout import pick
from .valuation import Eye

Action = dict[str, Any]
View = dict[str, Any]
# Turns per player after which a seat declares with a smaller lead (see score_declare).
LONG_MATCH = 12
# When the deck and discard pile hold less than DRY_LAPS laps of draws, the lead asked for
# shrinks by DRY_LEAD more: the final lap still has to be drawn, and an empty supply brings
# the 9/9 rule, which the original calls extremely rare.
DRY_LAPS = 2.0
DRY_LEAD = 2


def group_key(action: Action) -> tuple[Any, ...]:
    """Actions that differ only in payment share a group (one summon, one paid ability)."""
    return (action["type"], action.get("card"), action.get("action"), action.get("kind"))


def random_bot(view: View, legal: list[Action], rng: random.Random) -> Action:
    """A uniformly random group of legal actions, then a random member (payments)."""
    groups: dict[tuple[Any, ...], list[Action]] = {}
    for action in legal:
        groups.setdefault(group_key(action), []).append(action)
    return pick(rng, pick(rng, list(groups.values())))


def heuristic_bot(view: View, legal: list[Action], rng: random.Random) -> Action:
    """The best-scoring legal action by the valuation in valuation.py (ties: first)."""
    if len(legal) == 1:
        return legal[0]
    eye = Eye(view)
    phase = view["pending"]["phase"] if view["pending"] else legal[0]["type"]
    scorer = SCORERS.get(phase)
    if scorer is None:
        return legal[0]
    scored = [(scorer(eye, a), i) for i, a in enumerate(legal)]
    best = max(scored)[0]
    top = [legal[i] for score, i in scored if score >= best - 1e-9]
    return top[0] if len(top) == 1 else rng.choice(top)


def score_play(eye: Eye, action: Action) -> float:
    """Phase I: the best Phase II outcome this card makes possible, minus what it costs to play."""
    card = action.get("card")
    if card is None:
        return 0.0
    kind = eye.kind(card)
    number = kinds()[kind]["number"]
    numbers = eye.command_numbers(number)
    extra = kinds()[kind]["colour"]
    best = max(eye.act_value(number_of_action(n), extra_mana=extra) for n in numbers)
    best = max(best, eye.best_summon(extra_mana=extra, without=card))
    return best - eye.hold_value(kind) + eye.mana_value(extra)


def score_main(eye: Eye, action: Action) -> float:
    """Phase II: summon, action, paid ability or Baltanders placement."""
    kind = action["type"]
    if kind == "summon":
        return eye.summon_value(eye.kind(action["card"]))
    if kind == "act":
        return eye.act_value(action["action"], action)
    if kind == "paid":
        return eye.paid_ability_value(action["kind"])
    if kind == "place":
        return eye.place_value(action["card"])
    return 0.0


def score_pay(eye: Eye, action: Action) -> float:
    """Pay with what is worth least."""
    return -eye.paid_value(action["pay"])


def score_keep(eye: Eye, action: Action) -> float:
    """Keep the card worth more in hand; the other one goes to the right-hand neighbour."""
    drawn = eye.pending.get("drawn", [])
    other = next((c for c in drawn if c["id"] != action["card"]), None)
    value = eye.hold_value(eye.kind(action["card"]))
    if other is not None:
        value += eye.assist_bonus(other)
    return value


def score_give(eye: Eye, action: Action) -> float:
    """Give away the card worth least in hand."""
    return -eye.hold_value(eye.kind(action["card"]))


def score_choose(eye: Eye, action: Action) -> float:
    """Festival: place the card whose colour the hand needs most."""
    return eye.colour_need(kinds()[eye.kind(action["card"])]["colour"])


def score_discard(eye: Eye, action: Action) -> float:
    """Discard what is worth least: weak hand cards, unneeded colours, stones last."""
    if action["type"] == "done":
        return -0.55
    if action["zone"] == "stones":
        return -eye.stone_value() - 0.5
    kind = eye.kind(action["card"])
    if action["zone"] == "hand":
        return -eye.hold_value(kind)
    return -eye.mana_value(kinds()[kind]["colour"]) - (0.2 if eye.is_pairing(action["card"]) else 0)


def score_optional(eye: Eye, action: Action) -> float:
    """An asked ability: what it is worth for the copies used (Nightmare: when the others lose
    more than this seat does), against nothing for declining; of several, the best resolves
    first. (Version 1's ask named no kind: the one spirit asking.)"""
    if not action["use"]:
        return 0.0
    kind = action.get("kind") or eye.view["waiting"]["kinds"][0]
    return eye.ask_value(kind, action.get("copies"))


def score_declare(eye: Eye, action: Action) -> float:
    """Declare when this seat should still lead after everyone's final turn.

    The lead asked for shrinks once the match runs long: waiting then mostly empties the deck.
    """
    margin = eye.projected_margin()
    if action["type"] == "declare":
        late = max(0, int(eye.me["turns"]) - LONG_MATCH)
        if eye.laps_of_supply() < DRY_LAPS:
            late += DRY_LEAD
        return float(margin - max(1.0, 2.0 + eye.players * 0.5 - late))
    return 0.0


SCORERS = {
    "play": score_play,
    "main": score_main,
    "summon": score_main,
    "pay": score_pay,
    "keep": score_keep,
    "give": score_give,
    "festival": score_choose,
    "trim": score_discard,
    "prayer-discard": score_discard,
    "optional": score_optional,
    "declare": score_declare,
}
