"""What the heuristic bot's cheapest payment for a summon or an ability costs it, in value."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from .cards import COLOURS

if TYPE_CHECKING:
    from .valuation import Eye


def cheapest_payment(
    self: Eye, req: tuple[int, ...], generic: int, free: int, extra_mana: str | None = None
) -> float | None:
    """Greedy cheapest payment value: reductions where short, stones only when needed."""
    left = Counter(self.mana)
    if extra_mana:
        left[extra_mana] += 1
    need = list(req)
    for i, colour in enumerate(COLOURS):
        waive = min(max(0, need[i] - left[colour]), free)
        need[i] -= waive
        free -= waive
    while free and sum(need):
        i = max((j for j in range(5) if need[j]), key=lambda j: self.mana_value(COLOURS[j]))
        need[i] -= 1
        free -= 1
    stones, cost, stone = self.me["stones"], 0.0, self.stone_value()
    for i, colour in enumerate(COLOURS):
        use = min(need[i], left[colour])
        left[colour] -= use
        stones -= need[i] - use
        cost += use * self.mana_value(colour) + (need[i] - use) * stone
    if stones < 0:
        return None
    pool = sorted([self.mana_value(c) for c in COLOURS for _ in range(left[c])] + [stone] * stones)
    if len(pool) < generic:
        return None
    return cost + sum(pool[:generic])
