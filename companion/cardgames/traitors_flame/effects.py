"""The effect interpreter: a card's effect is data, a list of building blocks run in order.

Choices (target, which card to give or bury, Flame or non-Flame) are all made when the card is
played (digest 4.4), and block conditions are tested once, at that moment, on public information.
"""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType
from typing import Literal, Required, TypedDict

from . import moves
from .cards import TARGETED, Block, Kind, kinds
from .moves import FLAMES, Action, Private, Sink, State


class Step(TypedDict, total=False):
    """What one block of a legal play will do, as ``outcome`` foresees it from public facts."""

    block: Required[str]  # the block's name: TAKE, GIVE, BOTTOM, DRAW...
    take: Literal["flame", "non_flame"] | None  # TAKE: what it takes (None: nothing to take)
    card: str | None  # GIVE, BOTTOM: the card given or buried (None: nothing to give)
    source: str  # BOTTOM: "own_hand" or "deck_top"


def acted_on(seat: int, target: int | None) -> int | None:
    """The seat a targeted block (TAKE, GIVE, LOOK_HAND) acts on, or None when it acts on nobody:
    a play aimed at its own player takes, gives and looks at nothing (D10)."""
    return None if target == seat else target


def condition_holds(flames: list[int], seat: int, target: int | None, block: Block) -> bool:
    """Whether a block's public condition holds (blocks without one always apply)."""
    return holds(flames, seat, target, condition(block))


# A block's condition taken apart: per clause, whether it counts the player's own Flames (else
# the target's) and how many it asks for at least.
Condition = tuple[tuple[bool, int], ...]


def condition(block: Block) -> Condition:
    """A block's condition taken apart (empty when it has none)."""
    return tuple((name == "self_flames_at_least", n) for name, n in block.get("if", {}).items())


def holds(flames: list[int], seat: int, target: int | None, cond: Condition) -> bool:
    """Whether a condition taken apart holds: every clause's holder has enough Flames."""
    for own, at in cond:
        holder = seat if own else target
        if holder is None or flames[holder] < at:
            return False
    return True


def asking_blocks(kind_id: str) -> tuple[tuple[str, Block], ...]:
    """The blocks of a kind that ask the player for a choice, with the action key they fill."""
    return _BLOCKS_ASKING[kind_id]


def asking(kind_id: str) -> tuple[tuple[str, Block, Condition, bool], ...]:
    """A kind's asking blocks taken apart: action key, block, condition, whether any card."""
    return _ASKING[kind_id]


def _asking(kind: Kind) -> tuple[tuple[str, Block, Condition, bool], ...]:
    """A kind's asking blocks: action key, block, its condition taken apart, and whether the
    card it names may be any card (else a non-Flame)."""
    out = []
    for block in kind["effect"]:
        name = block["block"]
        if name == "TAKE" and block["selector"] == "choose":
            key = "take"
        elif name == "GIVE":
            key = "give"
        elif name == "BOTTOM" and block["source"] == "own_hand":
            key = "bottom"
        else:
            continue
        out.append((key, block, condition(block), block.get("selector") == "any"))
    return tuple(out)


_ASKING = MappingProxyType({kind_id: _asking(kind) for kind_id, kind in kinds().items()})
_BLOCKS_ASKING = MappingProxyType(
    {
        kind_id: tuple((key, block) for key, block, _c, _a in asks)
        for kind_id, asks in _ASKING.items()
    }
)


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
    The value lists may be shared between calls: read them, never change them.
    """
    asks: list[tuple[str, list[str]]] = []
    for key, _block, cond, anything in _ASKING[kind["id"]]:
        if cond and not holds(flames, seat, target, cond):
            continue
        if key == "bottom":
            if rest:
                asks.append((key, rest))
            continue
        other = acted_on(seat, target)
        if other is None:
            continue
        if key == "take":
            there = flames[other]
            opts = _TAKES[there > 0][counts[other] > there]
        else:
            opts = rest if anything else [c for c in rest if c not in FLAMES]
        if opts:
            asks.append((key, opts))
    return asks


# what a TAKE may take: _TAKES[the target holds a Flame][the target holds a non-Flame]
_TAKES: tuple[tuple[list[str], list[str]], ...] = (
    ([], ["non_flame"]),
    (["flame"], ["flame", "non_flame"]),
)


def targets(rule: str, seat: int, players: int) -> tuple[int | None, ...]:
    """The targets a card's rule allows, in the order the legal plays list them."""
    return _TARGETS[rule][players][seat]


_TARGETS: dict[str, dict[int, list[tuple[int | None, ...]]]] = {
    "none": {n: [(None,)] * n for n in range(2, 7)},
    "any": {n: [tuple(range(n))] * n for n in range(2, 7)},
    "other": {n: [tuple(t for t in range(n) if t != s) for s in range(n)] for n in range(2, 7)},
}


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
        other = acted_on(seat, target)
        if name in TARGETED and other is None:
            continue
        out.append(_step(block, action, flames, counts, other))
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


def run_card(st: State, seat: int, card: str, action: Action, out: Sink) -> bool:
    """Run a played card's blocks in order, each bound once to its code, telling ``out`` what
    happens; True if the deck ran out (the blocks after that are cancelled, D2)."""
    conditional, program = _PROGRAMS[card]
    target = action.get("target")
    if conditional:  # conditions are tested once, before any block runs
        flames = st["flames"]
        program = tuple(p for p in program if not p[2] or holds(flames, seat, target, p[2]))
    for run, block, _cond in program:
        if run(st, seat, target, block, action, out):
            return True
    return False


