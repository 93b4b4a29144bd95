"""A seat's spirits in play summed up, as one immutable ``Lineup``: copies by kind, the hooks'
amounts and groups, the wards, the icons and the symbols the discounts waive, kept in the memo
lent to the call. The rules read a seat's spirits through it (costs, reach, triggers, scoring).
"""

from __future__ import annotations

import sys
from collections import Counter
from sys import getsizeof
from types import MappingProxyType
from typing import Any, NamedTuple

from .cards import Kind, kind_of_card, kinds
from .memo import LENT, Memo
from .state import State

_KIND = kind_of_card()
_SPECS = kinds()
_ORDER = {k: i for i, k in enumerate(_SPECS)}


def _kind_info(spec: Kind) -> tuple[str, int, str | None, int, tuple[str, ...]]:
    ability = spec["ability"]
    hook = ability["hook"]
    against = ability["against"] if hook == "ward" else None
    discount = ability.get("amount", 0) if hook == "discount" else 0
    return hook, ability.get("amount", 1), against, discount, tuple(spec["icons"])


# kind -> (hook, amount (1 when absent), ward against, discount, icons)
_INFO = {k: _kind_info(spec) for k, spec in _SPECS.items()}


class Lineup(NamedTuple):
    """What one line-up of spirits in play adds up to: an immutable value.

    ``counts``: kind -> copies, in order of first summon; ``amounts``: hook -> the sum of its
    ``amount`` parameter (1 when absent); ``grouped``: hook -> (kind, copies) in card-code order;
    ``icons``: icon -> count, in order of first appearance; ``free``: symbols the discount
    abilities waive on every summon; ``nbytes``: what this value adds to the memory of the
    line-up it was built from (its own mappings and the one group tuple it made; the card and
    kind names and the small ints are shared with the card data). Spirits stay in play, so a
    line-up is the one before it plus one card. Its fields cannot be set, and its mappings are
    read-only views of dicts nobody else holds.
    """

    counts: MappingProxyType[str, int]
    amounts: MappingProxyType[str, int]
    grouped: MappingProxyType[str, tuple[tuple[str, int], ...]]
    wards: frozenset[str]
    icons: MappingProxyType[str, int]
    free: int
    nbytes: int

    def plus(self, card: str) -> Lineup:
        """This line-up with one more spirit."""
        kind = _KIND[card]
        hook, amount, against, discount, icons = _INFO[kind]
        # copy() of a read-only view copies the dict behind it (dict() would read it key by key)
        counts = self.counts.copy()
        counts[kind] = copies = counts.get(kind, 0) + 1
        amounts = self.amounts.copy()
        amounts[hook] = amounts.get(hook, 0) + amount
        group = self.grouped.get(hook)
        if group is None:
            made: tuple[tuple[str, int], ...] = ((kind, 1),)
        elif copies > 1:  # the kind's pair, where it stands
            made = tuple([(kind, copies) if item[0] == kind else item for item in group])
        else:
            made = tuple(sorted((*group, (kind, 1)), key=_by_card_order))
        grouped = self.grouped.copy()
        grouped[hook] = made
        wards = self.wards if against is None else self.wards | {against}
        totals = self.icons.copy()
        for icon in icons:
            totals[icon] = totals.get(icon, 0) + 1
        nbytes = (  # each dict's __sizeof__() is getsizeof() without the GC header
            _LINEUP_BYTES
            + counts.__sizeof__()
            + amounts.__sizeof__()
            + grouped.__sizeof__()
            + totals.__sizeof__()
            + _GROUP_BYTES * len(made)  # the group tuple and its pairs
            + (0 if against is None else getsizeof(wards))
        )
        fields = (
            MappingProxyType(counts),
            MappingProxyType(amounts),
            MappingProxyType(grouped),
            wards,
            MappingProxyType(totals),
            self.free + discount,
            nbytes,
        )
        return _new_lineup(Lineup, fields)  # Lineup(*fields) without its __new__ in Python


def _by_card_order(item: tuple[str, int]) -> int:
    return _ORDER[item[0]]


_NOTHING: MappingProxyType[str, Any] = MappingProxyType({})
_NO_SPIRITS = Lineup(_NOTHING, _NOTHING, _NOTHING, frozenset(), _NOTHING, 0, 0)
# a Lineup, its four read-only views and its ``nbytes`` (an int of its own), the empty group
# tuple, and the GC headers of its four dicts
_LINEUP_BYTES = (
    sys.getsizeof(_NO_SPIRITS)
    + 4 * sys.getsizeof(_NO_SPIRITS.counts)
    + sys.getsizeof(1 << 20)
    + sys.getsizeof(())
    + 4 * (sys.getsizeof({}) - {}.__sizeof__())
)
# what one (kind, copies) pair adds to a group: the pair and the group's pointer to it
_GROUP_BYTES = sys.getsizeof(("", 0)) + sys.getsizeof(("",)) - sys.getsizeof(())
_new_lineup = tuple.__new__


def lineup(s: State, seat: int) -> Lineup:
    """The seat's spirits in play, summed up (kept in the memo lent to the call, if any)."""
    spirits = s["seats"][seat]["spirits"]
    if not spirits:
        return _NO_SPIRITS
    memo = LENT.get()
    if memo is None:
        found = _NO_SPIRITS
        for card in spirits:
            found = found.plus(card)
        return found
    key = tuple(spirits)
    kept: Lineup | None = memo.lineups.get(key)
    if kept is None:
        return _remembered(memo, key)
    memo.hits += 1
    return kept


def _remembered(memo: Memo, key: tuple[str, ...]) -> Lineup:
    """The line-up of ``key``: the memo's older generation's, kept again, else built on the
    longest one the memo holds, each step kept."""
    kept: Lineup | None = memo.lineups.recall(key)
    if kept is not None:
        memo.hits += 1
        memo.lineups.put(key, kept, getsizeof(key) + kept.nbytes)
        return kept
    memo.misses += 1
    before = memo.lineups.get(key[:-1]) if len(key) > 1 else _NO_SPIRITS
    if before is None:
        before = _remembered(memo, key[:-1])
    found = before.plus(key[-1])
    memo.lineups.put(key, found, getsizeof(key) + found.nbytes)
    return found


def icon_counts(s: State, seat: int) -> Counter[str]:
    """Icons over the seat's spirits."""
    return Counter(lineup(s, seat).icons)


def warded(s: State, seat: int, against: str) -> bool:
    """True when the seat has a ward ability against ``against`` ("steal" or "inquisition")."""
    return against in lineup(s, seat).wards
