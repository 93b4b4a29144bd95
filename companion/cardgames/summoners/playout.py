"""Fast random play for simulations: the random bot's pick without listing every legal action.

``random_action(s, seat, rng)`` returns the action ``random_bot({}, legal_actions(s, seat), rng)``
would return, drawing the very same numbers from ``rng``: a uniformly random group of legal
actions (a summon's or a paid ability's payments are one group, so are an action's victims,
colours or choices), then a random member, each by ``pick``. Only the chosen action is spelled
out; a payment is picked from the cached payment tuples and becomes a dict once chosen.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from .abilities import reachable_of
from .cards import kind_of_card
from .legal import PHASES, act_variants, add_paid_uses, first_copies, hand_summons, placements
from .lineup import lineup
from .payment import mana_counts, payment_dict, pending_options
from .state import Action, State

T = TypeVar("T")
_KIND = kind_of_card()


def pick(rng: random.Random, members: Sequence[T]) -> T:
    """A uniformly random member, from one ``rng.random()`` draw; a lone member takes no draw."""
    if len(members) == 1:
        return members[0]
    return members[int(rng.random() * len(members))]


def random_action(s: State, seat: int, rng: random.Random) -> Action:
    """A uniformly random group of the legal actions, then a random member (see random_bot)."""
    ctx = s["await"]
    if ctx is None or ctx["seat"] != seat or s["result"] is not None:
        raise ValueError(f"seat {seat} has no choice to make now")
    phase = ctx["phase"]
    if phase == "main":
        return _main(s, seat, rng)
    if phase == "pay":  # one group: the payments
        return {"type": "pay", "pay": payment_dict(pick(rng, pending_options(s, seat)))}
    if phase == "play" or phase == "keep":
        cards = s["seats"][seat]["hand"] if phase == "play" else s["turn"]["drawn"]
        if not cards and phase == "play":
            return {"type": "play-top"}
        return {"type": phase, "card": pick(rng, first_copies(cards))}  # a group per card
    if phase == "optional":  # a group per asking spirit: use it (all copies or some) or not
        groups: dict[str | None, list[Action]] = {}
        for action in PHASES[phase](s, seat, ctx):
            groups.setdefault(action.get("kind"), []).append(action)
        return pick(rng, pick(rng, list(groups.values())))
    # every other phase lists actions that each form a group of their own
    return pick(rng, PHASES[phase](s, seat, ctx))


def _main(s: State, seat: int, rng: random.Random) -> Action:
    """Phase II: summons, actions (each with its variants), paid abilities, placements, in
    the order legal_actions lists them."""
    spirits = lineup(s, seat)
    avail, stones = mana_counts(s, seat)
    summons = hand_summons(s["seats"][seat]["hand"], spirits, avail, stones)
    reach = reachable_of(s, spirits)
    extra: list[Action] = []
    if spirits.counts:
        add_paid_uses(s, spirits, avail, stones, extra)
    if s["turn"]["placed"] < spirits.place:
        payable = {_KIND[a["card"]] for a in summons}
        extra += placements(s, seat, spirits, avail, stones, payable)
    g = pick(rng, range(len(summons) + len(reach) + len(extra)))
    if g < len(summons):
        return summons[g]
    g -= len(summons)
    if g < len(reach):
        action: Action = pick(rng, act_variants(s, seat, reach[g][0], avail))
        return action
    return extra[g - len(reach)]
