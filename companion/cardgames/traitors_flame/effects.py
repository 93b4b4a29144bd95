"""The effect interpreter: a card's effect is data, a list of building blocks run in order.

Choices (target, which card to give or bury, Flame or non-Flame) are all made when the card is
played (digest 4.4), and block conditions are tested once, at that moment, on public information.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Literal, Required, TypedDict

from . import moves
from .cards import TARGETED, Block, Kind, kinds
from .moves import FLAMES, Action, State


class Step(TypedDict, total=False):
    """What one block of a legal play will do, as ``outcome`` foresees it from public facts."""

    block: Required[str]  # the block's name: TAKE, GIVE, BOTTOM, DRAW...
    take: Literal["flame", "non_flame"] | None  # TAKE: what it takes (None: nothing to take)
    card: str | None  # GIVE, BOTTOM: the card given or buried (None: nothing to give)
    source: str  # BOTTOM: "own_hand" or "deck_top"


def condition_holds(flames: list[int], seat: int, target: int | None, block: Block) -> bool:
    """Whether a block's public condition holds (blocks without one always apply)."""
    cond = block.get("if")
    if not cond:
        return True
    for name, n in cond.items():
        holder = seat if name == "self_flames_at_least" else target
        if holder is None or flames[holder] < n:
            return False
    return True


@cache
def asking_blocks(kind_id: str) -> tuple[tuple[str, Block], ...]:
    """The blocks of a kind that ask the player for a choice, with the action key they fill."""
    out = []
    for block in kinds()[kind_id]["effect"]:
        name = block["block"]
        if name == "TAKE" and block["selector"] == "choose":
            out.append(("take", block))
        elif name == "GIVE":
            out.append(("give", block))
        elif name == "BOTTOM" and block["source"] == "own_hand":
            out.append(("bottom", block))
    return tuple(out)


def choices(
    flames: list[int],
    counts: list[int],
    seat: int,
    target: int | None,
    kind: Kind,
    rest: list[str],
) -> list[tuple[str, list[str]]]:
    """The choices a play asks for, as (action key, allowed values); ``rest`` is the hand after it.

    Only public facts are read (Flame counts and hand sizes), so bots can call it on what they see.
    """
    asks: list[tuple[str, list[str]]] = []
    for key, block in asking_blocks(kind["id"]):
        if "if" in block and not condition_holds(flames, seat, target, block):
            continue
        if key == "bottom":
            if rest:
                asks.append((key, list(rest)))
            continue
        if target == seat:
            continue  # targeting yourself takes and gives nothing (D10)
        assert target is not None
        if key == "take":
            opts = ["flame"] if flames[target] else []
            if counts[target] > flames[target]:
                opts.append("non_flame")
        else:
            opts = [c for c in rest if block["selector"] == "any" or c not in FLAMES]
        if opts:
            asks.append((key, opts))
    return asks


def outcome(flames: list[int], counts: list[int], seat: int, action: Action) -> list[Step]:
    """What a legal play will do, block by block, judged on public facts as it is played.

    Each acting block comes as ``{"block": name, ...}`` with what it takes (``take``: ``flame``,
    ``non_flame`` or None when there is nothing to take), gives or buries (``card``); blocks whose
    condition fails, and targeted blocks aimed at the player (D10), are left out."""
    kind = moves.KIND[action["card"]]
    target = action.get("target")
    out: list[Step] = []
    for block in kind["effect"]:
        name = block["block"]
        if not condition_holds(flames, seat, target, block):
            continue
        if name in TARGETED and (target is None or target == seat):
            continue
        out.append(_step(block, action, flames, counts, target))
    return out


def _step(
    block: Block, action: Action, flames: list[int], counts: list[int], target: int | None
) -> Step:
    name = block["block"]
    if name == "TAKE" and target is not None:
        what = action.get("take") if block["selector"] == "choose" else block["selector"]
        if what == "flame" and flames[target]:
            return {"block": name, "take": "flame"}
        if what == "non_flame" and counts[target] > flames[target]:
            return {"block": name, "take": "non_flame"}
        return {"block": name, "take": None}
    if name == "GIVE":
        return {"block": name, "card": action.get("give")}
    if name == "BOTTOM":
        return {"block": name, "source": block["source"], "card": action.get("bottom")}
    return {"block": name}


def run_card(st: State, seat: int, card: str, action: Action) -> bool:
    """Run a played card's blocks in order, each bound once to its code; True if the deck ran out
    (the blocks after that are cancelled, D2)."""
    conditional, program = _PROGRAMS[card]
    target = action.get("target")
    if conditional:  # conditions are tested once, before any block runs
        flames = st["flames"]
        program = tuple(p for p in program if condition_holds(flames, seat, target, p[1]))
    for run, block in program:
        if run(st, seat, target, block, action):
            return True
    return False


def _draw(st: State, seat: int, target: int | None, block: Block, action: Action) -> bool:
    return moves.draw(st, seat, block["n"])


