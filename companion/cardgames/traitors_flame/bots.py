"""Bots for Traitor's Flame. Each is ``f(view, legal_actions, rng) -> action`` and sees a view only.

- ``random``: a uniformly random legal action.
- ``heuristic``: scores drawing and one candidate per (kind, target, choice) by acting the blocks
  out on a small public-information model of the table, then picks the best.
- ``search``: determinised sampling (see ``search.py``).

``decide(obs, rng)`` is the heuristic on the compact observation of ``view.observe``; the same
observation comes from a view (``observe_view``) or, in fast simulations, from the state without
reading anything the seat may not know (tests hold the two equal).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import TypedDict, cast

from . import cards
from .cards import Block, Kind
from .effects import acted_on, choices, condition_holds
from .moves import FLAMES, KIND, VALUE, Action
from .view import Observation, View, observe_view

Obs = Observation
Bot = Callable[[View, list[Action], random.Random], Action]


class Pos(TypedDict):
    """The model's table while it acts a play out: Flames and expected non-Flame values per hand,
    the direction, a pending skip, the deck (size, Flames, the chance its top is one), a bonus."""

    flames: list[int]
    nf: list[float]
    dir: int
    skip: bool
    deck: int
    df: int
    top: float
    bonus: float


WIN = 60.0
DRAW: Action = {"type": "draw"}
CHARACTER_IDS = tuple(c for c in cards.all_cards() if KIND[c]["colour"])
NIGHT = cards.kinds()["night"]["value"]
DAWN = cards.kinds()["dawn"]["value"]


def random_bot(view: View, legal: list[Action], rng: random.Random) -> Action:
    """Any legal action, uniformly."""
    return rng.choice(legal)


def heuristic_bot(view: View, legal: list[Action], rng: random.Random) -> Action:
    """The heuristic's choice for the viewing seat (drawing if it ever proposed an illegal one)."""
    action = decide(observe_view(view), rng)
    return action if action in legal else DRAW


def decide(obs: Obs, rng: random.Random, never: Iterable[str] = ()) -> Action:
    """The heuristic's action: the best-valued of drawing and each candidate play."""
    model = Model(obs)
    best, best_value = DRAW, model.value([], None) + rng.random() * 1e-3
    tried = set(never)
    for card in obs["hand"]:
        kind = KIND[card]
        if not kind["usable"] or kind["id"] in tried:
            continue
        tried.add(kind["id"])
        for action in model.candidates(card, kind):
            value = model.value(kind["effect"], action) + rng.random() * 1e-3
            if value > best_value:
                best, best_value = action, value
    return best


