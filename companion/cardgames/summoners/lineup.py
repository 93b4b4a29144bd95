"""A seat's spirits in play summed up, as one immutable ``Lineup``: copies by kind, the icons,
the wards, the symbols the discounts waive, the amounts and groups of the hooks the rules read,
kept in the memo lent to the call. The rules read a seat's spirits through it (costs, reach,
triggers, scoring).
"""

from __future__ import annotations

import sys
from collections import Counter
from sys import getsizeof
from types import MappingProxyType
from typing import Any, NamedTuple, cast

from .cards import Kind, kind_of_card, kinds
from .memo import LENT, Memo
from .state import State

_KIND = kind_of_card()
_SPECS = kinds()
_ORDER = {k: i for i, k in enumerate(_SPECS)}
Group = tuple[tuple[str, int], ...]


class Lineup(NamedTuple):
    """What one line-up of spirits in play adds up to: an immutable value.

    ``counts``: kind -> copies, in order of first summon; ``icons``: icon -> count, in order of
    first appearance; ``wards``: what the ward abilities ward against; ``free``: symbols the
    discount abilities waive on every summon; ``place``, ``zero``, ``shift``: the sums of the
    ``amount`` parameter (1 when absent) of the place-on-summon, zero-played and shift-command
    abilities; ``on_action``, ``on_assist``, ``end_of_turn``, ``end_game``: (kind, copies) of the
    spirits with that hook, in card-code order; ``nbytes``: what this value adds to the memory
    of the line-up it was built from (its own mappings and the group tuple it made; the card
    and kind names, the small ints and the fields it kept are shared). Spirits stay in play, so
    a line-up is the one before it plus one card. Its fields cannot be set, and its mappings
    are read-only views of dicts nobody else holds.
    """

    counts: MappingProxyType[str, int]
    icons: MappingProxyType[str, int]
    wards: frozenset[str]
    free: int
    place: int
    zero: int
    shift: int
    on_action: Group
    on_assist: Group
    end_of_turn: Group
    end_game: Group
    nbytes: int

    def plus(self, card: str) -> Lineup:
        """This line-up with one more spirit."""
        kind = _KIND[card]
        field, amount, against, icons = _INFO[kind]
        # copy() of a read-only view copies the dict behind it (dict() would read it key by key)
        counts = self.counts.copy()
        counts[kind] = copies = counts.get(kind, 0) + 1
        totals = self.icons.copy()
        for icon in icons:
            totals[icon] = totals.get(icon, 0) + 1
        fields: list[Any] = list(self)
        fields[_COUNTS] = MappingProxyType(counts)
        fields[_ICONS] = MappingProxyType(totals)
        nbytes = _LINEUP_BYTES + counts.__sizeof__() + totals.__sizeof__()
        if field >= _FIRST_GROUP:
            group: Group = fields[field]
            if not group:
                made: Group = ((kind, 1),)
            elif copies > 1:  # the kind's pair, where it stands
                made = tuple([(kind, copies) if item[0] == kind else item for item in group])
            else:
                made = tuple(sorted((*group, (kind, 1)), key=_by_card_order))
            fields[field] = made
            nbytes += getsizeof(made) + _PAIR_BYTES * len(made)  # the group tuple, its pairs
        elif field >= 0:
            fields[field] += amount
        if against is not None:
            fields[_WARDS] = wards = self.wards | {against}
            nbytes += getsizeof(wards)
        fields[_NBYTES] = nbytes
        return _new_lineup(Lineup, fields)  # Lineup(*fields) without its __new__ in Python


def _by_card_order(item: tuple[str, int]) -> int:
    return _ORDER[item[0]]


# where plus() finds what it changes in a Lineup's fields
_COUNTS, _ICONS, _WARDS, _NBYTES = map(Lineup._fields.index, ("counts", "icons", "wards", "nbytes"))
_FIRST_GROUP = Lineup._fields.index("on_action")  # the groups come last, before nbytes
# the field each hook adds its amount to, or its (kind, copies) group
_FIELDS = {
    hook: Lineup._fields.index(name)
    for hook, name in {
        "discount": "free",
        "place-on-summon": "place",
        "zero-played": "zero",
        "shift-command": "shift",
        "on-action": "on_action",
        "on-assist": "on_assist",
        "end-of-turn": "end_of_turn",
        "end-game": "end_game",
    }.items()
}


def _kind_info(spec: Kind) -> tuple[int, int, str | None, tuple[str, ...]]:
    ability = spec["ability"]
    hook = ability["hook"]
    against = ability["against"] if hook == "ward" else None
    amount = ability.get("amount", 0 if hook == "discount" else 1)
    return _FIELDS.get(hook, -1), amount, against, tuple(spec["icons"])


# kind -> (the field its hook changes, or -1; the amount it adds; ward against; icons)
_INFO = {k: _kind_info(spec) for k, spec in _SPECS.items()}
# the card ids of the kinds with each hook, from the card data
_HOLDERS = {
    hook: frozenset(card for card, kind in _KIND.items() if _SPECS[kind]["ability"]["hook"] == hook)
    for hook in {spec["ability"]["hook"] for spec in _SPECS.values()}
}
# hook -> (the cards with it, the Lineup field of its group)
_GROUPS = {
    hook: (_HOLDERS[hook], _FIELDS[hook])
    for hook in ("on-action", "on-assist", "end-of-turn", "end-game")
}
_WARDERS = _HOLDERS["ward"]
_REACHERS = _HOLDERS["zero-played"] | _HOLDERS["shift-command"]
_NOTHING: MappingProxyType[str, Any] = MappingProxyType({})
_NO_SPIRITS = Lineup(_NOTHING, _NOTHING, frozenset(), 0, 0, 0, 0, (), (), (), (), 0)
# a Lineup, its two read-only views and its ``nbytes`` (an int of its own), and the GC headers
# of its two dicts
_LINEUP_BYTES = (
    sys.getsizeof(_NO_SPIRITS)
    + 2 * sys.getsizeof(_NO_SPIRITS.counts)
    + sys.getsizeof(1 << 20)
    + 2 * (sys.getsizeof({}) - {}.__sizeof__())
)
_PAIR_BYTES = sys.getsizeof(("", 0))  # one (kind, copies) pair of a group
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


def group(s: State, seat: int, hook: str) -> Group:
    """(kind, copies) of the seat's spirits with ``hook`` ("on-action", "on-assist",
    "end-of-turn" or "end-game"), in card-code order: its line-up's group, or none at all
    when no spirit of the seat has that hook (no line-up is looked up then)."""
    holders, field = _GROUPS[hook]
    if holders.isdisjoint(s["seats"][seat]["spirits"]):
        return ()
    return cast(Group, lineup(s, seat)[field])


def reach_amounts(s: State, seat: int) -> tuple[int, int]:
    """The seat's zero-played and shift-command amounts (what changes the actions it may
    reach): its line-up's, or none when no spirit of the seat has those hooks (no line-up is
    looked up then)."""
    if _REACHERS.isdisjoint(s["seats"][seat]["spirits"]):
        return 0, 0
    spirits = lineup(s, seat)
    return spirits.zero, spirits.shift


def icon_counts(s: State, seat: int) -> Counter[str]:
    """Icons over the seat's spirits."""
    return Counter(lineup(s, seat).icons)


def warded(s: State, seat: int, against: str) -> bool:
    """True when the seat has a ward ability against ``against`` ("steal" or "inquisition")."""
    spirits = s["seats"][seat]["spirits"]
    return not _WARDERS.isdisjoint(spirits) and against in lineup(s, seat).wards
