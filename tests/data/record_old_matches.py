"""Record Age of Summoners matches with an earlier release's own code, for the replay fixtures.

Run it with this repository's virtualenv against a source tree of the release whose rules the
matches are to be played under, taken whole from git:

    mkdir /tmp/v1 && git archive 5e064d5^ | tar -x -C /tmp/v1
    .venv/bin/python tests/data/record_old_matches.py /tmp/v1 tests/data/summoners-v1-matches.json
    mkdir /tmp/v2 && git archive a9ec3dc | tar -x -C /tmp/v2
    .venv/bin/python tests/data/record_old_matches.py /tmp/v2 tests/data/summoners-v2-matches.json

(5e064d5^ is the last commit of engine version 1, the rules of release 0.1.0; a9ec3dc plays
engine version 2.)
It imports that tree's ``companion`` (never this one's), sets up tables in a scratch SQLite
database through the release's own ``matches.create`` / ``act`` / ``rematch``, lets its bots and
its engine play every seat, and writes each table's stored events exactly as the release stored
them, with what the release's engine said of the last position (moves, chips, faith, spirits,
the result) for the replay test to compare with (``tests/test_summoners_versions.py``).
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

# (players, options, person seats' bot stand-in, moves the people make before the record stops
# (None: to the end), rematches after the end)
TABLES: list[tuple[int, dict[str, Any], str, int | None, int]] = [
    (2, {}, "heuristic", None, 0),
    (3, {}, "random", None, 0),
    (4, {}, "heuristic", None, 1),
    (2, {"catch_up": True}, "random", None, 0),
    (3, {"catch_up": False}, "heuristic", None, 0),
    (4, {"catch_up": False}, "random", None, 0),
    (2, {"catch_up": False, "start": 1}, "heuristic", 40, 0),
    (3, {}, "heuristic", 25, 0),
    (4, {"catch_up": True, "turn_cap": 6}, "random", None, 0),
    (2, {}, "random", None, 1),
    (3, {"catch_up": True}, "heuristic", None, 0),
    (4, {}, "heuristic", 60, 0),
]


def record(tree: Path, out: Path) -> None:
    """Play every table of ``TABLES`` with the code in ``tree`` and write the fixture."""
    sys.path.insert(0, str(tree))
    from companion.cardgames import get_game  # the release's own modules

    try:  # the layers of later releases
        from companion.store import db as store_db
        from companion.store import events as store
        from companion.streams import matches
    except ImportError:  # the flat package of the first release
        from companion import db as store_db  # type: ignore[no-redef]
        from companion import matches, store  # type: ignore[no-redef]

    game = get_game("age-of-summoners")
    rng = random.Random(20261203)
    tables = []
    with tempfile.TemporaryDirectory() as scratch:
        db = store_db.connect(Path(scratch) / "v1.sqlite3")
        store_db.migrate(db)
        for n, (players, options, stand_in, stop, rematches) in enumerate(TABLES):
            people = {0} if n % 2 else {0, players - 1}
            seats = [
                matches.Seat(f"P{s}", None if s in people else ("heuristic", "random")[s % 2])
                for s in range(players)
            ]
            sid, _token = matches.create(
                db, game.key, seats, "hotseat", "ja", seed=rng.randrange(2**40), options=options
            )
            plays = 0
            for number in range(rematches + 1):
                match = matches.load(db, sid)
                while match.acting_seats() and (stop is None or plays < stop):
                    seat = match.acting_seats()[0]
                    legal = game.legal_actions(match.state, seat)
                    bot = game.bots()[stand_in]
                    action = bot(game.view(match.state, seat), legal, rng)
                    match = matches.act(db, match, seat, action, match.version)
                    plays += 1
                if number < rematches:
                    matches.rematch(db, match, match.version)
            match = matches.load(db, sid)
            header = store.get_stream(db, sid)
            stored = store.load_events(db, sid, upto=header.version)
            state = match.state
            tables.append(
                {
                    "engine": game.engine_version,
                    "events": [event.data for event in stored],
                    "last": {
                        "moves": len(state["log"]),
                        "vp": [p["vp"] for p in state["seats"]],
                        "faith": [p["faith"] for p in state["seats"]],
                        "spirits": [sorted(p["spirits"]) for p in state["seats"]],
                        "turn_number": state["turn_number"],
                        "await": state["await"],
                        "result": state["result"],
                    },
                    "earlier": [h["result"] for h in match.history],
                }
            )
            print(sid, players, options, len(state["log"]), state["result"] is not None)
    lines = (json.dumps(table, ensure_ascii=False, separators=(",", ":")) for table in tables)
    out.write_text("[\n" + ",\n".join(lines) + "\n]\n", encoding="utf-8")


if __name__ == "__main__":
    record(Path(sys.argv[1]), Path(sys.argv[2]))
