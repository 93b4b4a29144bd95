"""Build long chronicles for the benchmarks: a full life of 36 turning points, through the core."""

from __future__ import annotations

import random
from pathlib import Path

from companion.legacy import Keystone, Setup
from companion.legacy.commands import (
    AcceptFailure,
    AnswerPrompt,
    BuildMark,
    ChoosePrompt,
    DeclareStakes,
    DrawCard,
    NarrateSuccess,
    ReviseText,
    RollDice,
)
from companion.legacy.texts import iter_texts
from companion.packs.registry import get_pack
from companion.store.db import connect, init_db
from companion.streams import chronicles, matches
from companion.streams.match_replay import Seat

EN = (
    "The rain had not stopped for three days when *the letter* came, and {name} read it twice "
    "before folding it into the lining of the coat. Nobody at the harbour believed the old "
    "charts any more; the sandbars had moved, the lighthouse keeper had gone inland, and the "
    "fishing boats went out only at slack water. "
)
JA = (
    "三日降り続いた雨がようやく弱まったころ、{name}のもとに一通の手紙が届いた。"
    "港ではもう誰も古い海図を信じていない。砂州は動き、灯台守は内陸へ去り、漁船は潮止まりにしか出ない。"
)


def text(length: int, name: str, rng: random.Random) -> str:
    """About ``length`` characters of mixed English and Japanese Markdown prose."""
    parts: list[str] = []
    while sum(len(p) for p in parts) < length:
        parts.append((EN if rng.random() < 0.5 else JA).format(name=name))
    return "".join(parts)[:length]


def setup(language: str = "en") -> Setup:
    """Three players, three keystones of each kind, the standard pack."""
    keystones = tuple(
        Keystone(f"{kind[0]}{i}", kind, f"{kind.title()} {i}", "A thing held dear.")
        for kind in ("resource", "attachment", "creed")
        for i in (1, 2, 3)
    )
    return Setup(
        pioneer="Kaya Wren",
        concept="A cartographer of drowned coasts.",
        players=("Ali", "Brianna", "Cardon"),
        oldest=0,
        keystones=keystones,
        prompts=dict(get_pack("standard", language).prompts),
        language=language,
        mode="table",
    )


def full_life(
    db_path: Path, chars: int = 2000, revisions: int = 0, seed: int = 1, checks: int = 36
) -> str:
    """A chronicle of 36 turning points (six marks), ~``chars`` characters each; returns host token.

    ``checks`` below 36 stops the life early; ``revisions`` pads the log with corrections.
    """
    init_db(db_path)
    db = connect(db_path)
    rng = random.Random(seed)
    created = chronicles.create(db, setup(), rng)
    for _ in range(checks):
        chronicle = chronicles.load(db, created.id)
        chronicles.execute(db, chronicle, check_commands(chronicle.state, chars, rng))
    _revise(db, created.id, revisions, rng)
    db.conn.close()
    return created.host_token


def check_commands(state: chronicles.State, chars: int, rng: random.Random) -> list:  # type: ignore[name-defined]
    """One whole turning point: draw, answer, stakes, roll, and a success or a failure."""
    seat, dice = state.seat, state.dice
    card = state.pile_cards(state.pile)[0]
    fail = state.turn == 3 and state.stage * 3 + state.round > 6
    faces = tuple([2] * dice) if fail else (6, *([1] * (dice - 1)))
    name = state.setup.pioneer
    commands = [
        DrawCard(seat, card),
        ChoosePrompt(seat, 0),
        AnswerPrompt(seat, text(chars * 45 // 100, name, rng)),
        DeclareStakes(seat, text(chars // 10, name, rng), text(chars // 10, name, rng)),
        RollDice(seat, faces),
    ]
    narration = text(chars * 35 // 100, name, rng)
    if fail:
        commands.append(AcceptFailure(seat, narration))
    elif state.turn == 3:
        commands.append(
            BuildMark(seat, f"Mark of round {state.round}", "A lasting thing.", narration)
        )
    else:
        commands.append(NarrateSuccess(seat, narration))
    return commands


def _revise(db, stream_id: str, revisions: int, rng: random.Random) -> None:  # type: ignore[no-untyped-def]
    """Pad the log with corrections (each one event) spread over every text of the story."""
    batch = 50
    for start in range(0, revisions, batch):
        chronicle = chronicles.load(db, stream_id)
        texts = [t for t in iter_texts(chronicle.state) if t.field not in ("name",)]
        commands = [
            ReviseText(0, t.seq, t.field, f"Revised {start + i}.")
            for i in range(min(batch, revisions - start))
            for t in [texts[(start + i) % len(texts)]]
        ]
        chronicles.execute(db, chronicle, commands, rng)


def card_table(
    db_path: Path, key: str, moves: int = 12, seed: int = 1, language: str = "en"
) -> str:
    """A card table (Ann against a bot, hot-seat) some ``moves`` into its match; its host token.

    Ann's moves are chosen at random among the legal ones; the bot answers each of them."""
    init_db(db_path)
    db = connect(db_path)
    rng = random.Random(seed)
    sid, token = matches.create(
        db, key, [Seat("Ann"), Seat("Bo", "heuristic")], "hotseat", language, seed=seed, title=key
    )
    match = matches.load(db, sid)
    for _ in range(moves):
        legal = match.game.legal_actions(match.state, 0)
        if not legal or match.game.result(match.state) is not None:
            break
        match = matches.act(db, match, 0, rng.choice(legal), match.version)
    db.conn.close()
    return token
