"""Thousands of malformed or illegal posts to card tables through the real server.

Devices tables of both games, brought by seeded bot play to several states (each game's opening,
an Age of Summoners payment, hand trim and keep step, a Traitor's Flame turn with targeted plays
and a later round: ``fuzz_tables``), take a storm of bad posts to `/t/<link>/act`: text that is
not JSON, wrong types, huge strings, deep nesting, unknown action types, the acting seat's own
legal actions sent through another seat's link or a spectator's, stale and future versions,
actions of the right shape that the rules refuse at this moment, and forms with fields missing.
A smaller share goes to the rematch button, to the links sheet (links no one can hold) and to
read-only tables (a damaged record, another engine version). Every answer must be a refusal
(4xx, never a 5xx and never a move) that carries a message, and each match must be exactly as it
was: the same version, state, views and links.
"""

from __future__ import annotations

import html
import json
import os
import random
import re
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest
from server_client import Browser, Server

from attacks.fuzz_tables import (
    PLAYABLE,
    READ_ONLY,
    SidePosts,
    Table,
    dealt,
    links_in_use,
    make_read_only,
)
from companion.cardgames import CardGameRuleError
from companion.store.capabilities import resolve
from companion.store.db import connect
from companion.streams import matches

pytestmark = pytest.mark.slow  # thousands of posts through a real server

# Every tenth post is refused as a browser sees it (the whole table page with the message, about
# 60 ms of a worker on the 2-core machine); the others ask for JSON, as the API and scripts do.
POSTS = int(os.environ.get("COMPANION_TABLE_FUZZ_POSTS", "10000"))
# Of every hundred posts: moves at a read-only table, rematches, links; the rest are moves.
SIDE_SHARES = {"read_only_move": 5, "rematch": 4, "links": 3}
AS_PAGE_EVERY = 10
JSON = {"Accept": "application/json"}
THREADS = 6
# A fresh connection per post: under this load gunicorn's gthread worker can close a kept-alive
# connection whose next request is already on its way (its 2 s keep-alive clock runs while the
# worker is busy), which the client sees as a reset rather than an answer.
CLOSE = {"Connection": "close"}
GAMES = ("traitors-flame", "age-of-summoners")
FLASH = re.compile(r'<p class="flash flash-error">(.*?)</p>', re.S)
ERROR_PAGE = re.compile(r'<section class="error-page">\s*<h1>([^<]+)</h1>\s*<p>([^<]+)</p>')


@dataclass
class Post:
    """One hostile post: what it tries, through which link, to which form, with what."""

    kind: str
    path: str  # act, rematch or links
    token: str
    form: dict[str, str]


def _load(served: Server, token: str) -> matches.Match:
    db = connect(str(served.database))
    cap = resolve(db, token)
    assert cap is not None
    return matches.load(db, cap.stream_id)


def _snapshot(served: Server, browser: Browser, table: Table) -> dict[str, Any]:
    """What must not change: the version as the page polls it, the state, every view."""
    match = _load(served, table.host)
    game = match.game
    seats = [*range(len(match.seats)), None]
    return {
        "version": browser.get(f"/t/{table.host}/version").json()["version"],
        "stored": match.version,
        "state": json.dumps(match.state, sort_keys=True),
        "views": [json.dumps(game.view(match.state, s), sort_keys=True) for s in seats],
        "spectator": browser.get(f"/t/{table.reader}/?fragment=1").text,
        "links": links_in_use(served.database, table),
    }


def _illegal(game: Any, state: dict[str, Any], seat: int, action: Any) -> bool:
    """True when the rules refuse ``action`` from ``seat`` now (the server must refuse it too)."""
    try:
        game.apply(state, seat, action)
    except (CardGameRuleError, ValueError, TypeError, KeyError):
        return True
    return False


