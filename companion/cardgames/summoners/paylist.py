"""Every payment of a cost, counted out colour by colour (payment.py's memo keeps the lists)."""

from __future__ import annotations

from .state import Payment


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
