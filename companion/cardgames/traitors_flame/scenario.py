"""Build a Traitor's Flame state at a chosen position (scenario tests, tutorials, bug reports).

Cards are named by id (``"jester-2"``) or by kind (``"jester"``: the next unused copy). The deck is
given top first; the cards not placed anywhere go under it, or into the played row with
``fill=False`` (so a short deck can be set up while all 58 cards stay accounted for).
"""

from __future__ import annotations

from . import cards, engine
from .moves import FLAMES, Options, State


def make_state(
    players: int = 3,
    *,
    hands: list[list[str]] | None = None,
    deck: list[str] | None = None,
    played: list[str] | None = None,
    fill: bool = True,
    night: int = 0,
    dawn: int | None = None,
    direction: int = 1,
    totals: list[int] | None = None,
    round_no: int = 1,
    seed: int = 1,
    options: Options | None = None,
) -> State:
    """A state where ``night`` is to act; the log is empty, so it does not replay from its seed."""
    st = engine.new(players, seed, {**(options or {}), "start": night})
    used: set[str] = set()
    hand_ids = [_ids(h, used) for h in (hands or [[] for _ in range(players)])]
    played_ids = _ids(played or [], used)
    top_first = _ids(deck or [], used)
    rest = [c for c in engine.DECK if c not in used]
    if fill:
        top_first += rest
    else:
        played_ids += rest
    st.update(
        {
            "hands": hand_ids,
            "flames": [sum(c in FLAMES for c in h) for h in hand_ids],
            "played": played_ids,
            "deck": top_first[::-1],
            "night": night,
            "dawn": dawn,
            "direction": direction,
            "totals": list(totals or [0] * players),
            "round": round_no,
            "first": night,
            "start": night,
            "known": [[] for _ in range(players)],
        }
    )
    st["events"] = [{**ev, "round": round_no} for ev in st["events"]]
    return st


def _ids(tokens: list[str], used: set[str]) -> list[str]:
    out = []
    for token in tokens:
        if token in cards.ROUND_SPECIALS:
            raise ValueError("Night and Before-Dawn are markers: set night= and dawn= instead")
        card = token if token in cards.all_cards() else _next_copy(token, used)
        if card in used:
            raise ValueError(f"card {card!r} placed twice")
        used.add(card)
        out.append(card)
    return out


def _next_copy(kind: str, used: set[str]) -> str:
    if kind not in cards.kinds():
        raise ValueError(f"unknown card or kind {kind!r}")
    for card in cards.card_ids_of(cards.kinds()[kind]):
        if card not in used:
            return card
    raise ValueError(f"no copy of {kind!r} left")