def _card_ids(state: dict[str, Any]) -> list[str]:
    """Every card id of the match, wherever it lies (real ids make refusals look legal)."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str) and re.fullmatch(r"[a-z-]+-\d+|night|dawn", value):
            found.add(value)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)

    walk({k: v for k, v in state.items() if k not in ("log", "events", "chance")})
    return sorted(found)


JUNK_TEXT = [
    "", " ", "{", "}", "[", "{'type': 'draw'}", '{"type": "draw"', "null", "true", "NaN",
    "Infinity", "-0", "1e999", '"draw"', "{type: draw}", "\x00", "\ufeff{}", "%7B%7D",
    '{"type": "draw"}}', '{"type":"draw",}', "<script>alert(1)</script>", "()", "\\",
]  # fmt: skip
WEIRD_VALUES: list[Any] = [
    None, True, False, 0, -1, 1.5, 10**30, "", " ", "x" * 300, [], {}, [1, 2], {"a": 1},
    "0", "1", "-1", "../../etc/passwd", "ナイト", "\u202e", "null", float("1e308"),
]  # fmt: skip
TYPES = [
    "draw", "play", "play-top", "summon", "act", "paid", "place", "pay", "discard", "done",
    "choose", "give", "optional", "keep", "declare", "pass", "",
]  # fmt: skip
FIELDS = ["card", "target", "take", "give", "bottom", "action", "victim", "flip", "choice",
          "kind", "pay", "zone", "use"]  # fmt: skip


class Storm:
    """Builds hostile posts for one table at its current (frozen) state."""

    def __init__(self, table: Table, match: matches.Match, rng: random.Random) -> None:
        self.table, self.rng = table, rng
        self.game = match.game
        self.state = match.state
        self.version = match.version
        self.acting = match.acting_seats()
        assert self.acting, "the match waits on nobody"
        self.legal = {s: self.game.legal_actions(self.state, s) for s in self.acting}
        self.cards = _card_ids(self.state)
        self.idle = [s for s in range(len(table.seats)) if s not in self.acting]

    def post(self) -> Post:
        kind = self.rng.choice(KINDS)
        token, form = getattr(self, kind)()
        return Post(kind, "act", token, form)

    # -- helpers ----------------------------------------------------------------------------

    def _form(self, action: str, version: int | None = None) -> dict[str, str]:
        return {"version": str(self.version if version is None else version), "action": action}

    def _acting_token(self) -> str:
        return self.table.seats[self.rng.choice(self.acting)]

    def _a_legal(self) -> tuple[int, dict[str, Any]]:
        seat = self.rng.choice(self.acting)
        return seat, dict(self.rng.choice(self.legal[seat]))

    def _refused(self, action: Any) -> bool:
        return all(_illegal(self.game, self.state, s, action) for s in self.acting)

    # -- the kinds of attack ------------------------------------------------------------------

    def invalid_json(self) -> tuple[str, dict[str, str]]:
        text = self.rng.choice(JUNK_TEXT)
        if self.rng.random() < 0.4:
            good = json.dumps(self._a_legal()[1])
            text = good[: self.rng.randrange(len(good))]  # cut short
        return self._acting_token(), self._form(text)

    def wrong_types(self) -> tuple[str, dict[str, str]]:
        _seat, action = self._a_legal()
        roll = self.rng.random()
        if roll < 0.25:  # the action itself is not an object
            value: Any = self.rng.choice([[action], "draw", 7, None, True, [], ""])
        elif roll < 0.5:  # the type is not a string
            value = {**action, "type": self.rng.choice(WEIRD_VALUES[:15])}
        else:  # a field of the wrong type
            field = self.rng.choice([k for k in action if k != "type"] or FIELDS)
            value = {**action, field: self.rng.choice(WEIRD_VALUES)}
        text = json.dumps(value)
        if not self._refused(value):
            text = json.dumps([value])
        return self._acting_token(), self._form(text)

    def huge_string(self) -> tuple[str, dict[str, str]]:
        _seat, action = self._a_legal()
        # Under the 4 MB request limit, so the rules themselves must refuse them (bodies over
        # it are test_attack_big_import's).
        size = self.rng.choice([10_000] * 20 + [100_000] * 12 + [600_000] * 4)
        field = self.rng.choice(["type", "card", "zone", "choice", "junk"])
        action[field] = self.rng.choice("xyz" if size > 100_000 else "xあ🜂") * size
        return self._acting_token(), self._form(json.dumps(action))

    def deep_nesting(self) -> tuple[str, dict[str, str]]:
        depth = self.rng.choice([65, 200, 5_000, 100_000])
        if self.rng.random() < 0.5:
            text = "[" * depth + "]" * depth
        else:
            text = '{"type": "play", "card": ' + '{"a": ' * depth + "1" + "}" * depth + "}"
        return self._acting_token(), self._form(text)

    def unknown_type(self) -> tuple[str, dict[str, str]]:
        _seat, action = self._a_legal()
        name = self.rng.choice(["nonsense", "win", "DRAW", "Draw", " draw", "__class__",
                                "constructor", "toString", "ドロー", "draw\x00", "undo"])  # fmt: skip
        return self._acting_token(), self._form(json.dumps({**action, "type": name}))

    def other_seat(self) -> tuple[str, dict[str, str]]:
        _seat, action = self._a_legal()
        if not self.idle:
            return self.reader()
        token = self.table.seats[self.rng.choice(self.idle)]
        return token, self._form(json.dumps(action))

    def reader(self) -> tuple[str, dict[str, str]]:
        _seat, action = self._a_legal()
        return self.table.reader, self._form(json.dumps(action))

    def stale_version(self) -> tuple[str, dict[str, str]]:
        seat, action = self._a_legal()
        version = self.rng.choice([self.version - 1, self.version + 1, 0, -5, 2**63, 10**40])
        return self.table.seats[seat], self._form(json.dumps(action), version)

    def illegal_now(self) -> tuple[str, dict[str, str]]:
        for _try in range(20):
            action = self._shaped()
            if self._refused(action):
                return self._acting_token(), self._form(json.dumps(action))
        return self.unknown_type()

    def _shaped(self) -> dict[str, Any]:
        """A plausible action: a type from either game with real card ids and seat numbers."""
        action: dict[str, Any] = {"type": self.rng.choice(TYPES)}
        for field in self.rng.sample(FIELDS, self.rng.randrange(0, 4)):
            action[field] = self.rng.choice(
                [
                    self.rng.choice(self.cards),
                    self.rng.randrange(-1, 6),
                    self.rng.random() < 0.5,
                    self.rng.choice(
                        [
                            "flame",
                            "non_flame",
                            "hand",
                            "mana",
                            "stones",
                            "draw",
                            "refill",
                            "vp",
                            "faith",
                            "conquest",
                            "red",
                        ]
                    ),
                    {"red": self.rng.randrange(0, 9)},
                ]  # fmt: skip
            )
        if self.rng.random() < 0.5:  # a legal action with one field moved
            _seat, base = self._a_legal()
            field = self.rng.choice([k for k in base if k != "type"] or ["card"])
            base[field] = self.rng.choice(self.cards + [99, -1, None])
            action = base
        return action

    def missing_field(self) -> tuple[str, dict[str, str]]:
        _seat, action = self._a_legal()
        roll = self.rng.random()
        if roll < 0.3:
            form = {"action": json.dumps(action)}  # no version
        elif roll < 0.6:
            form = {"version": str(self.version)}  # no action
        elif roll < 0.8:
            form = self._form(json.dumps(action), None)
            form["version"] = self.rng.choice(["", "one", "1.0", "0x10", " ", "9" * 5000])
        else:
            fields = [k for k in action if k != "type"]
            if fields:
                del action[self.rng.choice(fields)]
            else:
                del action["type"]
            if not self._refused(action):
                action = {k: v for k, v in action.items() if k != "type"}
            form = self._form(json.dumps(action))
        return self._acting_token(), form


KINDS = [
    "invalid_json", "wrong_types", "huge_string", "deep_nesting", "unknown_type", "other_seat",
    "reader", "stale_version", "illegal_now", "missing_field",
]  # fmt: skip


def _message(response: Any) -> str:
    """The sentence a refused post shows: the JSON error, the flashed error, or the error page's
    words."""
    if response.headers.get("Content-Type", "").startswith("application/json"):
        return str(response.json().get("error", "")).strip()
    found = FLASH.findall(response.text)
    if found:
        return html.unescape(found[-1]).strip()
    page = ERROR_PAGE.search(response.text)
    return html.unescape(page.group(2)).strip() if page else ""


@pytest.fixture(scope="module")
def tables(served: Server) -> tuple[list[Table], list[Table]]:
    """The playable tables, one per state, and the read-only ones."""
    playable = [dealt(served.database, *spec) for spec in PLAYABLE]
    read_only = []
    for key, players, label, goal, how in READ_ONLY:
        table = dealt(served.database, key, players, label, goal)
        make_read_only(served.database, table, how)
        read_only.append(table)
    return playable, read_only


def _storm(
    served: Server, tables: tuple[list[Table], list[Table]], rng: random.Random
) -> list[Post]:
    """The posts, in the order they are sent: mostly moves, spread over every playable state."""
    playable, read_only = tables
    storms = [Storm(t, _load(served, t.host), rng) for t in playable]
    sides = [SidePosts(t, _load(served, t.host), rng) for t in playable + read_only]
    only_replaying = sides[len(playable) :]
    posts = []
    for _ in range(POSTS):
        roll = rng.randrange(100)
        for kind, share in SIDE_SHARES.items():
            if roll < share:
                side = rng.choice(only_replaying if kind == "read_only_move" else sides)
                posts.append(Post(kind, *getattr(side, kind)()))
                break
            roll -= share
        else:
            posts.append(rng.choice(storms).post())
    return posts


def _sent(served: Server, posts: list[Post]) -> list[tuple[str, int, str]]:
    """Send every post from six browsers at once: (kind, status, message) of each answer."""
    browsers = [Browser(served.url) for _ in range(THREADS)]
    tokens = [b.csrf("/games/") for b in browsers]

    def send(i: int) -> tuple[str, int, str]:
        post, browser = posts[i], browsers[i % THREADS]
        form = {"csrf_token": tokens[i % THREADS], **post.form}
        as_page = i % AS_PAGE_EVERY == 0
        headers = CLOSE if as_page else {**CLOSE, **JSON}
        response = browser.post(f"/t/{post.token}/{post.path}", data=form, headers=headers)
        if as_page:  # a form's answer is a redirect to the page that says why
            assert response.status_code == 303, (post.kind, response.status_code)
            shown = browser.get(response.headers["Location"], headers=CLOSE)
            return post.kind, response.status_code, _message(shown)
        return post.kind, response.status_code, _message(response)

    with ThreadPoolExecutor(THREADS) as pool:
        lanes = pool.map(
            lambda lane: [send(i) for i in range(lane, len(posts), THREADS)], range(THREADS)
        )
        return [answer for lane in lanes for answer in lane]


# What each kind of post must get when a script asks for JSON: a reader's link 404 wherever it
# posts. A post as a page's form is sent back to a page that says why (303, post/redirect/get).
EXPECTED = {
    "reader": {404},
    "stale_version": {409},
    "read_only_move": {404, 409},
    "rematch": {404, 409},
    "links": {400, 404},
}


def test_a_storm_of_bad_posts_changes_nothing_and_breaks_nothing(
    served: Server, tables: tuple[list[Table], list[Table]]
) -> None:
    rng = random.Random(20261201)
    look = Browser(served.url)
    every = [*tables[0], *tables[1]]
    before = [_snapshot(served, look, t) for t in every]
    posts = _storm(served, tables, rng)
    started = time.monotonic()
    flat = _sent(served, posts)
    elapsed = time.monotonic() - started
    statuses = Counter((kind, status) for kind, status, _m in flat)
    print(f"\n{len(flat)} posts in {elapsed:.1f} s ({len(flat) / elapsed:.0f}/s): {statuses}")

    assert len(flat) == POSTS
    assert not [a for a in flat if a[1] >= 500], "the server failed"
    assert not [a for a in flat if not (400 <= a[1] < 500 or a[1] == 303)], "a post not refused"
    assert not [a for a in flat if not a[2]], "a refusal without a message"
    assert {k for k, _s in statuses} == set(KINDS) | set(SIDE_SHARES)
    for kind, allowed in EXPECTED.items():
        assert {s for k, s in statuses if k == kind} <= allowed | {303}, kind
    after = [_snapshot(served, look, t) for t in every]
    for table, old, new in zip(every, before, after, strict=True):
        assert new == old, table.label
