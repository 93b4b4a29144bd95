"""Costs and payments (rule 4.2): coloured symbols, the generic symbol, stones and reductions.

A payment is a tuple of six counts: one per colour in ``COLOURS`` order, then stones. Which
copy of a colour pays makes no rule difference (only colours and numbers are visible on mana, and
a colour fixes the number), so payments are distinct by counts only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from itertools import permutations
from operator import itemgetter
from sys import getsizeof
from typing import TypedDict, cast

from .cards import COLOURS, Kind, colour_of_card, kind_of_card, kinds
from .lineup import Lineup, lineup
from .memo import LENT, Memo
from .state import Payment, State, rules


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
_SELF_COST = {
    k: _self_discounted(spec)
    for k, spec in _SPECS.items()
    if spec["ability"]["hook"] == "self-discount"
}
# kind -> (its cost while no copy of it is in play, its cost once one is), as (colours, generic):
# ``COSTS[kind][kind in spirits.counts]`` is what the seat pays before the waived symbols
COSTS = {k: (_SELF_COST.get(k, cost), cost) for k, cost in _BASE_COST.items()}
# A cost as ``can_pay`` reads it: (colour index, symbols) for each colour it names, the generic
# symbols and all the coloured ones.
Price = tuple[tuple[tuple[int, int], ...], int, int]


def price(req: tuple[int, ...], generic: int) -> Price:
    """The ``Price`` of a cost given as (coloured counts, generic count)."""
    return tuple((i, r) for i, r in enumerate(req) if r), generic, sum(req)


# COSTS as prices: ``PRICES[kind][kind in spirits.counts]``
PRICES = {k: (price(*without), price(*with_one)) for k, (without, with_one) in COSTS.items()}


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
    """True when some payment exists (``can_pay`` for a cost given as counts)."""
    return can_pay(price(req, generic), free, avail, stones, sum(avail) + stones)


def can_pay(cost: Price, free: int, avail: tuple[int, ...], stones: int, have: int) -> bool:
    """True when some payment of ``cost`` exists, ``free`` of its coloured symbols waived, from
    ``avail`` mana per colour and ``stones`` (``have``: the two together): reductions go to the
    symbols the row cannot cover first, stones to the rest."""
    parts, generic, need = cost
    short = 0
    for i, r in parts:
        if r > avail[i]:
            short += r - avail[i]
    if short - free > stones:
        return False
    return have >= (need - free if free < need else 0) + generic


def pending_payments(s: State, seat: int) -> tuple[Payment, ...]:
    """Payments for what the seat is paying for now (a summon or a paid ability)."""
    found = pending_options(s, seat)
    if isinstance(found, tuple):
        return found
    return cast(tuple[Payment, ...], tuple(map(tuple, found)))


def pending_options(s: State, seat: int) -> tuple[Payment, ...] | list[list[int]]:
    """``pending_payments`` as they are at hand: the lists the state keeps once the seat was
    asked to choose (read, never changed), else the payments worked out."""
    target = s["turn"]["paying"]
    kept = target.get("options")
    if kept is not None:
        return kept
    if target["for"] == "summon":
        return summon_payments(s, seat, _KIND[target["card"]])
    return cost_payments(s, seat, _ABILITY_COST[target["kind"]])


def summon_payments(s: State, seat: int, kind: str) -> tuple[Payment, ...]:
    """Every distinct way the seat can pay for summoning ``kind`` now (empty if it cannot).

    Where the rules ask every ability (engine version 3), a payment may leave reductions
    unused: after the payments that use them all come those that use fewer (one Gargoyle of
    two, none, the Giant's own reduction or not: each is used whole or not at all), each
    paying more cards."""
    spirits = lineup(s, seat)
    req, generic, free = lineup_cost(spirits, kind)
    avail, stones = mana_counts(s, seat)
    found = payments(req, generic, free, avail, stones)
    if not found or not rules(s).reductions_asked:
        return found
    full = COSTS[kind][1][0]  # the coloured symbols without the kind's own reduction
    costs = [(req, waived) for waived in range(free - 1, -1, -1)]
    if full != req:
        costs += [(full, waived) for waived in range(free, -1, -1)]
    more = dict.fromkeys(found)
    for colours, waived in costs:
        more.update(dict.fromkeys(payments(colours, generic, waived, avail, stones)))
    return tuple(more)


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
    The payments are those counts with at most ``generic`` cards beyond their colour's
    symbols: a colour's symbols past what it can use, or all of them when the generic symbols
    could pay for every card beyond them, are left out of the key too (see ``_Key``).
    """
    r0, r1, r2, r3, r4 = req
    need = r0 + r1 + r2 + r3 + r4
    total = (need - free if free < need else 0) + generic
    a0, a1, a2, a3, a4 = avail
    # min(a, r + generic, total) per colour, without the calls
    c0, c1, c2, c3, c4 = r0 + generic, r1 + generic, r2 + generic, r3 + generic, r4 + generic
    u0 = a0 if a0 < c0 and a0 < total else c0 if c0 < total else total
    u1 = a1 if a1 < c1 and a1 < total else c1 if c1 < total else total
    u2 = a2 if a2 < c2 and a2 < total else c2 if c2 < total else total
    u3 = a3 if a3 < c3 and a3 < total else c3 if c3 < total else total
    u4 = a4 if a4 < c4 and a4 < total else c4 if c4 < total else total
    if stones > total:
        stones = total
    memo = LENT.get()
    if memo is None or total > _MOST:
        return payment_list(r0, r1, r2, r3, r4, generic, total, u0, u1, u2, u3, u4, stones)
    beyond = (
        (u0 - r0 if u0 > r0 else 0)
        + (u1 - r1 if u1 > r1 else 0)
        + (u2 - r2 if u2 > r2 else 0)
        + (u3 - r3 if u3 > r3 else 0)
        + (u4 - r4 if u4 > r4 else 0)
    )
    if beyond <= generic or total <= generic:  # the generic symbols can pay for any of it
        k0, k1, k2, k3, k4, generic = u0, u1, u2, u3, u4, total
    else:  # the symbols a colour can cover, and what it can use, as one number
        k0 = (r0 if r0 < u0 else u0) * _RANGE + u0
        k1 = (r1 if r1 < u1 else u1) * _RANGE + u1
        k2 = (r2 if r2 < u2 else u2) * _RANGE + u2
        k3 = (r3 if r3 < u3 else u3) * _RANGE + u3
        k4 = (r4 if r4 < u4 else u4) * _RANGE + u4
    if not k0 <= k1 <= k2 <= k3 <= k4:
        return _reordered(memo, k0, k1, k2, k3, k4, generic, total, stones)
    key = (k0, k1, k2, k3, k4, generic, total, stones)
    found: tuple[Payment, ...] | None = memo.payments.get(key)
    if found is None:
        return _worked_out(memo, key)
    memo.hits += 1
    return found


# The memo's key (``_Key``): per colour ``symbols * _RANGE + usable``, then the generic symbols,
# the cards paid and the stones usable, all small ints: what the payments depend on. The
# payments of colours in another order are the same payments with their counts in that order,
# so the memo keeps them for the colours sorted by their key numbers, smallest first (the
# loops of payment_list() then run through the fewest counts), and reorders them for another
# order.
_Key = tuple[int, int, int, int, int, int, int, int]
# the dearest payment a game asks for, in cards: the memo keeps payments up to this size
_MOST = max(
    [sum(req) + generic for pair in COSTS.values() for req, generic in pair]
    + [sum(symbols(cost)[0]) + symbols(cost)[1] for cost in _ABILITY_COST.values()]
)
_RANGE = _MOST + 1  # a key's usable counts are below this


def _every_payment(cards: int, parts: int) -> list[tuple[int, ...]]:
    """Every tuple of ``parts`` counts that add up to at most ``cards``."""
    if parts == 0:
        return [()]
    return [(n, *rest) for n in range(cards + 1) for rest in _every_payment(cards - n, parts - 1)]


# every payment of up to _MOST cards as one tuple, made at import and never changed: the
# memo's lists hold these rather than copies of their own (a list costs only its pointers)
_share = cast("Callable[[Payment], Payment]", {p: p for p in _every_payment(_MOST, 6)}.__getitem__)


def _settled(order: tuple[int, ...]) -> int:
    """How many of the first colours of ``order`` must pay nothing for the payments to stay
    in ascending order when put back: the rest must keep their order."""
    first = len(order) - 1
    while first and order[first - 1] < order[first]:
        first -= 1
    return first


# sorted colour j is the asked colour in the low bits of its sort number (see _reordered):
# those colours of the five in sorted order -> how to put a sorted payment's counts back in the
# asked order, and _settled()
_REORDER = {
    order: (itemgetter(*(order.index(i) for i in range(5)), 5), _settled(order))
    for order in permutations(range(5))
}
# a memo's key: an 8-tuple of small ints; a list of payments: a tuple of pointers to _share's
_KEY_BYTES = getsizeof((0,) * 8)


def _reordered(
    memo: Memo, k0: int, k1: int, k2: int, k3: int, k4: int, generic: int, total: int, stones: int
) -> tuple[Payment, ...]:
    """The payments of a ``_Key`` whose colours are out of order: those of its sorted form
    (from the memo, else worked out and kept), with the counts put back in order."""
    # each colour as a sort number: its key number, then its place (equal numbers keep their
    # order)
    n0, n1, n2, n3, n4 = sorted((k0 * 8, k1 * 8 + 1, k2 * 8 + 2, k3 * 8 + 3, k4 * 8 + 4))
    ordered = (n0 >> 3, n1 >> 3, n2 >> 3, n3 >> 3, n4 >> 3, generic, total, stones)
    kept: tuple[Payment, ...] | None = memo.payments.get(ordered)
    if kept is None:
        kept = _worked_out(memo, ordered)
    else:
        memo.hits += 1
    back, settled = _REORDER[n0 & 7, n1 & 7, n2 & 7, n3 & 7, n4 & 7]
    # only colours that pay nothing moved (they sort first: the first ``settled`` are such)
    if not settled or not ordered[settled - 1]:
        return tuple(map(back, kept))
    return tuple(sorted(map(back, kept)))  # in ascending order again, as payment_list() lists them


def _worked_out(memo: Memo, key: _Key) -> tuple[Payment, ...]:
    """The payments of ``key``, from the memo's older generation or worked out, kept."""
    found: tuple[Payment, ...] | None = memo.payments.recall(key)
    if found is not None:
        memo.hits += 1
        memo.payments.put(key, found, _KEY_BYTES + getsizeof(found))
        return found
    memo.misses += 1
    c0, c1, c2, c3, c4, generic, total, stones = key
    found = tuple(
        map(
            _share,
            payment_list(
                c0 // _RANGE,
                c1 // _RANGE,
                c2 // _RANGE,
                c3 // _RANGE,
                c4 // _RANGE,
                generic,
                total,
                c0 % _RANGE,
                c1 % _RANGE,
                c2 % _RANGE,
                c3 % _RANGE,
                c4 % _RANGE,
                stones,
            ),
        )
    )
    memo.payments.put(key, found, _KEY_BYTES + getsizeof(found))
    return found


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


# Every payment of a cost, counted out colour by colour (the memo keeps the lists).


def payment_list(
    r0: int,
    r1: int,
    r2: int,
    r3: int,
    r4: int,
    generic: int,
    total: int,
    a0: int,
    a1: int,
    a2: int,
    a3: int,
    a4: int,
    stones: int,
) -> tuple[Payment, ...]:
    """The payments of ``total`` cards. Colour by colour, what is spent beyond that colour's
    symbols comes out of the generic symbols (``s0``...``s3`` are the generic symbols left), and
    what is spent after the colours (``l0``...``l3`` are the cards left) is stones. Payments
    come out in ascending order: the loops count up colour by colour.
    """
    # room after colour i: the most the later colours and the stones can still pay
    m3 = stones + a4
    m2 = m3 + a3
    m1 = m2 + a2
    m0 = m1 + a1
    if m0 + a0 < total:
        return ()
    found: list[Payment] = []
    append = found.append
    # each colour's bounds: from what the later ones cannot cover, to the fewest of its mana,
    # its symbols plus the generic ones left and the cards left (no min() and max(): this runs
    # the most of all the payment code)
    hi0 = r0 + generic
    hi0 = a0 if a0 < hi0 else hi0
    for x0 in range(total - m0 if total > m0 else 0, (total if total < hi0 else hi0) + 1):
        l0 = total - x0
        s0 = generic - x0 + r0 if x0 > r0 else generic
        hi1 = r1 + s0
        hi1 = a1 if a1 < hi1 else hi1
        for x1 in range(l0 - m1 if l0 > m1 else 0, (l0 if l0 < hi1 else hi1) + 1):
            l1 = l0 - x1
            s1 = s0 - x1 + r1 if x1 > r1 else s0
            hi2 = r2 + s1
            hi2 = a2 if a2 < hi2 else hi2
            for x2 in range(l1 - m2 if l1 > m2 else 0, (l1 if l1 < hi2 else hi2) + 1):
                l2 = l1 - x2
                s2 = s1 - x2 + r2 if x2 > r2 else s1
                hi3 = r3 + s2
                hi3 = a3 if a3 < hi3 else hi3
                for x3 in range(l2 - m3 if l2 > m3 else 0, (l2 if l2 < hi3 else hi3) + 1):
                    l3 = l2 - x3
                    s3 = s2 - x3 + r3 if x3 > r3 else s2
                    hi4 = r4 + s3
                    hi4 = a4 if a4 < hi4 else hi4
                    for x4 in range(
                        l3 - stones if l3 > stones else 0, (l3 if l3 < hi4 else hi4) + 1
                    ):
                        append((x0, x1, x2, x3, x4, l3 - x4))
    return tuple(found)


# Payments as the actions and events spell them: a JSON dict of the counts paid, by colour
# name and ``"stone"`` (``{"red": 1, "stone": 1}``), and back to the six-count tuple.

_PAY_NAMES = (*COLOURS, "stone")
_PAY_NAME_SET = frozenset(_PAY_NAMES)


def payment_dict(payment: Sequence[int]) -> dict[str, int]:
    """A payment as a JSON dict, e.g. ``{"red": 1, "stone": 1}`` (a fresh dict every time)."""
    b, g, r, y, u, stones = payment  # the names in _PAY_NAMES order, spelled out: this runs a lot
    found = {}
    if b:
        found["black"] = b
    if g:
        found["green"] = g
    if r:
        found["red"] = r
    if y:
        found["yellow"] = y
    if u:
        found["blue"] = u
    if stones:
        found["stone"] = stones
    return found


def payment_tuple(pay: object) -> Payment | None:
    """Parse a payment dict; None when it is malformed."""
    if not isinstance(pay, dict) or not _PAY_NAME_SET.issuperset(pay):
        return None
    for value in pay.values():
        if not isinstance(value, int) or value < 0:
            return None
    get = pay.get
    return (
        int(get("black", 0)),
        int(get("green", 0)),
        int(get("red", 0)),
        int(get("yellow", 0)),
        int(get("blue", 0)),
        int(get("stone", 0)),
    )
