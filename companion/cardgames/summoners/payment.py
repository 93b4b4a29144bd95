"""Costs and payments (rule 4.2): coloured symbols, the generic symbol, stones and reductions.

A payment is a tuple of six counts: one per colour in ``COLOURS`` order, then stones. Which
copy of a colour pays makes no rule difference (only colours and numbers are visible on mana, and
a colour fixes the number), so payments are distinct by counts only.
"""

from __future__ import annotations

from functools import cache
from sys import getsizeof
from typing import TypedDict, cast

from .abilities import Lineup, lineup
from .cards import COLOURS, Kind, colour_of_card, kind_of_card, kinds
from .memo import LENT
from .state import Payment, State


class Cost(TypedDict):
    """A summon's cost as symbols ("black", "any") and the coloured symbols waived (``free``)."""

    cost: list[str]
    free: int


_INDEX = {c: i for i, c in enumerate(COLOURS)}


@cache
def symbols(cost: tuple[str, ...]) -> tuple[tuple[int, ...], int]:
    """A cost as (coloured counts per colour, number of generic symbols)."""
    req = [0] * 5
    for symbol in cost:
        if symbol != "any":
            req[_INDEX[symbol]] += 1
    return tuple(req), cost.count("any")


_SPECS = kinds()
_COLOUR_INDEX = {card: _INDEX[colour] for card, colour in colour_of_card().items()}


def _self_discounted(spec: Kind) -> tuple[tuple[int, ...], int]:
    req, generic = symbols(tuple(spec["cost"]))
    ability = spec["ability"]
    reduced = list(req)
    i = _INDEX[ability["colour"]]
    reduced[i] = max(0, reduced[i] - ability["amount"])
    return tuple(reduced), generic


_KIND = kind_of_card()
_ABILITY_COST = {k: tuple(spec["ability"].get("cost", ())) for k, spec in _SPECS.items()}
_BASE_COST = {k: symbols(tuple(spec["cost"])) for k, spec in _SPECS.items()}
_SELF_COST = {k: _self_discounted(spec) for k, spec in _SPECS.items()
              if spec["ability"]["hook"] == "self-discount"}  # fmt: skip
# kind -> (its cost while no copy of it is in play, its cost once one is), as (colours, generic):
# ``COSTS[kind][kind in spirits.counts]`` is what the seat pays before the waived symbols
COSTS = {k: (_SELF_COST.get(k, cost), cost) for k, cost in _BASE_COST.items()}


def summon_cost(s: State, seat: int, kind: str) -> tuple[tuple[int, ...], int, int]:
    """(coloured counts, generic count, free coloured symbols) after every reduction (4.2, D19-20)."""
    return lineup_cost(lineup(s, seat), kind)


def cost_symbols(s: State, seat: int, kind: str) -> Cost:
    """A kind's summon cost for the seat as symbols ("black", "any") after its own discount,
    with the coloured symbols the seat's spirits waive (``free``)."""
    req, generic, free = summon_cost(s, seat, kind)
    cost = [colour for colour, n in zip(COLOURS, req, strict=True) for _ in range(n)]
    return {"cost": cost + ["any"] * generic, "free": free}


def lineup_cost(spirits: Lineup, kind: str) -> tuple[tuple[int, ...], int, int]:
    """``summon_cost`` for a seat with these spirits in play."""
    req, generic = COSTS[kind][kind in spirits.counts]
    return req, generic, spirits.free


def mana_counts(s: State, seat: int) -> tuple[tuple[int, ...], int]:
    """(face-up mana per colour, stones) in a seat's mana row."""
    p = s["seats"][seat]
    counts = [0, 0, 0, 0, 0]
    index = _COLOUR_INDEX
    for card in p["mana"]:
        counts[index[card]] += 1
    return tuple(counts), len(p["stones"])


def affordable(
    req: tuple[int, ...], generic: int, free: int, avail: tuple[int, ...], stones: int
) -> bool:
    """True when some payment exists: reductions go to the symbols the row cannot cover first."""
    r0, r1, r2, r3, r4 = req
    a0, a1, a2, a3, a4 = avail
    short = (
        (r0 - a0 if r0 > a0 else 0)
        + (r1 - a1 if r1 > a1 else 0)
        + (r2 - a2 if r2 > a2 else 0)
        + (r3 - a3 if r3 > a3 else 0)
        + (r4 - a4 if r4 > a4 else 0)
    )
    if short - free > stones:
        return False
    need = r0 + r1 + r2 + r3 + r4
    return a0 + a1 + a2 + a3 + a4 + stones >= need - min(free, need) + generic


def pending_payments(s: State, seat: int) -> tuple[Payment, ...]:
    """Payments for what the seat is paying for now (a summon or a paid ability)."""
    target = s["turn"]["paying"]
    kept = target.get("options")
    if kept is not None:
        return cast(tuple[Payment, ...], tuple(map(tuple, kept)))
    if target["for"] == "summon":
        return summon_payments(s, seat, _KIND[target["card"]])
    return cost_payments(s, seat, _ABILITY_COST[target["kind"]])


def summon_payments(s: State, seat: int, kind: str) -> tuple[Payment, ...]:
    """Every distinct way the seat can pay for summoning ``kind`` now (empty if it cannot)."""
    req, generic, free = summon_cost(s, seat, kind)
    avail, stones = mana_counts(s, seat)
    return payments(req, generic, free, avail, stones)


def cost_payments(s: State, seat: int, cost: tuple[str, ...]) -> tuple[Payment, ...]:
    """Every distinct way to pay a plain cost (a paid ability: no reductions)."""
    req, generic = symbols(cost)
    avail, stones = mana_counts(s, seat)
    return payments(req, generic, 0, avail, stones)


