"""How long loading a chronicle takes (replaying its whole log), at 100, 1,000 and 10,000 events.

Each load starts from an empty state cache, so every event is read from SQLite and replayed.
Next to it, in the same run: only reading and decoding the same rows (no replay), as a baseline.

    .venv/bin/python bench/bench_load.py [--repeats 15]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import lifegen  # noqa: E402

from companion import chronicles, store  # noqa: E402
from companion.db import connect  # noqa: E402


def build(directory: Path, events: int) -> tuple[Path, str]:
    """A chronicle with about ``events`` events: a life, padded with corrections."""
    path = directory / f"load-{events}.sqlite3"
    if events < 217:  # a life cut short: about six events per turning point
        lifegen.full_life(path, chars=600, checks=events // 6)
    else:
        lifegen.full_life(path, chars=600, revisions=events - 217)
    db = connect(path)
    sid = db.execute("SELECT id FROM streams").fetchone()[0]
    db.conn.close()
    return path, sid


def median_ms(fn, repeats: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for target in (100, 1000, 10000):
            path, sid = build(Path(tmp), target)
            db = connect(path)
            version = store.get_stream(db, sid).version

            def load(db=db, sid=sid) -> None:  # type: ignore[no-untyped-def]
                chronicles.CACHE._items.clear()
                chronicles.load(db, sid)

            def read(db=db, sid=sid) -> None:  # type: ignore[no-untyped-def]
                store.load_events(db, sid)

            rows.append((version, median_ms(load, args.repeats), median_ms(read, args.repeats)))
    print(f"{'events':>8} {'load (median ms)':>17} {'read only (ms)':>15} {'load/read':>10}")
    for version, load_ms, read_ms in rows:
        print(f"{version:>8} {load_ms:>17.2f} {read_ms:>15.2f} {load_ms / read_ms:>10.1f}")
    base = rows[0][1]
    growth = ", ".join(f"{v} events: {t / base:.1f}x" for v, t, _ in rows)
    print(f"growth against the {rows[0][0]}-event load: {growth}")
    cached = rows[1]
    print(
        f"(a page view reuses the cached state and replays only new events; {cached[0]} events cold: {cached[1]:.1f} ms)"
    )


if __name__ == "__main__":
    main()
