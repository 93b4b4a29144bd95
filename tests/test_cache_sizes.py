"""What the in-process caches charge is what their entries take: replayed chronicles and matches
are measured with tracemalloc at several lengths and shapes, and every byte-bounded cache of a
process together stays under the 64 MiB the README promises."""

from __future__ import annotations

import gc
import random
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import make_app

from companion.cardgames import game_keys, get_game
from companion.cardgames.summoners.engine import new, step
from companion.cardgames.summoners.memo import Memo, lent
from companion.cardgames.summoners.playout import random_action
from companion.cardgames.summoners.simulate import no_cycle_collection
from companion.legacy import ReviseText, iter_texts
from companion.store import events as store
from companion.store.db import connect
from companion.streams import chronicles, matches
from companion.streams.match_replay import Seat
from companion.text.bytecache import ByteLRU

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import lifegen  # noqa: E402


def _retained(load: Callable[[], Any]) -> int:
    """The bytes still held after ``load`` ran, by what it returned and whatever it kept."""
    load()  # once first: what is made once per process (readers, hints) is not the entry's
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = load()
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert kept is not None
    return after - before


def _chronicle(tmp_path: Path, name: str, **life: Any) -> tuple[Path, str]:
    path = tmp_path / f"{name}.sqlite3"
    lifegen.full_life(path, **life)
    db = connect(path)
    sid = db.execute("SELECT id FROM streams").fetchone()[0]
    db.conn.close()
    return path, sid


def _long_corrections(tmp_path: Path, count: int) -> tuple[Path, str]:
    path, sid = _chronicle(tmp_path, "long-corrections", chars=200)
    db = connect(path)
    rng = random.Random(1)
    for n in range(count):
        chronicle = chronicles.load(db, sid)
        text = rng.choice(list(iter_texts(chronicle.state)))
        value = ("灯" if n % 2 else "w") * 20_000
        chronicles.execute(db, chronicle, [ReviseText(0, text.seq, text.field, value)])
    db.conn.close()
    return path, sid


SHAPES: dict[str, Callable[[Path], tuple[Path, str]]] = {
    "a short life": lambda tmp: _chronicle(tmp, "short", chars=600, checks=16),
    "a whole life": lambda tmp: _chronicle(tmp, "whole", chars=2000),
    "a life of long texts": lambda tmp: _chronicle(tmp, "long", chars=16_000),
    "3,000 short corrections": lambda tmp: _chronicle(tmp, "fixes", chars=600, revisions=2783),
    "40 corrections of 20,000 characters": lambda tmp: _long_corrections(tmp, 40),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_replayed_chronicle_is_charged_at_least_what_it_takes(tmp_path: Path, shape: str) -> None:
    path, sid = SHAPES[shape](tmp_path)
    db = connect(path)

    def replayed() -> Any:  # the whole log replayed: the texts are the events' own
        db.execute("DELETE FROM snapshots")
        chronicles.CACHE.clear()
        chronicle = chronicles.load(db, sid)
        list(chronicle.state.records())
        return chronicle

    def restored() -> Any:  # from a snapshot, then its log walked: the texts held twice
        db.execute("DELETE FROM snapshots")
        chronicles.CACHE.clear()
        chronicles.load(db, sid)  # keeps a snapshot of the whole chronicle
        chronicles.CACHE.clear()
        chronicle = chronicles.load(db, sid)
        list(chronicle.state.records())
        return chronicle

    taken = max(_retained(replayed), _retained(restored))
    header = store.get_stream(db, sid)
    charged = chronicles.state_cost(header.version, header.nbytes)
    assert taken <= charged <= 2 * taken, (taken, charged)


def _match(db: Any, key: str, players: int, moves: int, rematch: bool) -> str:
    seats = [Seat("Ann")] + [Seat(f"Bot {n}", "random") for n in range(players - 1)]
    sid, _token = matches.create(db, key, seats, "hotseat", "en", seed=players + moves)
    match = matches.load(db, sid)
    rng = random.Random(moves)
    for _ in range(2 if rematch else 1):
        for _ in range(moves):
            legal = match.game.legal_actions(match.state, 0)
            if not legal or match.game.result(match.state) is not None:
                break
            match = matches.act(db, match, 0, rng.choice(legal), match.version)
        if rematch and match.game.result(match.state) is not None:
            match = matches.rematch(db, match, match.version)
    return sid


@pytest.mark.parametrize("key", ["traitors-flame", "age-of-summoners"])
@pytest.mark.parametrize(
    ("players", "moves", "rematch"),
    [(2, 0, False), (2, 15, False), (4, 60, False), (4, 400, False), (2, 400, True)],
)
def test_a_replayed_match_is_charged_at_least_what_it_takes(
    tmp_path: Path, key: str, players: int, moves: int, rematch: bool
) -> None:
    db = connect(make_app(tmp_path).config["DATABASE"])
    sid = _match(db, key, players, moves, rematch)

    def load() -> Any:
        matches.CACHE.clear()
        return matches.load(db, sid)

    taken = _retained(load)
    charged = matches.match_cost(store.get_stream(db, sid).version)
    assert taken <= charged <= 2 * taken + matches.MATCH_BASE, (taken, charged)


def test_every_byte_bounded_cache_of_a_process_together_stays_under_64_mib(
    tmp_path: Path,
) -> None:
    app = make_app(tmp_path)
    app.test_client().get("/")
    # One app's caches: the module-level ones (states, matches, Markdown, packs) and the app's
    # own (pages, sessions, signed tokens); other apps the tests made have their own of these.
    ours = [cache for cache in app.extensions.values() if isinstance(cache, ByteLRU)]
    ours += [c for c in app.session_interface.__dict__.values() if isinstance(c, ByteLRU)]
    ours.append(app.extensions["companion.echo"].kept)  # the requests answered again
    # Every cache a module of the companion holds, found by walking the modules themselves (not
    # the heap, where caches other tests made and dropped may still wait for collection).
    module_level = list(
        {
            id(value): value
            for name, module in list(sys.modules.items())
            if name == "companion" or name.startswith("companion.")
            for value in vars(module).values()
            if isinstance(value, ByteLRU)
        }.values()
    )
    # the engines' memos, owned by the games the registry holds
    memos = [
        game.memo.max_bytes
        for game in (get_game(key) for key in game_keys())
        if hasattr(game, "memo")
    ]
    total = sum(c.max_bytes for c in ours) + sum(c.max_bytes for c in module_level) + sum(memos)
    assert len(ours) >= 4 and len(module_level) >= 5 and memos
    assert total <= 64 * 1024 * 1024, total


def test_the_summoners_memo_is_charged_at_least_what_it_holds() -> None:
    def load() -> Memo:
        memo = Memo(64 << 20)  # room for everything: nothing is emptied
        with lent(memo), no_cycle_collection():
            for seed in range(6):
                rng = random.Random(seed)
                s = new(2 + seed % 3, seed, {})
                while s["result"] is None:
                    seat = s["await"]["seat"]
                    step(s, seat, random_action(s, seat, rng))
        return memo

    taken = _retained(load)
    charged = load().nbytes
    assert taken <= charged <= 2 * taken, (taken, charged)
