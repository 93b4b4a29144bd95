"""Card-game matches: a game engine from the registry joined to the event store.

A match is a stream whose kind is the game's key. Its events are ``match-started`` (seats,
seed, options, the engine version), then one ``action`` per move, and ``rematch`` (seed,
options, engine version) when the same seats play again. Each also holds ``chance``, the
outcomes its deal or move drew (``GAME.drawn``; none under the engine versions that draw them
again from the seed). The engine's state is a projection: replaying the actions with their
chance rebuilds it, drawing nothing. The chance names hidden cards: it never leaves the server.

A match recorded under an earlier engine version that the engine still plays replays and plays
on under that version's rules; a rematch deals under the current ones. A match recorded under a
version the engine does not play, whose moves no longer replay (the engine refuses one), or
whose record is damaged (an event that is not JSON, a move
or a deal missing what it needs, options the game's schema refuses) opens read-only: it shows as
far as it replays, and takes no moves. Only a match whose seats cannot be read at all cannot be
opened (``UnreadableMatchError``). Matches recorded before versions were stored count as
``FIRST_ENGINE_VERSION``.
"""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlite_utils import Database

from companion import cardgames
from companion.base.errors import TemplatedError
from companion.base.languages import LANGUAGES
from companion.cardgames import AnyGame, CardGameRuleError, GameState, game_keys, get_game
from companion.legacy.errors import N_
from companion.store import capabilities
from companion.store import events as store
from companion.streams.match_replay import (
    DAMAGED,
    ENGINE_CHANGED,
    FIRST_ENGINE_VERSION,
    MODES,
    REPLAY_FAILED,
    Seat,
    UnreadableMatchError,
    replay_record,
)
from companion.text.bidi import isolate
from companion.text.bytecache import ByteLRU

__all__ = [
    "DAMAGED",
    "ENGINE_CHANGED",
    "FIRST_ENGINE_VERSION",
    "MODES",
    "REPLAY_FAILED",
    "Match",
    "Seat",
    "UnreadableMatchError",
    "act",
    "act_all",
    "create",
    "load",
    "rematch",
]

SEAT_NAME_LIMIT = 100  # characters of a seat's name (the lobby's field says as much)
MAX_BOT_MOVES = 500


class MatchSetupError(TemplatedError):
    """A table that cannot be set up as asked; ``message`` is an English template."""

    def __init__(self, message: str, **params: Any) -> None:
        super().__init__("bad-table", message, **params)


class NotAMatchError(KeyError):
    """The stream is not a card-game match (a chronicle's link opened as a table)."""


class MatchReadOnlyError(CardGameRuleError):
    """A move or a rematch asked of a match that only replays (see ``Match.read_only``)."""

    def __init__(self) -> None:
        super().__init__(
            "match-read-only",
            N_(
                "This match was recorded under other rules: it can be read and replayed, not played."
            ),
        )


@dataclass
class Match:
    """A loaded match: its settings, the engine state and the stream version."""

    id: str
    key: str
    seats: list[Seat]
    mode: str
    language: str
    state: GameState
    version: int
    number: int  # 1 for the first match at this table, 2 after a rematch...
    history: list[GameState] = field(default_factory=list)  # earlier matches' final states
    seed: int = 0  # the current match's seed, for step-by-step replays
    options: dict[str, Any] = field(default_factory=dict)  # the table's choices (game schema)
    engine_version: int = FIRST_ENGINE_VERSION  # the engine the current match was recorded under
    # None while the match can be played; else why it only replays (ENGINE_CHANGED,
    # REPLAY_FAILED, DAMAGED)
    read_only: str | None = None
    damaged_from: int = 0  # DAMAGED: the first move the record loses (0: the deal itself)
    # the current match's recorded chance: the deal's outcomes, then each move's
    chance: list[list[Any] | None] = field(default_factory=list)

    @property
    def game(self) -> AnyGame:
        return get_game(self.key)

    def names(self) -> list[str]:
        """The seats' names as boards show them: isolated (``bidi.isolate``), so a name written
        right to left never turns the board's own words around it."""
        return [isolate(seat.name) for seat in self.seats]

    def acting_seats(self) -> list[int]:
        """Seats that have a legal action now (none while the match only replays)."""
        if self.read_only is not None or self.game.result(self.state) is not None:
            return []
        return [s for s in range(len(self.seats)) if self.game.legal_actions(self.state, s)]


