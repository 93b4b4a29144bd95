"""Payments as the actions and events spell them: a JSON dict of the counts paid, by colour
name and ``"stone"`` (``{"red": 1, "stone": 1}``), and back to payment.py's six-count tuple."""

from __future__ import annotations

from collections.abc import Sequence

from .cards import COLOURS
from .state import Payment

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