def _peek(st: State, seat: int, target: int | None, block: Block, action: Action) -> bool:
    if st["quiet"]:
        return False  # only knowledge and an event, which a quiet state keeps neither of
    top = st["deck"][: -block["n"] - 1 : -1]
    moves.learn(st, seat, top)
    moves.event(
        st,
        {
            "type": "peeked",
            "seat": seat,
            "count": len(top),
            "private": {"seats": [seat], "cards": top},
        },
    )
    return False


def _take(st: State, seat: int, target: int | None, block: Block, action: Action) -> bool:
    if target is None or target == seat:
        return False
    selector = block["selector"]
    choice = action.get("take") if selector == "choose" else selector
    hand = st["hands"][target]
    if choice == "flame":
        card = next((c for c in hand if c in FLAMES), None)
    else:
        pool = [c for c in hand if c not in FLAMES]
        if len(pool) == 1 and choice == "non_flame":
            st["rng"] += 1  # the generator this pick uses, unused: one card is its only answer
            card = pool[0]
        else:
            card = moves.rng(st).choice(pool) if pool and choice == "non_flame" else None
    if card is None:
        if not st["quiet"]:
            moves.event(st, {"type": "fizzled", "seat": seat, "block": "TAKE", "target": target})
        return False
    if st["quiet"]:  # no knowledge, no events
        moves.move(st, card, target, seat)
        return False
    flame = card in FLAMES
    if not flame:
        moves.blur(st, target, (seat, target))
    moves.move(st, card, target, seat)
    moves.learn(st, target, [card])
    moves.event(
        st,
        {
            "type": "took",
            "seat": seat,
            "target": target,
            "flame": flame,
            "private": {"seats": [seat, target], "card": card},
        },
    )
    return False


def _give(st: State, seat: int, target: int | None, block: Block, action: Action) -> bool:
    card = action.get("give")
    if target is None or target == seat or card is None or card not in st["hands"][seat]:
        return False
    if st["quiet"]:  # no knowledge, no events
        moves.move(st, card, seat, target)
        return False
    flame = card in FLAMES
    if not flame:
        moves.blur(st, seat, (seat, target))
    moves.move(st, card, seat, target)
    moves.learn(st, seat, [card])
    moves.event(
        st,
        {
            "type": "gave",
            "seat": seat,
            "target": target,
            "flame": flame,
            "private": {"seats": [seat, target], "card": card},
        },
    )
    return False


def _look(st: State, seat: int, target: int | None, block: Block, action: Action) -> bool:
    if target is None or target == seat or st["quiet"]:
        return False
    seen = [c for c in st["hands"][target] if c not in FLAMES]
    moves.learn(st, seat, seen)
    moves.event(
        st,
        {
            "type": "looked",
            "seat": seat,
            "target": target,
            "private": {"seats": [seat], "cards": seen},
        },
    )
    return False


def _bottom(st: State, seat: int, target: int | None, block: Block, action: Action) -> bool:
    deck = st["deck"]
    if block["source"] == "deck_top":
        if deck:
            deck.insert(0, deck.pop())
            if not st["quiet"]:
                moves.event(st, {"type": "bottomed", "seat": seat, "source": "deck_top"})
        return False
    card = action.get("bottom")
    hand = st["hands"][seat]
    if card is None or card not in hand:
        return False
    if card in FLAMES:
        st["flames"][seat] -= 1
    else:
        moves.blur(st, seat, (seat,))
    hand.remove(card)
    deck.insert(0, card)
    moves.learn(st, seat, [card])
    moves.event(
        st,
        {
            "type": "bottomed",
            "seat": seat,
            "source": "own_hand",
            "private": {"seats": [seat], "card": card},
        },
    )
    return False


def _reverse(st: State, seat: int, target: int | None, block: Block, action: Action) -> bool:
    st["direction"] = -st["direction"]
    if not st["quiet"]:
        moves.event(st, {"type": "reversed", "seat": seat, "direction": st["direction"]})
    return False


def _skip(st: State, seat: int, target: int | None, block: Block, action: Action) -> bool:
    st["skip"] = True
    if not st["quiet"]:
        moves.event(st, {"type": "skip-set", "seat": seat})
    return False


_BLOCKS: dict[str, Callable[[State, int, int | None, Block, Action], bool]] = {
    "DRAW": _draw,
    "PEEK": _peek,
    "TAKE": _take,
    "GIVE": _give,
    "LOOK_HAND": _look,
    "BOTTOM": _bottom,
    "REVERSE": _reverse,
    "SKIP": _skip,
}

Program = tuple[
    bool, tuple[tuple[Callable[[State, int, int | None, Block, Action], bool], Block], ...]
]


def program(effect: list[Block]) -> Program:
    """An effect bound to its code: whether any block has a condition, and each block's code."""
    return any("if" in b for b in effect), tuple((_BLOCKS[b["block"]], b) for b in effect)


# each card id's program, built once
_PROGRAMS = {card: program(kind["effect"]) for card, kind in moves.KIND.items()}