def check_seats(key: str, seats: list[Seat], mode: str, language: str) -> None:
    """Raise MatchSetupError when the table cannot be played."""
    if key not in game_keys():
        raise MatchSetupError(N_("Choose one of the games."))
    game = get_game(key)
    if not game.min_players <= len(seats) <= game.max_players:
        raise MatchSetupError(
            N_("This game takes %(min)d to %(max)d seats, not %(count)d."),
            min=game.min_players,
            max=game.max_players,
            count=len(seats),
        )
    if mode not in MODES or language not in LANGUAGES:
        raise MatchSetupError(N_("Choose how you play and the table's language."))
    for seat in seats:
        if seat.bot is not None and seat.bot not in game.bots():
            raise MatchSetupError(N_("Choose a bot level for every bot seat."))
        if not seat.name.strip() or len(seat.name) > SEAT_NAME_LIMIT:
            raise MatchSetupError(N_("Every seat needs a name of at most 100 characters."))
    if all(seat.bot for seat in seats):
        raise MatchSetupError(N_("At least one seat must be a person."))


def check_options(key: str, options: Mapping[str, Any], players: int) -> None:
    """Raise MatchSetupError unless every option is one of the game's, with a value it takes."""
    try:
        cardgames.check_options(get_game(key), options, players)
    except CardGameRuleError as err:
        raise MatchSetupError(err.message, **err.params) from err


def create(
    db: Database,
    key: str,
    seats: list[Seat],
    mode: str,
    language: str,
    seed: int | None = None,
    options: dict[str, Any] | None = None,
    title: str = "",
) -> tuple[str, str]:
    """Set up the table and deal the first match; returns (match id, host token).

    ``title`` names the table in lists of opened tables (the game's name, as its board says it).
    """
    check_seats(key, seats, mode, language)
    check_options(key, options or {}, len(seats))
    started = {
        "type": "match-started",
        "key": key,
        "seats": [{"name": s.name, "bot": s.bot} for s in seats],
        "mode": mode,
        "language": language,
        **_dealt(get_game(key), len(seats), seed, dict(options or {})),
    }
    sid = store.create_stream(db, key, [started], title=title or key)
    token = capabilities.issue(db, sid, "host")
    match = load(db, sid)
    run_bots(db, match)
    return sid, token


# A replayed match is charged what it takes in memory: a base and a cost per event (each move
# adds to the engine's state and log), measured with tracemalloc at 1,100 to 1,200 bytes an
# event in both games and pinned by tests/test_cache_sizes.py at several lengths and tables
# (what the engines remember between moves is their own memo's, bounded apart).
MATCH_BASE = 16 * 1024
EVENT_COST = 1300
CACHE = ByteLRU(6 * 1024 * 1024)


def match_cost(events: int) -> int:
    """What a match stream of ``events`` events is charged in the cache."""
    return MATCH_BASE + EVENT_COST * events


def load(db: Database, sid: str, header: store.Stream | None = None) -> Match:
    """Replay the match's stream (cached per version); raises UnreadableMatchError when not
    even its table can be read, NotAMatchError for a stream of another kind. ``header`` is the
    stream's header when the caller has just read it."""
    header = header if header is not None else store.get_stream(db, sid)
    if header.kind not in game_keys():
        raise NotAMatchError(sid)
    cached = CACHE.get(sid)
    if cached is not None and cached.version == header.version:
        return cached  # type: ignore[no-any-return]
    try:
        stored, damaged = store.load_events(db, sid, upto=header.version), False
    except store.DamagedEventError as err:  # read what was stored before the damage
        stored, damaged = err.readable, True
    match = match_from_events(sid, stored, header.version, damaged)
    CACHE.put(sid, match, match_cost(header.version))
    return match


def match_from_events(
    sid: str, events: list[store.StoredEvent], version: int | None = None, cut: bool = False
) -> Match:
    """Rebuild the table as far as its record replays (``cut``: the record stops early)."""
    table = replay_record([event.data for event in events], cut)
    match = Match(
        sid,
        table.key,
        table.seats,
        table.mode,
        table.language,
        table.state,
        version if version is not None else events[-1].seq,
        table.number,
        table.history,
        table.seed,
        table.options,
        table.engine_version,
        table.problem,
    )
    match.damaged_from = table.damaged_from
    match.chance = table.chance
    return match


def act(db: Database, match: Match, seat: int, action: dict[str, Any], version: int) -> Match:
    """Apply a person's action (validated by the engine), append it, then let the bots move.

    Raises CardGameRuleError (nothing stored) or StaleVersionError when someone moved first.
    """
    return act_all(db, match, seat, [action], version)


