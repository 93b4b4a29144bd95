"""The search bot: determinised sampling over the view, never the hidden state.

Each sample deals the cards the seat cannot see at random, consistently with everything the view
shows (hand sizes, Flame counts, whether the deck top is a Flame, known cards and deck positions).
The few most promising actions are each played on the same samples and rolled out with the
heuristic to the end of the round; the best mean standing wins. The work is bounded by a count
of rollouts, never by a clock, so a seeded match plays the same on any machine.
"""

from __future__ import annotations

import random

from . import engine
from .bots import CHARACTER_IDS, DRAW, WIN, Model, decide
from .moves import FLAMES, KIND, Action, State
from .view import Observation, View, observe, observe_view

Obs = Observation
ClassKey = tuple[str, str | None, int | None, str | None, str | None, str | None]

# Rollouts per decision, shared by the candidates: about 30 a candidate. More rollouts make
# the bot stronger against the heuristic (docs/cardgames.md gives the measured figures, with the
# command that measures them, and the time a decision takes).
ROLLOUTS = 200
TOP = 6
MAX_SAMPLES = 400
MIN_SAMPLES = 2
MAX_TURNS = 400


def search_bot(
    view: View, legal: list[Action], rng: random.Random, rollouts: int = ROLLOUTS
) -> Action:
    """The action with the best mean rollout standing over sampled worlds.

    About ``rollouts`` rollouts in all: every shortlisted action is tried on the same samples,
    at least ``MIN_SAMPLES`` of them."""
    obs = observe_view(view)
    ranked = _shortlist(obs, legal, rng)
    if len(ranked) == 1:
        return ranked[0]
    sums = [0.0] * len(ranked)
    for _ in range(min(MAX_SAMPLES, max(MIN_SAMPLES, rollouts // len(ranked)))):
        world = sample_world(obs, rng)
        seed = rng.randrange(2**31)
        row = [rollout(world, obs["me"], action, seed) for action in ranked]
        sums = [a + b for a, b in zip(sums, row, strict=True)]
    best = max(range(len(ranked)), key=lambda i: sums[i])
    return ranked[best]


def _shortlist(obs: Obs, legal: list[Action], rng: random.Random) -> list[Action]:
    """One action per class of equivalent actions, the heuristic's favourites first."""
    classes: dict[ClassKey, Action] = {}
    for action in legal:
        classes.setdefault(_class_key(action), action)
    model = Model(obs)
    scored = []
    for action in classes.values():
        if action["type"] == "draw":
            value = model.value([], None) + 0.5  # keep drawing in view
        else:
            value = model.value(KIND[action["card"]]["effect"], action)
        scored.append((value + rng.random() * 1e-6, action))
    scored.sort(key=lambda p: -p[0])
    ranked = [a for _, a in scored[:TOP]]
    if DRAW not in ranked:
        ranked[-1] = DRAW
    return ranked


def _class_key(action: Action) -> ClassKey:
    def kind(card: str | None) -> str | None:
        return None if card is None else "flame" if card in FLAMES else KIND[card]["id"]

    return (
        action["type"],
        kind(action.get("card")),
        action.get("target"),
        action.get("take"),
        kind(action.get("give")),
        kind(action.get("bottom")),
    )


def rollout(world: State, me: int, action: Action, seed: int) -> float:
    """Play ``action`` on a copy of ``world`` and the heuristic after it, to the round's end."""
    st = engine.copy_state(world)
    gen = random.Random(seed)
    start_round = st["round"]
    engine.step(st, me, action)
    turns = 0
    while st["result"] is None and st["round"] == start_round and turns < MAX_TURNS:
        seat = st["night"]
        engine.step(st, seat, decide(observe(st, seat), gen))
        turns += 1
    totals = st["totals"]
    others = [t for s, t in enumerate(totals) if s != me]
    standing = totals[me] - (0.6 * max(others) + 0.4 * sum(others) / len(others))
    result = st["result"]
    if result is None:
        return float(standing)
    return float(standing) + (WIN if result["winner"] == me else -WIN)


def sample_world(obs: Obs, rng: random.Random) -> State:
    """A full quiet state consistent with the observation: unseen cards dealt at random."""
    me, n = obs["me"], obs["n"]
    seen = set(obs["hand"]) | set(obs["played"]) | set(obs["deck_known"].values())
    for ids in obs["known"].values():
        seen.update(ids)
    others_nf = [c for c in CHARACTER_IDS if c not in seen]
    flames = sorted(c for c in FLAMES if c not in seen)
    rng.shuffle(others_nf)
    hands = []
    for s in range(n):
        if s == me:
            hands.append(list(obs["hand"]))
            continue
        hand = list(obs["known"].get(s, []))
        hand += [others_nf.pop() for _ in range(obs["counts"][s] - obs["flames"][s] - len(hand))]
        hand += [flames.pop() for _ in range(obs["flames"][s])]
        hands.append(hand)
    slots: list[str | None] = [None] * obs["deck"]
    for pos, card in obs["deck_known"].items():
        slots[pos] = card
    if slots and slots[0] is None:
        slots[0] = flames.pop() if obs["top_flame"] else others_nf.pop()
    rest = others_nf + flames
    rng.shuffle(rest)
    deck = [c if c is not None else rest.pop() for c in slots]
    deck.reverse()
    return {
        "game": engine.KEY,
        "version": 1,
        "players": n,
        "seed": rng.randrange(2**31),
        "options": {},
        "quiet": True,
        "rng": 0,
        "round": obs["round"],
        "turn": 0,
        "first": 0,
        "start": 0,
        "direction": obs["direction"],
        "night": me,
        "dawn": obs["dawn"],
        "skip": False,
        "deck": deck,
        "hands": hands,
        "flames": list(obs["flames"]),
        "played": list(obs["played"]),
        "known": [[] for _ in range(n)],
        "totals": list(obs["totals"]),
        "rounds": [],
        "log": [],
        "events": [],
        "round_events": 0,
        "result": None,
    }