class Model:
    """A public-information model of the table: Flames, expected hand values, deck, totals."""

    def __init__(self, obs: Obs) -> None:
        self.obs = obs
        self.me, self.n = obs["me"], obs["n"]
        seen = set(obs["hand"]) | set(obs["played"]) | set(obs["deck_known"].values())
        for ids in obs["known"].values():
            seen.update(ids)
        pool = [VALUE[c] for c in CHARACTER_IDS if c not in seen]
        self.mean = sum(pool) / len(pool) if pool else 0.0
        self.nf = [self._hand_value(s) for s in range(self.n)]
        self.deck_flames = cards.FLAME_TOTAL - sum(obs["flames"])

    def _hand_value(self, s: int) -> float:
        obs = self.obs
        if s == self.me:
            return float(sum(VALUE[c] for c in obs["hand"] if c not in FLAMES))
        known = obs["known"].get(s, [])
        unknown = obs["counts"][s] - obs["flames"][s] - len(known)
        return float(sum(VALUE[c] for c in known) + unknown * self.mean)

    def candidates(self, card: str, kind: Kind) -> list[Action]:
        """One play per target and Flame choice; gives and burials pick the worst card."""
        obs, me = self.obs, self.me
        rule = kind["target_rule"]
        targets: list[int | None] = (
            [None] if rule == "none" else [s for s in range(self.n) if rule == "any" or s != me]
        )
        rest = [c for c in obs["hand"] if c != card]
        out: list[Action] = []
        for target in targets:
            base: Action = {"type": "play", "card": card}
            if target is not None:
                base["target"] = target
            variants = [base]
            for key, opts in choices(obs["flames"], obs["counts"], me, target, kind, rest):
                if key == "take":
                    variants = [_with(v, key, o) for v in variants for o in opts]
                else:
                    worst = min(opts, key=lambda c: (VALUE[c], c))
                    variants = [_with(v, key, worst) for v in variants]
            out.extend(variants)
        return out

    def value(self, effect: list[Block], action: Action | None) -> float:
        """Expected standing after acting the blocks out (``action`` None: a plain draw)."""
        obs, me = self.obs, self.me
        pos: Pos = {
            "flames": list(obs["flames"]),
            "nf": list(self.nf),
            "dir": obs["direction"],
            "skip": False,
            "deck": obs["deck"],
            "df": self.deck_flames,
            "top": 1.0 if obs["top_flame"] else 0.0,
            "bonus": 0.0,
        }
        if action is None:
            return self._run(pos, [{"block": "DRAW", "n": 1}], None)
        card = action["card"]
        pos["nf"][me] -= VALUE[card]
        target = action.get("target")
        active = [b for b in effect if condition_holds(obs["flames"], me, target, b)]
        return self._run(pos, active, action)

    def _run(self, pos: Pos, blocks: list[Block], action: Action | None) -> float:
        for i, block in enumerate(blocks):
            name = block["block"]
            if name == "DRAW":
                return self._draw(pos, block["n"], blocks[i + 1 :], action)
            _ACT[name](self, pos, block, action or DRAW)
        return self._hand_off(pos)

    def _draw(self, pos: Pos, n: int, rest: list[Block], action: Action | None) -> float:
        if n == 0:
            return self._run(pos, rest, action)
        if pos["deck"] <= 0:
            return self._end(pos, self.me, None)
        total = 0.0
        for flame, p in ((True, pos["top"]), (False, 1.0 - pos["top"])):
            if p <= 0:
                continue
            nxt: Pos = {**pos, "flames": list(pos["flames"]), "nf": list(pos["nf"])}
            nxt["deck"] -= 1
            if flame:
                nxt["flames"][self.me] += 1
                nxt["df"] -= 1
            else:
                nxt["nf"][self.me] += self.mean + 0.25
            nxt["top"] = nxt["df"] / nxt["deck"] if nxt["deck"] else 0.0
            if nxt["deck"] == 0:
                total += p * self._end(nxt, self.me, None)
            else:
                total += p * self._draw(nxt, n - 1, rest, action)
        return total

    def _hand_off(self, pos: Pos) -> float:
        me, n = self.me, self.n
        nxt = (me + pos["dir"] * (2 if pos["skip"] else 1)) % n
        if pos["flames"][nxt] >= 3:
            return self._end(pos, nxt, me)
        est = self._estimates(pos, nxt, me)
        est[nxt] += 3.0 * pos["top"] * 0.5
        return self._standing([t + e for t, e in zip(self.obs["totals"], est, strict=True)])

    def _estimates(self, pos: Pos, night: int, dawn: int | None) -> list[float]:
        return [
            3 * f + v + (NIGHT if s == night else 0) + (DAWN if s == dawn else 0)
            for s, (f, v) in enumerate(zip(pos["flames"], pos["nf"], strict=True))
        ]

    def _end(self, pos: Pos, ender: int, dawn: int | None) -> float:
        night = ender
        if dawn is None:
            dawn = self.obs["dawn"]
        totals = [
            t + max(0.0, e)
            for t, e in zip(self.obs["totals"], self._estimates(pos, night, dawn), strict=True)
        ]
        best = max(totals)
        if best >= 20:
            order = [(ender + pos["dir"] * k) % self.n for k in range(1, self.n + 1)]
            winner = next(s for s in order if totals[s] == best)
            bonus = WIN if winner == self.me else -WIN
            return bonus + self._standing(totals) + pos["bonus"]
        return self._standing(totals) + pos["bonus"]

    def _standing(self, totals: list[float]) -> float:
        others = [t for s, t in enumerate(totals) if s != self.me]
        agg = others[0] if len(others) == 1 else 0.6 * max(others) + 0.4 * sum(others) / len(others)
        return totals[self.me] - agg

    def _random_nf(self, s: int) -> float:
        count = self.obs["counts"][s] - self.obs["flames"][s]
        return self.nf[s] / count if count else 0.0


def _peek(m: Model, pos: Pos, block: Block, action: Action) -> None:
    pos["bonus"] += 0.05


def _take(m: Model, pos: Pos, block: Block, action: Action) -> None:
    target = acted_on(m.me, action.get("target"))
    choice = action.get("take") if block["selector"] == "choose" else block["selector"]
    if target is None or choice is None:
        return
    if choice == "flame" and pos["flames"][target]:
        pos["flames"][target] -= 1
        pos["flames"][m.me] += 1
    elif choice == "non_flame" and m.obs["counts"][target] > m.obs["flames"][target]:
        v = m._random_nf(target)
        pos["nf"][target] -= v
        pos["nf"][m.me] += v


def _give(m: Model, pos: Pos, block: Block, action: Action) -> None:
    target, card = acted_on(m.me, action.get("target")), action.get("give")
    if target is None or card is None:
        return
    if card in FLAMES:
        pos["flames"][m.me] -= 1
        pos["flames"][target] += 1
    else:
        pos["nf"][m.me] -= VALUE[card]
        pos["nf"][target] += VALUE[card]


def _look(m: Model, pos: Pos, block: Block, action: Action) -> None:
    pos["bonus"] += 0.05


def _bottom(m: Model, pos: Pos, block: Block, action: Action) -> None:
    if block["source"] == "deck_top":
        if pos["top"] >= 1.0:
            pos["df"] -= 1  # a Flame buried at the bottom is as good as gone this round
        pos["top"] = pos["df"] / max(1, pos["deck"] - 1)
        return
    card = action.get("bottom")
    if card is None:
        return
    if card in FLAMES:
        pos["flames"][m.me] -= 1
    else:
        pos["nf"][m.me] -= VALUE[card]
    pos["deck"] += 1


def _reverse(m: Model, pos: Pos, block: Block, action: Action) -> None:
    pos["dir"] = -pos["dir"]


def _skip(m: Model, pos: Pos, block: Block, action: Action) -> None:
    pos["skip"] = True


_ACT: dict[str, Callable[[Model, Pos, Block, Action], None]] = {
    "PEEK": _peek,
    "TAKE": _take,
    "GIVE": _give,
    "LOOK_HAND": _look,
    "BOTTOM": _bottom,
    "REVERSE": _reverse,
    "SKIP": _skip,
}


def _with(action: Action, key: str, value: str) -> Action:
    """``action`` with one more choice filled in (``take``, ``give`` or ``bottom``)."""
    return cast(Action, {**action, key: value})
