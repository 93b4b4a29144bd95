"""Fast random play for simulations: a uniformly random legal action without listing them all.

``random_action`` maps one ``rng.random()`` draw onto the legal actions in the order
``legal_actions`` lists them. The number of plays of a card that asks for choices is counted from
public facts (Flame counts, hand sizes) without building the plays, from the rules' own tables
(``effects.asking``: each asking block's key, its condition taken apart and whether it names any
card; ``effects.holds``; ``effects.targets``); only the chosen play is spelled out. Listing every
play and choosing among them makes quiet playouts about a third slower, so this counting is kept,
held to ``legal_actions`` slot by slot, and quiet ``step`` to ``apply``, over thousands of seeded
matches (tests/test_traitors_flame_playouts.py).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .effects import Condition, acted_on, asking, holds, targets
from .moves import FLAMES, KIND, Action, State

# an asking block taken apart (``effects.asking``): (action key, its condition, whether it gives
# any card rather than a non-Flame)
Ask = tuple[str, Condition, bool]
# per usable card: (target rule, its asking blocks)
_PLAN: dict[str, tuple[str, tuple[Ask, ...]]] = {
    c: (
        k["target_rule"],
        tuple((key, cond, anything) for key, _b, cond, anything in asking(k["id"])),
    )
    for c, k in KIND.items()
    if k["usable"]
}


def _fixed_size(card: str, n: int) -> int:
    """A card's number of plays when it asks for nothing (0: unusable; -1: it asks)."""
    if card not in _PLAN:
        return 0
    rule, asks = _PLAN[card]
    if asks:
        return -1
    return 1 if rule == "none" else n if rule == "any" else n - 1


_SIZES = {n: {c: _fixed_size(c, n) for c in KIND} for n in range(2, 7)}
# by table size and seat: the targets of "other" cards
_OTHERS = {
    n: [tuple(t for t in targets("other", s, n) if t is not None) for s in range(n)]
    for n in range(2, 7)
}


def random_action(st: State, seat: int, rng: random.Random) -> Action:
    """A uniformly random member of ``legal_actions`` (the same pick ``step`` playouts always made)."""
    hand = st["hands"][seat]
    if not hand:
        rng.random()  # the one draw a pick takes, though drawing is all there is
        return {"type": "draw"}
    sizes = _SIZES[st["players"]]
    counted: list[tuple[int, Any]] = []  # _count of each card that asks, in hand order
    total = 1  # drawing, then every play of every usable card
    for card in hand:
        size = sizes[card]
        if size < 0:
            found = _count(st, seat, card, hand)
            counted.append(found)
            size = found[0]
        total += size
    pick = int(rng.random() * total)
    if pick == 0:
        return {"type": "draw"}
    pick -= 1
    asked = 0
    for card in hand:  # the same walk again, to the card whose plays hold ``pick``
        size, spread = sizes[card], None
        if size < 0:
            size, spread = counted[asked]
            asked += 1
        if pick >= size:
            pick -= size
            continue
        action: Action = {"type": "play", "card": card}
        rule = _PLAN[card][0]
        if spread is None:
            if rule != "none":
                action["target"] = pick + 1 if rule == "other" and pick >= seat else pick
            return action
        target, pick = _aim(st, seat, rule, spread, pick)
        if target is not None:
            action["target"] = target
        _spell(st, seat, target, card, hand, pick, action)
        return action
    raise AssertionError("unreachable")


def _targets(st: State, seat: int, rule: str) -> Sequence[int | None]:
    """The targets a card's rule allows, in the order ``legal_actions`` lists them."""
    return targets(rule, seat, st["players"])


def _shape(rule: str, asks: tuple[Ask, ...]) -> str:
    """Which shortcut counts a card's plays per target (``generic`` when none applies)."""
    if rule == "none":
        return "generic" if any(cond for _, cond, _ in asks) else "plain"
    if any(key == "take" for key, _, _ in asks):
        if rule == "any" and len(asks) == 1 and asks[0][0] == "take" and not asks[0][1]:
            return "take"
        return "generic"
    if all(not cond for _, cond, _ in asks):
        return "plain"
    if len(asks) == 1 and asks[0][0] == "give" and len(asks[0][1]) == 1 and not asks[0][1][0][0]:
        return "give-if"
    return "generic"