def payments(
    req: tuple[int, ...], generic: int, free: int, avail: tuple[int, ...], stones: int
) -> tuple[Payment, ...]:
    """Distinct payments: coloured symbols by their colour or a stone, generic by anything.

    A payment spends ``sum(req) - waived + generic`` cards, ``waived`` being the reductions
    (they go to the coloured symbols the payment leaves uncovered). No payment uses more of a
    colour than its symbols plus the generic ones, nor more of anything than the whole payment,
    so mana and stones beyond that are left out of the memo's key (more matches share entries).
    """
    r0, r1, r2, r3, r4 = req
    need = r0 + r1 + r2 + r3 + r4
    total = need - (free if free < need else need) + generic
    a0, a1, a2, a3, a4 = avail
    # min(a, r + generic, total) per colour, without the calls
    c0, c1, c2, c3, c4 = r0 + generic, r1 + generic, r2 + generic, r3 + generic, r4 + generic
    usable = (
        a0 if a0 < c0 and a0 < total else c0 if c0 < total else total,
        a1 if a1 < c1 and a1 < total else c1 if c1 < total else total,
        a2 if a2 < c2 and a2 < total else c2 if c2 < total else total,
        a3 if a3 < c3 and a3 < total else c3 if c3 < total else total,
        a4 if a4 < c4 and a4 < total else c4 if c4 < total else total,
    )
    key = (req, generic, total, usable, stones if stones < total else total)
    memo = LENT.get()
    if memo is None:
        return _payments(*key)
    found: tuple[Payment, ...] | None = memo.payments.get(key)
    if found is None:
        memo.misses += 1
        found = _payments(*key)
        memo.payments.put(key, found, _KEY_BYTES + getsizeof(found) + _PAYMENT_BYTES * len(found))
    else:
        memo.hits += 1
    return found


# a memo's key: a 5-tuple of two 5-tuples and three ints; a payment: a 6-tuple of small ints
_KEY_BYTES = getsizeof((0,) * 5) * 3
_PAYMENT_BYTES = getsizeof((0,) * 6)


def _payments(
    req: tuple[int, ...], generic: int, total: int, avail: tuple[int, ...], stones: int
) -> tuple[Payment, ...]:
    """The payments of ``total`` cards. Colour by colour, what is spent beyond that colour's
    symbols comes out of the generic symbols (``s0``...``s3`` are the generic symbols left), and
    what is spent after the colours (``l0``...``l3`` are the cards left) is stones. Payments
    come out in ascending order: the loops count up colour by colour.
    """
    a0, a1, a2, a3, a4 = avail
    r0, r1, r2, r3, r4 = req
    # room after colour i: the most the later colours and the stones can still pay
    m3 = stones + a4
    m2 = m3 + a3
    m1 = m2 + a2
    m0 = m1 + a1
    if m0 + a0 < total:
        return ()
    found: list[Payment] = []
    for x0 in range(max(0, total - m0), min(a0, total, r0 + generic) + 1):
        l0 = total - x0
        s0 = generic - x0 + r0 if x0 > r0 else generic
        for x1 in range(max(0, l0 - m1), min(a1, l0, r1 + s0) + 1):
            l1 = l0 - x1
            s1 = s0 - x1 + r1 if x1 > r1 else s0
            for x2 in range(max(0, l1 - m2), min(a2, l1, r2 + s1) + 1):
                l2 = l1 - x2
                s2 = s1 - x2 + r2 if x2 > r2 else s1
                for x3 in range(max(0, l2 - m3), min(a3, l2, r3 + s2) + 1):
                    l3 = l2 - x3
                    s3 = s2 - x3 + r3 if x3 > r3 else s2
                    # the innermost bounds without min() and max(): this runs the most
                    lo = l3 - stones if l3 > stones else 0
                    hi = r4 + s3
                    if hi > a4:
                        hi = a4
                    if hi > l3:
                        hi = l3
                    for x4 in range(lo, hi + 1):
                        found.append((x0, x1, x2, x3, x4, l3 - x4))
    return tuple(found)


_PAY_NAMES = (*COLOURS, "stone")
_PAY_NAME_SET = frozenset(_PAY_NAMES)


def payment_dict(payment: Payment) -> dict[str, int]:
    """A payment as a JSON dict, e.g. ``{"red": 1, "stone": 1}`` (a fresh dict every time)."""
    return {name: n for name, n in zip(_PAY_NAMES, payment, strict=True) if n}


def payment_tuple(pay: object) -> Payment | None:
    """Parse a payment dict; None when it is malformed."""
    if not isinstance(pay, dict) or not _PAY_NAME_SET.issuperset(pay):
        return None
    for value in pay.values():
        if not isinstance(value, int) or value < 0:
            return None
    get = pay.get
    return (int(get("black", 0)), int(get("green", 0)), int(get("red", 0)),
            int(get("yellow", 0)), int(get("blue", 0)), int(get("stone", 0)))  # fmt: skip


def pay(s: State, seat: int, payment: Payment) -> tuple[list[str], int]:
    """Move the paid mana to the discard pile, oldest copies first; returns (cards, stones)."""
    p = s["seats"][seat]
    paid: list[str] = []
    due = payment[0] + payment[1] + payment[2] + payment[3] + payment[4]
    if due:
        left = list(payment[:5])
        mana = p["mana"]
        index = _COLOUR_INDEX
        for card in mana:
            i = index[card]
            if left[i]:
                paid.append(card)
                left[i] -= 1
                due -= 1
                if not due:
                    break
        keep = mana[:]
        for card in paid:
            keep.remove(card)
        p["mana"] = keep
        paid.sort(key=index.__getitem__)  # colour by colour, oldest copies first
    for _ in range(payment[5]):
        s["discard"].append(p["stones"].pop())
    s["discard"].extend(paid)
    return paid, payment[5]
