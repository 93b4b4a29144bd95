"""A stored match read back as far as its record replays: the one place that decides whether a
table can be played, only replayed, or not opened at all.

A match recorded under an earlier engine version that the engine still plays (``versions``)
replays, and plays on, under the rules it was dealt with. A match only replays when it was
recorded under a version the engine does not play (``ENGINE_CHANGED``), when the engine now
refuses a stored move or option (``REPLAY_FAILED``), or when its record is damaged (``DAMAGED``): an event that is not JSON, a move or a deal missing what it needs, a value
of the wrong type. It then shows as far as it replays and takes no moves. Only a match whose
game or seats cannot be read, or whose seats no deal can seat, cannot be opened at all
(``UnreadableMatchError``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion import cardgames
from companion.base.languages import DEFAULT, LANGUAGES
from companion.cardgames import AnyGame, CardGameRuleError, GameState, game_keys, get_game

MODES = ("hotseat", "devices")
# The engine version of a match stored before matches recorded one (every game's first release).
FIRST_ENGINE_VERSION = 1
ENGINE_CHANGED = "engine-changed"
REPLAY_FAILED = "replay-failed"
DAMAGED = "damaged"
# What a malformed stored move or deal raises in an engine that expects well-formed input.
MALFORMED = (ValueError, TypeError, KeyError, IndexError, AttributeError)


class UnreadableMatchError(KeyError):
    """A stored match whose table cannot be read at all: its game, its seats, or any deal."""


@dataclass(frozen=True)
class Seat:
    """A seat at the table: a person's name, or a bot of some level."""

    name: str
    bot: str | None = None


@dataclass
class Replayed:
    """What a match's record gives back: the table and its current match as far as it holds."""

    key: str
    seats: list[Seat]
    mode: str
    language: str
    state: GameState = field(default_factory=dict)
    number: int = 0  # 1 for the first match at this table, 2 after a rematch...
    history: list[GameState] = field(default_factory=list)  # earlier matches' final states
    seed: int = 0  # the current deal as the state was dealt (seed 0, no options: lost)
    options: dict[str, Any] = field(default_factory=dict)
    engine_version: int = FIRST_ENGINE_VERSION
    problem: str | None = None  # None while it can be played, else why it only replays
    damaged_from: int = 0  # DAMAGED: the first move the record loses (0: the deal itself)
    moves: int = 0  # moves of the current match replayed so far
    guessed: bool = False  # the table's settings were read past a damaged or missing part
    # the current match's recorded chance: the deal's outcomes, then each move's (None: the
    # rules it replays under draw from the seed, a version the engine no longer plays)
    chance: list[list[Any] | None] = field(default_factory=list)


def replay_record(game_events: list[dict[str, Any]], cut: bool = False) -> Replayed:
    """Replay a match's stored events (``cut``: the record stops early, at a damaged event)."""
    if not game_events:
        raise UnreadableMatchError("no events")
    first = game_events[0]
    table = _table(first)
    game = get_game(table.key)
    _deal(game, table, first)
    for data in game_events[1:]:
        _take(game, table, data)
    if cut:
        _damage(table)
    if table.guessed and table.problem is None:
        table.problem = DAMAGED  # from the deal: the table itself was set up as it is read
    if table.problem is None and table.engine_version not in game.versions:
        table.problem = ENGINE_CHANGED
    return table


def _table(first: dict[str, Any]) -> Replayed:
    """The game and the seats of a ``match-started`` event; UnreadableMatchError when either
    cannot be read (a seat stored as a bare name reads as that person)."""
    key, raw = first.get("key"), first.get("seats")
    if not isinstance(key, str) or key not in game_keys() or not isinstance(raw, list):
        raise UnreadableMatchError(repr(key))
    seats = [_seat(seat) for seat in raw]
    game = get_game(key)
    if None in seats or not game.min_players <= len(seats) <= game.max_players:
        raise UnreadableMatchError(f"{key}: seats {raw!r:.80}")
    mode, language = first.get("mode"), first.get("language")
    return Replayed(
        key,
        [seat for seat in seats if seat is not None],
        mode if mode in MODES else MODES[0],
        language if language in LANGUAGES else DEFAULT,
        guessed=mode not in MODES
        or language not in LANGUAGES
        or not all(_sound(seat, game.bots()) for seat in raw),
    )