def _draw(
    st: State, seat: int, target: int | None, block: Block, action: Action, out: Sink
) -> bool:
    return moves.draw(st, seat, block["n"], out)


def _peek(
    st: State, seat: int, target: int | None, block: Block, action: Action, out: Sink
) -> bool:
    if out.keeps:  # what the player sees is all a peek does
        top = st["deck"][: -block["n"] - 1 : -1]
        out.learn(st, seat, top)
        out.event(
            st,
            {
                "type": "peeked",
                "seat": seat,
                "count": len(top),
                "private": {"seats": [seat], "cards": top},
            },
        )
    return False


def _take(
    st: State, seat: int, target: int | None, block: Block, action: Action, out: Sink
) -> bool:
    target = acted_on(seat, target)
    if target is None:
        return False
    selector = block["selector"]
    choice = action.get("take") if selector == "choose" else selector
    hand = st["hands"][target]
    if choice == "flame":
        card = next((c for c in hand if c in FLAMES), None)
    else:
        pool = [c for c in hand if c not in FLAMES]
        if len(pool) == 1 and choice == "non_flame":
            if st["version"] == 1:  # version 1 replays from the seed, so it burns the draw
                st["rng"] += 1  # the generator this pick uses, unused: one card is its only answer
            card = pool[0]
        elif pool and choice == "non_flame":
            card = moves.chance(st, "take", lambda rng: rng.choice(pool), lambda c: c in pool)
        else:
            card = None
    if card is None:
        if out.keeps:
            out.event(st, {"type": "fizzled", "seat": seat, "block": "TAKE", "target": target})
        return False
    _hand_over(st, card, target, seat, out)
    if out.keeps:
        private: Private = {"seats": [seat, target], "card": card}
        out.event(
            st,
            {
                "type": "took",
                "seat": seat,
                "target": target,
                "flame": card in FLAMES,
                "private": private,
            },
        )
    return False


def _hand_over(st: State, card: str, src: int, dst: int, out: Sink) -> None:
    """``card`` goes from ``src``'s hand to ``dst``'s: a non-Flame leaves unseen by the others
    (they forget what ``src`` holds), and ``src`` knows where it went."""
    keeps = out.keeps
    if keeps and card not in FLAMES:
        out.blur(st, src, (src, dst))
    moves.move(st, card, src, dst)
    if keeps:
        out.learn(st, src, [card])


def _give(
    st: State, seat: int, target: int | None, block: Block, action: Action, out: Sink
) -> bool:
    card = action.get("give")
    target = acted_on(seat, target)
    if target is None or card is None or card not in st["hands"][seat]:
        return False
    _hand_over(st, card, seat, target, out)
    if out.keeps:
        private: Private = {"seats": [seat, target], "card": card}
        out.event(
            st,
            {
                "type": "gave",
                "seat": seat,
                "target": target,
                "flame": card in FLAMES,
                "private": private,
            },
        )
    return False


def _look(
    st: State, seat: int, target: int | None, block: Block, action: Action, out: Sink
) -> bool:
    target = acted_on(seat, target)
    if target is None or not out.keeps:
        return False  # what the player sees is all a look does
    seen = [c for c in st["hands"][target] if c not in FLAMES]
    out.learn(st, seat, seen)
    out.event(
        st,
        {
            "type": "looked",
            "seat": seat,
            "target": target,
            "private": {"seats": [seat], "cards": seen},
        },
    )
    return False


def _bottom(
    st: State, seat: int, target: int | None, block: Block, action: Action, out: Sink
) -> bool:
    deck = st["deck"]
    if block["source"] == "deck_top":
        if deck:
            deck.insert(0, deck.pop())
            if out.keeps:
                out.event(st, {"type": "bottomed", "seat": seat, "source": "deck_top"})
        return False
    card = action.get("bottom")
    hand = st["hands"][seat]
    if card is None or card not in hand:
        return False
    keeps = out.keeps
    if card in FLAMES:
        st["flames"][seat] -= 1
    elif keeps:
        out.blur(st, seat, (seat,))
    hand.remove(card)
    deck.insert(0, card)
    if keeps:
        out.learn(st, seat, [card])
        out.event(
            st,
            {
                "type": "bottomed",
                "seat": seat,
                "source": "own_hand",
                "private": {"seats": [seat], "card": card},
            },
        )
    return False


def _reverse(
    st: State, seat: int, target: int | None, block: Block, action: Action, out: Sink
) -> bool:
    st["direction"] = -st["direction"]
    if out.keeps:
        out.event(st, {"type": "reversed", "seat": seat, "direction": st["direction"]})
    return False


def _skip(
    st: State, seat: int, target: int | None, block: Block, action: Action, out: Sink
) -> bool:
    st["skip"] = True
    if out.keeps:
        out.event(st, {"type": "skip-set", "seat": seat})
    return False


Run = Callable[[State, int, int | None, Block, Action, Sink], bool]
_BLOCKS: dict[str, Run] = {
    "DRAW": _draw,
    "PEEK": _peek,
    "TAKE": _take,
    "GIVE": _give,
    "LOOK_HAND": _look,
    "BOTTOM": _bottom,
    "REVERSE": _reverse,
    "SKIP": _skip,
}

Program = tuple[bool, tuple[tuple[Run, Block, Condition], ...]]


def program(effect: list[Block]) -> Program:
    """An effect bound to its code: whether any block has a condition, and each block's code
    and condition taken apart."""
    return any("if" in b for b in effect), tuple(
        (_BLOCKS[b["block"]], b, condition(b)) for b in effect
    )


# each card id's program, built once
_PROGRAMS = {card: program(kind["effect"]) for card, kind in moves.KIND.items()}