def act_all(
    db: Database, match: Match, seat: int, actions: list[dict[str, Any]], version: int
) -> Match:
    """Apply several actions of one seat in order (a batch: every card it ticked to discard),
    each validated by the engine as it comes, and append them together or not at all."""
    if match.read_only is not None:
        raise MatchReadOnlyError()
    if version != match.version:
        raise store.StaleVersionError(match.id, version, match.version)
    if match.seats[seat].bot is not None:
        raise CardGameRuleError(
            "bot-seat", N_("%(name)s is played by a bot."), name=match.seats[seat].name
        )
    state, events, drawn = match.state, [], []
    for action in actions:
        state = match.game.apply(state, seat, action)
        drawn.append(match.game.drawn(state))
        events.append(_action_event(seat, action, drawn[-1]))
    new_version = store.append(db, match.id, match.version, events)
    return run_bots(db, _moved(match, state, new_version, drawn))


def _action_event(seat: int, action: dict[str, Any], drawn: list[Any]) -> dict[str, Any]:
    event = {"type": "action", "seat": seat, "action": json.loads(json.dumps(action))}
    if drawn:  # a move that drew nothing records nothing
        event["chance"] = json.loads(json.dumps(drawn))
    return event


def _dealt(
    game: AnyGame, players: int, seed: int | None, options: dict[str, Any]
) -> dict[str, Any]:
    """What a ``match-started`` or ``rematch`` event records of a deal under the current rules:
    the seed, options, engine version, and the chance the deal drew."""
    seed = seed if seed is not None else secrets.randbits(48)
    drawn = game.drawn(game.new(players, seed, options))
    dealt = {"seed": seed, "options": options, "engine": game.engine_version}
    return dealt | ({"chance": json.loads(json.dumps(drawn))} if drawn else {})


def run_bots(db: Database, match: Match) -> Match:
    """Let bot seats move until a person must act or the match is over."""
    for _ in range(MAX_BOT_MOVES):
        acting = match.acting_seats()
        bots = [s for s in acting if match.seats[s].bot is not None]
        if not bots or any(match.seats[s].bot is None for s in acting):
            return match
        seat = bots[0]
        game = match.game
        legal = game.legal_actions(match.state, seat)
        rng = random.Random(f"{match.id}:{match.version}")
        bot = game.bots()[str(match.seats[seat].bot)]
        action = bot(game.view(match.state, seat), legal, rng)
        state = game.apply(match.state, seat, action)
        drawn = game.drawn(state)
        try:
            event = _action_event(seat, action, drawn)
            version = store.append(db, match.id, match.version, [event])
        except store.StaleVersionError:
            return load(db, match.id)  # another request is moving the bots on
        match = _moved(match, state, version, [drawn])
    return match


def rematch(db: Database, match: Match, version: int) -> Match:
    """Deal a new match for the same seats (after the current one is over)."""
    if match.read_only is not None:
        raise MatchReadOnlyError()
    if match.game.result(match.state) is None:
        raise CardGameRuleError("match-running", N_("The match is still being played."))
    dealt = _dealt(match.game, len(match.seats), None, match.options)
    store.append(db, match.id, version, [{"type": "rematch", **dealt}])
    return run_bots(db, load(db, match.id))


def _moved(match: Match, state: GameState, version: int, drawn: list[list[Any]]) -> Match:
    moved = Match(
        match.id,
        match.key,
        match.seats,
        match.mode,
        match.language,
        state,
        version,
        match.number,
        match.history,
        match.seed,
        match.options,
        match.engine_version,
        match.read_only,
        chance=match.chance + list(drawn),
    )
    before = CACHE.get(match.id)
    if before is not None and before.version == match.version:
        CACHE.put(match.id, moved, match_cost(version))
    return moved


def state_at(match: Match, step: int) -> GameState:
    """The current match's state after its first ``step`` moves (for step-by-step replays)."""
    game = match.game
    # The seed, options, rules and recorded chance the shown state was dealt with (a read-only
    # match's may be none).
    rules = match.engine_version if match.engine_version in game.versions else None
    chance = match.chance or [None]
    state: GameState = game.new(len(match.seats), match.seed, match.options, rules, chance[0])
    for i, (seat, action) in enumerate(game.log(match.state)[:step], start=1):
        state = game.apply(state, seat, action, chance[i] if i < len(chance) else None)
    return state
