"""Card games record their chance: the deals, the start player, each reshuffle and a random take
are stored with the move that drew them, so a replay draws nothing and a change to how often the
code draws changes no stored match; a damaged record opens read-only; no seat ever sees them."""

from __future__ import annotations

import html
import json
import random
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from table_helpers import act, finish, load, new_table, page
from test_match_engine_versions import _assert_read_only, _events, _tamper
from test_traitors_flame_pages import seat_links

from companion.cardgames import get_game
from companion.cardgames.chance import ChanceRecordError
from companion.cardgames.traitors_flame import cards as tf_cards
from companion.store.db import connect
from companion.streams import matches

GAMES = ("traitors-flame", "age-of-summoners")
# The last version of each game whose matches draw their chance again from the seed.
SEEDED = {"traitors-flame": 1, "age-of-summoners": 3}
_Random = random.Random
# Every deal here is dealt from this seed (the bots' moves still vary with the table's id), one
# whose deals a burnt draw changes in both games (``random.shuffle`` can come out the same).
SEED = 7


@pytest.fixture(autouse=True)
def _fixed_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(matches.secrets, "randbits", lambda _bits: SEED)


@contextmanager
def no_draws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every generator the engines would make raises: whatever runs inside draws nothing."""

    class Refusing(_Random):
        def __init__(self, *args: Any) -> None:
            raise AssertionError("chance was drawn")

    with monkeypatch.context() as patch:
        patch.setattr(random, "Random", Refusing)
        yield


@contextmanager
def burnt_draw(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every generator burns one draw first: code that draws once more than it did."""

    class Burning(_Random):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            self.random()

    with monkeypatch.context() as patch:
        patch.setattr(random, "Random", Burning)
        yield


def _outcomes(app: Flask, token: str) -> list[tuple[int, str, list[dict[str, Any]]]]:
    """(seq, event type, outcomes) of every stored event that recorded chance."""
    return [
        (e["seq"], e["data"]["type"], e["data"]["chance"])
        for e in _events(app, token)
        if "chance" in e["data"]
    ]


def _played(client: FlaskClient, app: Flask, game: str) -> tuple[str, matches.Match]:
    token = new_table(client, game)
    return token, finish(app, token)


def _reloaded(app: Flask, token: str) -> matches.Match:
    matches.CACHE.clear()
    return load(app, token)


