"""Build chosen positions for tests and rule demonstrations; every card stays in some zone."""

from __future__ import annotations

from typing import Any

from .cards import kind_of_card
from .flow import start_turn
from .state import Seat, State, zone_cards

ZONES = ("hand", "mana", "stones", "spirits")


def _pull(s: State, wanted: str, locked: set[str]) -> str:
    """Take a card of kind (or id) ``wanted`` out of the deck, discard or an unlocked zone."""
    pools = [s["deck"], s["discard"]]
    for p in s["seats"]:
        pools += [p["hand"], p["mana"], p["stones"]]
    for pool in pools:
        for card in pool:
            if card not in locked and (card == wanted or kind_of_card()[card] == wanted):
                pool.remove(card)
                return str(card)
    raise ValueError(f"no free card of kind {wanted!r}")


def _cards(p: Seat, zone: str) -> list[str]:
    found = zone_cards(p, zone)
    assert found is not None, zone
    return found


def arrange(s: State, seat: int, **zones: Any) -> State:
    """Set a seat's zones (lists of kinds or card ids), chips and pairing card, in place.

    ``hand``, ``mana``, ``stones`` and ``spirits`` replace those zones (old cards go to the
    bottom of the deck); ``vp`` and ``faith`` set chips; ``pairing`` names a mana entry by index
    (``None`` for no pending pairing card).
    """
    p = s["seats"][seat]
    locked: set[str] = set()
    for zone in ZONES:
        cards = _cards(p, zone)
        if zone in zones:
            s["deck"][:0] = cards
            cards.clear()
    for zone in ZONES:
        for wanted in zones.get(zone, []):
            card = _pull(s, wanted, locked)
            locked.add(card)
            _cards(p, zone).append(card)
    if "vp" in zones:
        p["vp"] = zones["vp"]
    if "faith" in zones:
        p["faith"] = zones["faith"]
    if "turns" in zones:
        p["turns"] = zones["turns"]
    if "pairing" in zones:
        index = zones["pairing"]
        p["pairing"] = None if index is None else p["mana"][index]
    elif "mana" in zones:
        p["pairing"] = p["mana"][-1] if p["mana"] else None
    return s


def stack_deck(s: State, kinds: list[str]) -> State:
    """Put cards of these kinds on top of the deck, the first listed drawn first."""
    cards = [_pull(s, k, set()) for k in kinds]
    s["deck"].extend(reversed(cards))
    return s


def begin_turn(s: State, seat: int) -> State:
    """Restart play at ``seat``'s Phase I (pending steps are dropped)."""
    s["todo"] = []
    s["await"] = None
    start_turn(s, seat)
    return s
