"""A seat's score as it would stand if the match ended now, from what a view shows."""

from __future__ import annotations

from collections import Counter

from .cards import ICONS, kinds
from .view import SeatView


def projected_score(s: SeatView) -> float:
    """A seat's score if the match ended now (chips, points, game-end abilities)."""
    spirits = Counter(c["kind"] for c in s["spirits"])
    icons = Counter(s["icons"])
    total = float(s["vp"]) + sum(kinds()[k]["points"] * n for k, n in spirits.items())
    for kind, n in spirits.items():
        a = kinds()[kind]["ability"]
        if a["hook"] != "end-game":
            continue
        if a["score"] == "icon-sets":
            total += n * min(icons[i] for i in ICONS) * a["points"]
        elif a["score"] == "icons":
            total += n * (icons[a["icon"]] // a["per"]) * a["points"]
        elif a["score"] == "stones":
            total += n * (s["stones"] // a["per"]) * a["points"]
        else:
            total += n * (s["faith"] // a["per"]) * a["points"]
    return float(total)
