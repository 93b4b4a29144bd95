"""逆臣の炎 (Traitor's Flame): the rules engine and its bots, behind ``GAME``.

Its words and pictures live on the web side, in ``companion.web.boards.traitors_flame``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from companion.cardgames import Bot, CardGame, GameOption, Result, View, rules_markdown

from . import engine, view
from .bots import heuristic_bot, random_bot
from .moves import Action, State
from .options import OPTIONS
from .search import search_bot
from .standing import standings

# The bots, by the names tables and simulations give them; the search bot plays out sampled
# worlds with the heuristic, so both modules are below this one.
BOTS = {"random": random_bot, "heuristic": heuristic_bot, "search": search_bot}

__all__ = ["GAME", "TraitorsFlame"]


class TraitorsFlame:
    """Traitor's Flame as the ``CardGame`` the registry holds (see docs/cardgames.md)."""

    key = engine.KEY
    min_players = 2
    max_players = 6
    engine_version = engine.ENGINE_VERSION
    versions: Sequence[int] = engine.VERSIONS
    options: Sequence[GameOption] = OPTIONS

    def new(
        self,
        players: int,
        seed: int,
        options: Mapping[str, Any],
        version: int | None = None,
        outcomes: Sequence[Any] | None = None,
    ) -> State:
        """A fresh match (options: ``start`` seat, ``max_rounds`` safety cap) under engine
        ``version``; ``outcomes``: the deal's recorded chance."""
        return engine.new(
            players,
            seed,
            options,
            version=engine.ENGINE_VERSION if version is None else version,
            outcomes=outcomes,
        )

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        """Every legal action of ``seat`` (empty when it is not that seat's turn)."""
        return engine.legal_actions(state, seat)

    def apply(
        self, state: State, seat: int, action: Action, outcomes: Sequence[Any] | None = None
    ) -> State:
        """The next state; raises CardGameRuleError and leaves ``state`` untouched."""
        return engine.apply(state, seat, action, outcomes)

    def drawn(self, state: State) -> list[Any]:
        """The chance outcomes the ``new`` or ``apply`` that made ``state`` drew."""
        return list(state.get("drawn", []))

    # The contract speaks of views, results, standings and reports as JSON dicts; the engine's
    # are TypedDicts (view.View, moves.Result, standing.Standing, simulate.Report).
    def view(self, state: State, seat: int | None) -> View:
        """What ``seat`` may know (None: a spectator)."""
        return cast(View, view.view(state, seat))

    def result(self, state: State) -> Result | None:
        """None while the match runs, then the winner and totals."""
        return cast(Result | None, engine.result(state))

    def log(self, state: State) -> list[tuple[int, Action]]:
        """The moves played so far."""
        return [(seat, action) for seat, action in state["log"]]

    def standings(self, state: State) -> list[dict[str, Any]]:
        """Every seat's score as it stands now, from public facts only."""
        return cast(list[dict[str, Any]], standings(state))

    def bots(self) -> Mapping[str, Bot[Action]]:
        """Random, heuristic and search bots."""
        # The bots read actions as plain dicts; each returns one of the legal actions it is given.
        return cast(Mapping[str, Bot[Action]], BOTS)

    def rules(self) -> str:
        """The rules page's Markdown, in English."""
        return rules_markdown(__package__ or "")

    def simulate(
        self,
        games: int,
        players: int,
        bots: Sequence[str],
        *,
        seed: int = 1,
        workers: int = 1,
        options: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Bot matches and the balance figures (simulate.py); one process only."""
        from .simulate import simulate

        if workers != 1:
            raise ValueError("--workers is not available for Traitor's Flame (one process only)")
        return cast(
            dict[str, Any], simulate(games, players, list(bots), seed=seed, options=options)
        )

    def report(self, summary: dict[str, Any]) -> str:
        """A simulation summary as text."""
        from .simulate import Report, format_table

        return format_table(cast(Report, summary))


GAME: CardGame[State, Action] = TraitorsFlame()