@pytest.mark.parametrize("game", GAMES)
def test_a_new_match_records_its_chance_and_replays_drawing_nothing(
    client: FlaskClient, app: Flask, monkeypatch: pytest.MonkeyPatch, game: str
) -> None:
    token, played = _played(client, app, game)
    recorded = _outcomes(app, token)
    first = recorded[0]
    assert first[:2] == (1, "match-started")
    assert [o["kind"] for o in first[2]] == (
        ["start", "deal"] if game == "traitors-flame" else ["deal", "start"]
    )
    if game == "traitors-flame":  # every later round's deal is recorded with the move that ended
        rounds = played.state["round"]
        assert sum(o["kind"] == "deal" for _, _, outs in recorded for o in outs) == rounds
    with no_draws(monkeypatch):
        replayed = _reloaded(app, token)
        moves = len(played.game.log(played.state))
        steps = [matches.state_at(replayed, step) for step in (0, moves // 2, moves)]
    assert replayed.read_only is None and replayed.state == played.state
    assert steps[-1] == played.state
    # The check can fail: the rules of the versions before drew their deal from the seed.
    with no_draws(monkeypatch), pytest.raises(AssertionError, match="chance was drawn"):
        get_game(game).new(2, 1, {}, SEEDED[game])


@pytest.mark.parametrize("game", GAMES)
def test_drawing_more_often_changes_no_stored_match(
    client: FlaskClient, app: Flask, monkeypatch: pytest.MonkeyPatch, game: str
) -> None:
    token, played = _played(client, app, game)
    engine = get_game(game)
    with burnt_draw(monkeypatch):
        replayed = _reloaded(app, token)
        # what the seed deals now, and deals under the versions that draw it again on replay
        drawn = engine.new(2, played.seed, played.options)
        old = engine.new(2, played.seed, played.options, SEEDED[game])
    assert replayed.read_only is None and replayed.state == played.state
    # The check can fail: the code draws otherwise now, so the same seed deals another match.
    dealt = engine.new(2, played.seed, played.options)
    assert engine.drawn(drawn) != engine.drawn(dealt)
    assert old != engine.new(2, played.seed, played.options, SEEDED[game])


@pytest.mark.parametrize("game", GAMES)
def test_a_rematch_records_its_deal(
    client: FlaskClient, app: Flask, monkeypatch: pytest.MonkeyPatch, game: str
) -> None:
    token, played = _played(client, app, game)
    db = connect(app.config["DATABASE"])
    again = matches.rematch(db, played, played.version)
    rematch = [e for e in _events(app, token) if e["data"]["type"] == "rematch"]
    assert len(rematch) == 1 and rematch[0]["data"]["engine"] == get_game(game).engine_version
    assert "deal" in [o["kind"] for o in rematch[0]["data"]["chance"]]
    with no_draws(monkeypatch):
        replayed = _reloaded(app, token)
    assert replayed.number == 2 and replayed.state == again.state
    assert replayed.history[0] == played.state


def test_an_old_match_replays_from_its_seed_as_before(
    client: FlaskClient, app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A match stored under version 1 records nothing and replays, and plays on, as before."""
    token = new_table(client, "traitors-flame")
    match = load(app, token)
    old = get_game("traitors-flame").new(2, match.seed, {}, 1)

    def first_release(data: dict[str, Any]) -> None:
        data["engine"] = 1
        data.pop("chance")

    # the deal as version 1 dealt it, the bot's moves (if it moved first) dropped with it
    _tamper(app, token, 1, first_release)
    db = connect(app.config["DATABASE"])
    with db.conn:
        db.execute("DELETE FROM events WHERE seq > 1")
        db.execute("UPDATE streams SET version = 1")
    matches.CACHE.clear()
    match = load(app, token)
    assert match.engine_version == 1 and match.state == old and match.read_only is None
    if match.acting_seats() and match.seats[match.acting_seats()[0]].bot is not None:
        match = matches.run_bots(db, match)
    over = finish(app, token)
    assert over.engine_version == 1 and over.game.result(over.state) is not None
    assert _outcomes(app, token) == []  # version 1 records nothing
    assert _reloaded(app, token).state == over.state


# Engine by engine ------------------------------------------------------------------------------

# Every kind of chance each game draws, met within these seeded random matches.
KINDS = {
    "traitors-flame": (3, {"start", "deal", "take"}),
    "age-of-summoners": (4, {"start", "deal", "reshuffle"}),
}


def _random_match(key: str, players: int, seed: int) -> tuple[Any, list[Any], list[list[Any]]]:
    """A seeded random match: its final state, its moves and the chance each one drew."""
    game = get_game(key)
    rng = random.Random(seed)
    state = game.new(players, seed, {})
    moves, chance = [], [game.drawn(state)]
    while game.result(state) is None:
        seat = next(s for s in range(players) if game.legal_actions(state, s))
        legal = game.legal_actions(state, seat)
        takes = [a for a in legal if a.get("take") == "non_flame"]  # random takes, more often
        action = rng.choice(takes if takes and rng.random() < 0.5 else legal)
        state = game.apply(state, seat, action)
        moves.append((seat, action))
        chance.append(game.drawn(state))
    return state, moves, chance


@pytest.mark.parametrize("key", sorted(KINDS))
def test_every_kind_of_chance_replays_drawing_nothing(
    key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    players, kinds = KINDS[key]
    game = get_game(key)
    met: set[str] = set()
    for seed in range(3):
        played, moves, chance = _random_match(key, players, seed)
        met |= {o["kind"] for outcomes in chance for o in outcomes}
        with no_draws(monkeypatch):
            state = game.new(players, seed, {}, None, chance[0])
            for (seat, action), outcomes in zip(moves, chance[1:], strict=True):
                state = game.apply(state, seat, action, outcomes)
        assert state == played
    assert met == kinds


@pytest.mark.parametrize("key", sorted(KINDS))
def test_a_reshuffle_or_take_the_rules_cannot_draw_is_refused(key: str) -> None:
    players, _kinds = KINDS[key]
    game = get_game(key)
    played, moves, chance = _random_match(key, players, 0)
    kind = "take" if key == "traitors-flame" else "reshuffle"
    at = next(i for i, outcomes in enumerate(chance) if any(o["kind"] == kind for o in outcomes))
    state = game.new(players, 0, {}, None, chance[0])
    for (seat, action), outcomes in zip(moves[: at - 1], chance[1:at], strict=True):
        state = game.apply(state, seat, action, outcomes)
    seat, action = moves[at - 1]
    good = chance[at]
    assert game.apply(state, seat, action, good) is not None  # the record as it was replays
    bad = [dict(o) for o in good]
    for outcome in bad:
        if outcome["kind"] == "take":
            outcome["value"] = "night"
        elif outcome["kind"] == "reshuffle":
            outcome["value"] = outcome["value"][1:]  # a card short
    for damaged in (bad, good[:-1], [*good, good[-1]], "reshuffle"):
        with pytest.raises(ChanceRecordError):
            game.apply(state, seat, action, damaged)


# Damaged records -----------------------------------------------------------------------------


def _first_deck(data: dict[str, Any]) -> list[str]:
    deal = next(o for o in data["chance"] if o["kind"] == "deal")["value"]
    return deal["deck"] if isinstance(deal, dict) else deal


def _flame_on_top(data: dict[str, Any]) -> None:
    deck = _first_deck(data)
    i = next(i for i, card in enumerate(deck) if card.startswith("flame-"))
    deck[i], deck[-1] = deck[-1], deck[i]


DEAL_DAMAGE: dict[str, tuple[str, Callable[[dict[str, Any]], None]]] = {
    "no chance": ("age-of-summoners", lambda data: data.pop("chance")),
    "chance as text": ("traitors-flame", lambda data: data.update(chance="deal")),
    "a deck missing a card": ("traitors-flame", lambda data: _first_deck(data).pop()),
    "a deck with a card twice": (
        "age-of-summoners",
        lambda data: _first_deck(data).__setitem__(0, _first_deck(data)[1]),
    ),
    "a Flame on top": ("traitors-flame", _flame_on_top),
    "a start seat the table lacks": (
        "age-of-summoners",
        lambda data: next(o for o in data["chance"] if o["kind"] == "start").update(value=7),
    ),
    "outcomes in another order": (
        "traitors-flame",
        lambda data: data["chance"].reverse(),
    ),
}


@pytest.mark.parametrize("damage", sorted(DEAL_DAMAGE))
def test_a_damaged_recorded_deal_opens_read_only(
    client: FlaskClient, app: Flask, damage: str
) -> None:
    game, change = DEAL_DAMAGE[damage]
    token, _played_match = _played(client, app, game)
    _tamper(app, token, 1, change)
    match = _reloaded(app, token)
    assert match.read_only == matches.DAMAGED and match.damaged_from == 0
    if damage == "a Flame on top":  # every page and post says so, as for any damaged deal
        _assert_read_only(client, app, token, "record is damaged from its deal")


def _never_drawn(data: dict[str, Any]) -> None:
    """Each recorded outcome of a move made one the rules cannot draw: a card not in play."""
    for outcome in data["chance"]:
        if outcome["kind"] == "deal":
            outcome["value"]["deck"][0] = "night"  # Night is never in the deck
        else:
            outcome["value"] = "night"  # nor in the hand a card is taken from


def test_a_damaged_recorded_move_opens_read_only_up_to_the_move_before(
    client: FlaskClient, app: Flask
) -> None:
    token, played = _played(client, app, "traitors-flame")
    moves = [e for e in _events(app, token) if e["data"]["type"] == "action"]
    drew = next(i for i, e in enumerate(moves) if "chance" in e["data"])  # a deal or a take
    quiet = next(i for i, e in enumerate(moves) if "chance" not in e["data"])
    _tamper(app, token, moves[drew]["seq"], _never_drawn)
    match = _reloaded(app, token)
    assert match.read_only == matches.DAMAGED and match.damaged_from == drew + 1
    assert match.game.log(match.state) == played.game.log(played.state)[:drew]
    _assert_read_only(client, app, token, f"record is damaged from move {drew + 1}")

    def drew_what_it_did_not(data: dict[str, Any]) -> None:
        data["chance"] = [{"kind": "take", "value": "jester-1"}]

    _tamper(app, token, moves[quiet]["seq"], drew_what_it_did_not)
    match = _reloaded(app, token)
    assert match.read_only == matches.DAMAGED
    assert match.damaged_from == min(quiet, drew) + 1


# Secrets ---------------------------------------------------------------------------------------


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def _ids(text: str) -> set[str]:
    """Traitor's Flame card ids named in a text."""
    found = re.findall(r"\b(?:flame-\d\d|[a-z]+(?:-[a-z]+)?-\d)\b", text)
    return set(found) & set(tf_cards.deck_cards())


def _told(state: dict[str, Any], seat: int | None) -> set[str]:
    """The card ids a seat may know now (None: a spectator): the played row, and for a seat its
    hand, the cards it knows the place of and what this round's events told it alone."""
    told = set(state["played"])
    if seat is not None:
        told |= set(state["hands"][seat]) | set(state["known"][seat])
        for event in state["events"][state["round_events"] :]:
            if seat in event.get("private", {}).get("seats", []):
                told |= _ids(json.dumps(event["private"]))
    return told


def test_no_view_or_page_shows_the_recorded_chance(client: FlaskClient, app: Flask) -> None:
    """The recorded chance names every card of the deck in order: no seat's view or page, nor
    the spectator's, names a card it was not told of, nor holds the record."""
    response = client.post(
        "/games/",
        data={
            "game": "traitors-flame",
            "language": "en",
            "mode": "devices",
            **{f"seat-{i}-kind": "person" for i in range(3)},
            **{f"seat-{i}-name": name for i, name in enumerate(("Ann", "Bo", "Cy"))},
        },
    )
    host = re.search(r"/t/([^/]+)/", response.headers["Location"]).group(1)  # type: ignore[union-attr]
    seats, spectator = seat_links(client, host)
    rng = random.Random(5)
    checked = own = 0
    for step in range(40):
        match = load(app, host)
        state = match.state
        recorded = _ids(json.dumps(_outcomes(app, host)))
        assert recorded >= set(state["deck"])  # the record names every card of the deck
        for seat, token in [*enumerate(seats), (None, spectator)]:
            view = match.game.view(state, seat)
            # (``pending.outcomes`` is another thing: what each legal play will do)
            assert not {"drawn", "chance", "script", "seed", "rng"} & _keys(view)
            told = _told(state, seat)
            assert _ids(json.dumps(view)) <= told, (step, seat)
            if step % 8 == 0:
                for url in (f"/t/{token}/", f"/t/{token}/?fragment=1", f"/t/{token}/replay"):
                    text = html.unescape(page(client, url))
                    assert _ids(text) <= told, (step, seat, url)
                    assert '"chance"' not in text and '"drawn"' not in text
                    checked += 1
                if seat is not None:  # the check can fail: a seat's own cards do show
                    own += len(set(state["hands"][seat]) & _ids(page(client, f"/t/{token}/")))
        current = state["night"]
        act(client, seats[current], match, rng.choice(match.game.legal_actions(state, current)))
    assert checked >= 20 and own > 0