_SHAPE = {c: _shape(rule, asks) for c, (rule, asks) in _PLAN.items()}


def _count(st: State, seat: int, card: str, hand: list[str]) -> tuple[int, Any]:
    """How many legal plays ``card`` has (the product of its choices' sizes, summed over its
    targets), and how they spread over the targets: a count per target, or for a ``plain`` card
    the counts at your own seat and at every other one."""
    rule, asks = _PLAN[card]
    shape = _SHAPE[card]
    if shape == "take":  # one unconditional Flame-or-not choice (nothing from yourself)
        per = [
            ((there > 0) + (len(h) > there)) or 1
            for there, h in zip(st["flames"], st["hands"], strict=True)
        ]
        per[seat] = 1
        return sum(per), per
    rest = len(hand) - 1
    rest_nf = rest - len(FLAMES.intersection(hand))
    if shape == "plain":  # the same choices at every other target, only own-hand ones at yours
        own = other = 1
        for key, _, any_card in asks:
            m = rest if key == "bottom" or any_card else rest_nf
            if m:
                other *= m
                if key == "bottom":
                    own *= m
        n = st["players"]
        size = own if rule == "none" else other * (n - 1) + (own if rule == "any" else 0)
        return size, (own, other)
    flames = st["flames"]
    if shape == "give-if":  # one card to give when the target holds enough Flames
        ((_, at),) = asks[0][1]
        m = (rest if asks[0][2] else rest_nf) or 1
        per = [m if flames[t] >= at else 1 for t in _OTHERS[st["players"]][seat]]
        return sum(per), per
    hands = st["hands"]
    per = []
    for target in _targets(st, seat, rule):
        combos = 1
        for key, cond, any_card in asks:
            if cond and not holds(flames, seat, target, cond):
                continue
            if key == "bottom":
                m = rest
            elif (aimed := acted_on(seat, target)) is None:
                continue
            elif key == "take":
                there = flames[aimed]
                m = (there > 0) + (len(hands[aimed]) > there)
            else:
                m = rest if any_card else rest_nf
            if m:
                combos *= m
        per.append(combos)
    return sum(per), per


def _aim(st: State, seat: int, rule: str, spread: Any, pick: int) -> tuple[int | None, int]:
    """The target of play number ``pick`` of a card, and the number of its choices there."""
    if type(spread) is tuple:
        own, other = spread
        if rule == "none":
            return None, pick
        if rule == "other":
            i, pick = divmod(pick, other)
            return _OTHERS[st["players"]][seat][i], pick
        before = other * seat
        if pick < before:
            i, pick = divmod(pick, other)
            return i, pick
        pick -= before
        if pick < own:
            return seat, pick
        i, pick = divmod(pick - own, other)
        return seat + 1 + i, pick
    for target, count in zip(_targets(st, seat, rule), spread, strict=True):
        if pick < count:
            return target, pick
        pick -= count
    raise AssertionError("unreachable")


def _spell(
    st: State, seat: int, target: int | None, card: str, hand: list[str], pick: int, action: Action
) -> None:
    """Fill in choice number ``pick`` of ``card`` at ``target``, the last choice varying fastest
    (the options and their order are those of ``effects.choices``)."""
    flames = st["flames"]
    rest: list[str] | None = None
    asked: list[tuple[str, list[Any]]] = []
    for key, cond, any_card in _PLAN[card][1]:
        if cond and not holds(flames, seat, target, cond):
            continue
        other = acted_on(seat, target)
        if key != "bottom" and other is None:
            continue
        if key == "take":
            assert other is not None
            there = flames[other]
            opts: list[Any] = ["flame"] if there else []
            if len(st["hands"][other]) > there:
                opts.append("non_flame")
        else:
            if rest is None:
                rest = [c for c in hand if c != card]
            opts = rest if key == "bottom" or any_card else [c for c in rest if c not in FLAMES]
        if opts:
            asked.append((key, opts))
    # the choice keys (take, give, bottom) are filled by name: one loop, no branch per key
    chosen: dict[str, Any] = action  # type: ignore[assignment]
    for key, opts in reversed(asked):
        pick, i = divmod(pick, len(opts))
        chosen[key] = opts[i]