def _sound(raw: Any, bots: Any) -> bool:
    """Whether a stored seat is as the store writes one: a name, and one of the game's bot
    levels or none."""
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        return False
    return raw.get("bot") is None or (isinstance(raw.get("bot"), str) and raw["bot"] in bots)


def _seat(raw: Any) -> Seat | None:
    if isinstance(raw, str):
        return Seat(raw)
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        return None
    bot = raw.get("bot")
    return Seat(raw["name"], bot if isinstance(bot, str) else None)


def _take(game: AnyGame, table: Replayed, data: dict[str, Any]) -> None:
    """Carry out one stored event after the first: a move, or a rematch's new deal."""
    if data.get("type") == "rematch":
        table.history.append(table.state)
        _deal(game, table, data)
    elif table.problem is None:
        if data.get("type") == "action":
            _move(game, table, data)
        else:
            _damage(table)


def _move(game: AnyGame, table: Replayed, data: dict[str, Any]) -> None:
    seat, action = data.get("seat"), data.get("action")
    if type(seat) is not int or not 0 <= seat < len(table.seats) or not isinstance(action, dict):
        _damage(table)
        return
    outcomes = _outcomes(game, table, data)
    try:
        table.state = game.apply(table.state, seat, action, outcomes)
    except CardGameRuleError:
        table.problem = REPLAY_FAILED
    except MALFORMED:  # a ChanceRecordError among them: outcomes the move cannot have drawn
        _damage(table)
    else:
        table.moves += 1
        table.chance.append(outcomes)


def _outcomes(game: AnyGame, table: Replayed, data: dict[str, Any]) -> Any:
    """The chance a deal or move recorded (its ``chance``: the outcomes drawn), for the engine
    to use instead of drawing (none recorded: an empty list); None where the match's version is not one the engine plays, whose
    deal and moves are then shown as the current rules draw them from the seed."""
    if table.engine_version not in game.versions:
        return None
    return data.get("chance", [])


def _damage(table: Replayed) -> None:
    """The record is damaged from the next move on (unless it stopped replaying before)."""
    if table.problem is None:
        table.problem, table.damaged_from = DAMAGED, table.moves + 1


def _deal(game: AnyGame, table: Replayed, deal: dict[str, Any]) -> None:
    """Deal the match a ``match-started`` or ``rematch`` event records. A deal that cannot be
    dealt as recorded shows as the engine deals the same seats with no options, read-only."""
    table.number += 1
    table.moves, table.damaged_from = 0, 0
    version = deal.get("engine", FIRST_ENGINE_VERSION)
    table.engine_version = version if type(version) is int else -1
    seed = deal.get("seed") if type(deal.get("seed")) is int else None
    options = deal.get("options") or {}
    table.problem = _deal_problem(game, len(table.seats), seed, options)
    # an earlier version's deal as it dealt it; another version's as the engine deals now
    rules = table.engine_version if table.engine_version in game.versions else None
    outcomes = _outcomes(game, table, deal)
    table.chance = [outcomes]
    if table.problem is None and seed is not None:
        try:
            table.state = game.new(len(table.seats), seed, options, rules, outcomes)
            table.seed, table.options = seed, dict(options)
            return
        except CardGameRuleError:
            table.problem = REPLAY_FAILED
        except MALFORMED:
            table.problem = DAMAGED
    table.seed, table.options, table.chance = seed or 0, {}, [None]
    try:
        table.state = game.new(len(table.seats), table.seed, {})
    except (CardGameRuleError, *MALFORMED) as err:  # the seats themselves make no table
        raise UnreadableMatchError(str(err)) from err


def _deal_problem(game: AnyGame, players: int, seed: int | None, options: Any) -> str | None:
    """Why a stored deal cannot be dealt as recorded: DAMAGED, REPLAY_FAILED (an option the
    game no longer has) or None. Options are checked against the game's schema first."""
    if seed is None or not isinstance(options, dict):
        return DAMAGED
    try:
        cardgames.check_options(game, options, players)
    except CardGameRuleError as err:
        return REPLAY_FAILED if err.code == "unknown-option" else DAMAGED
    return None
