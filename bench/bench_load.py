"""How long a chronicle takes to load cold, at about 100, 1,000 and 10,000 events, how long its
play page takes to answer cold at each, and how long its story page takes to render cold at the
longest.

A chronicle is a life padded with corrections. A cold load starts from an empty state cache
(``chronicles.CACHE.clear()``, which also resets its byte count): it reads the chronicle's
latest snapshot and the events after it. Beside it, in the same rounds (interleaved): the
replay of the whole log (what a load cost before snapshots) and, as the baseline, reading and
decoding every event row without replaying anything. The story page is rendered in process
with every cache emptied first (states, pages, Markdown).

Targets: the 10,000-event chronicle loads cold in <= 300 ms, its story page renders cold in
<= 1 s, and the cost per event stays flat from 100 to 10,000 events. The "kept" column is a
load the state cache answers (what the cache saves, against the cold column). The play page
cold (in process, the host's link, every cache emptied first: states, pages, Markdown) at
10,000 events costs at most 3 times what it costs at about 100: a long life opens at once.

    .venv/bin/python bench/bench_load.py [--repeats 9]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import lifegen  # noqa: E402

from companion.app import create_app
from companion.store import events as store
from companion.store.db import connect  # noqa: E402
from companion.streams import chronicles, replays
from companion.text import markdown as text  # noqa: E402


def build(directory: Path, events: int) -> tuple[Path, str, str]:
    """A chronicle with about ``events`` events: a life, padded with corrections."""
    path = directory / f"load-{events}.sqlite3"
    if events < 217:  # a life cut short: about six events per turning point
        token = lifegen.full_life(path, chars=600, checks=events // 6)
    else:
        token = lifegen.full_life(path, chars=600, revisions=events - 217)
    db = connect(path)
    sid = db.execute("SELECT id FROM streams").fetchone()[0]
    db.conn.close()
    return path, sid, token


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=9)
    args = parser.parse_args()
    load = os.getloadavg()
    rows = []
    pages: list[tuple[Path, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for target in (100, 1000, 10000):
            path, sid, token = build(Path(tmp), target)
            db = connect(path)
            version = store.get_stream(db, sid).version

            def cold(db=db, sid=sid) -> None:  # type: ignore[no-untyped-def]
                chronicles.CACHE.clear()
                chronicles.load(db, sid)

            def replay_all(db=db, sid=sid) -> None:  # type: ignore[no-untyped-def]
                chronicles.replay(replays.records(store.load_events(db, sid)))

            def read(db=db, sid=sid) -> None:  # type: ignore[no-untyped-def]
                replays.records(store.load_events(db, sid))

            def kept(db=db, sid=sid) -> None:  # type: ignore[no-untyped-def]
                chronicles.load(db, sid)  # the state cache holds it at this version

            samples: dict[str, list[float]] = {"cold": [], "replay": [], "read": [], "kept": []}
            for _ in range(args.repeats):
                samples["read"].append(timed(read))
                samples["cold"].append(timed(cold))
                samples["kept"].append(timed(kept))
                samples["replay"].append(timed(replay_all))
            rows.append((version, {k: statistics.median(v) for k, v in samples.items()}))
            db.conn.close()
            pages.append((path, token))
        plays = plays_cold(pages, args.repeats)
        for (_version, medians), play in zip(rows, plays, strict=True):
            medians["play"] = play
        story_ms = page_cold(*pages[-1], "/story", args.repeats)
    report(rows, story_ms)
    print(
        f"load average at the start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; at the end: "
        + " ".join(f"{x:.2f}" for x in os.getloadavg())
        + f" ({os.cpu_count()} cores)"
    )


def page_cold(path: Path, token: str, page: str, repeats: int) -> float:
    """A page of the chronicle at ``path`` (``/`` or ``/story``), answered with every cache
    empty (ms)."""
    return statistics.median(cold_pages([(path, token)], page, repeats)[0])


def plays_cold(pages: list[tuple[Path, str]], repeats: int) -> list[float]:
    """The play page of each chronicle, answered cold; the sizes in turn within each round,
    so a load that comes and goes weighs on them alike (median ms of each)."""
    return [statistics.median(times) for times in cold_pages(pages, "/", repeats * 3)]


def cold_pages(pages: list[tuple[Path, str]], page: str, repeats: int) -> list[list[float]]:
    """Each chronicle's ``page`` answered with every cache empty, ``repeats`` times (ms)."""
    apps = []
    for path, token in pages:
        app = create_app({"DATABASE": str(path), "SECRET_KEY": "bench", "TESTING": False})
        client = app.test_client()
        assert client.get(f"/c/{token}{page}").status_code == 200  # templates compiled once
        apps.append((app, client, token))
    times: list[list[float]] = [[] for _ in pages]
    for _ in range(repeats):
        for n, (app, client, token) in enumerate(apps):

            def render(app: Any = app, client: Any = client, token: str = token) -> None:
                chronicles.CACHE.clear()
                emptied(app)
                text._cache.clear()  # the Markdown cache
                assert client.get(f"/c/{token}{page}").status_code == 200

            times[n].append(timed(render))
    return times


def emptied(app: Any) -> None:
    """Every page the app keeps let go of: its own render cache and the one its workers share."""
    app.extensions["companion.render_cache"].clear()
    shared = app.extensions.get("companion.shared_renders")
    if shared is not None:
        shared.clear()


def report(rows: list[tuple[int, dict[str, float]]], story_ms: float) -> None:
    print("cold load: snapshot + events after it; replay: the whole log; read (the baseline):")
    print("every row read and decoded, nothing replayed; kept: the state cache's own answer")
    print(
        f"{'events':>7} {'cold ms':>8} {'us/event':>9} {'replay ms':>10} {'read ms':>8}"
        f" {'cold/read':>10} {'replay/cold':>12} {'kept ms':>8} {'play cold ms':>13}"
    )
    for version, ms in rows:
        print(
            f"{version:>7} {ms['cold']:>8.1f} {1000 * ms['cold'] / version:>9.1f}"
            f" {ms['replay']:>10.1f} {ms['read']:>8.1f} {ms['cold'] / ms['read']:>10.2f}"
            f" {ms['replay'] / ms['cold']:>12.1f} {ms['kept']:>8.2f} {ms['play']:>13.1f}"
        )
    first, last = rows[0], rows[-1]
    growth = (last[1]["cold"] / last[0]) / (first[1]["cold"] / first[0])
    print(f"per-event cost at {last[0]} events / at {first[0]}: {growth:.2f} (target: flat, <= 1)")
    print(f"{last[0]} events cold: {last[1]['cold']:.0f} ms (target <= 300)")
    print(f"story page of {last[0]} events, every cache empty: {story_ms:.0f} ms (target <= 1000)")
    play = last[1]["play"] / first[1]["play"]
    print(
        f"play page cold at {last[0]} events / at {first[0]}: {play:.2f}"
        f" ({last[1]['play']:.1f} / {first[1]['play']:.1f} ms; target <= 3)"
    )


if __name__ == "__main__":
    main()
