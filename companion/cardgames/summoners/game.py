"""Age of Summoners as the ``CardGame`` the registry holds: the adapter over the engine, its
bots, its simulator and the memo it lends them."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, cast

from companion.cardgames import Bot, GameOption, rules_markdown

from .engine import ENGINE_VERSION, KEY, VERSIONS, apply, new, result
from .legal import legal_actions
from .memo import MEMO_BYTES, Memo, lent
from .options import OPTIONS
from .players import BOTS
from .scoring import standings
from .simulate import Report, format_table, simulate
from .state import MAX_PLAYERS, MIN_PLAYERS, Action, State
from .view import view


class SummonersGame:
    """Age of Summoners as the ``CardGame`` the registry holds (``GAME``).

    It owns the memo (``memo.Memo``, bounded in bytes) that every call through it lends the
    engine, its bots' calls included."""

    key = KEY
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    engine_version = ENGINE_VERSION
    versions: Sequence[int] = VERSIONS
    options: Sequence[GameOption] = OPTIONS

    def __init__(self, memo_bytes: int = MEMO_BYTES) -> None:
        self.memo = Memo(memo_bytes)
        self._bots = {name: self._lending(cast(Bot[Action], bot)) for name, bot in BOTS.items()}

    def new(
        self,
        players: int,
        seed: int,
        options: Mapping[str, Any],
        version: int | None = None,
        outcomes: Sequence[Any] | None = None,
    ) -> State:
        """A fresh match under the rules of engine ``version`` (the current one by default);
        ``outcomes``: the deal's recorded chance."""
        with lent(self.memo):
            rules = ENGINE_VERSION if version is None else version
            return new(players, seed, options, rules, outcomes)

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        """Every legal action for ``seat`` now."""
        with lent(self.memo):
            return legal_actions(state, seat)

    def apply(
        self, state: State, seat: int, action: Action, outcomes: Sequence[Any] | None = None
    ) -> State:
        """Validate and apply an action, returning a new state."""
        with lent(self.memo):
            return apply(state, seat, action, outcomes)

    def drawn(self, state: State) -> list[Any]:
        """The chance outcomes the ``new`` or ``apply`` that made ``state`` drew."""
        return list(state.get("drawn", []))

    # The contract speaks of plain dicts; the engine's are typed (view.View, records.Result).
    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know."""
        with lent(self.memo):
            return cast(dict[str, Any], view(state, seat))

    def result(self, state: State) -> dict[str, Any] | None:
        """The final result, or None while running."""
        return cast(dict[str, Any] | None, result(state))

    def log(self, state: State) -> list[tuple[int, Action]]:
        """The moves played so far."""
        return [(seat, action) for seat, action in state["log"]]

    def standings(self, state: State) -> list[dict[str, Any]]:
        """Every seat's score as it stands now, from public facts only."""
        with lent(self.memo):
            return cast(list[dict[str, Any]], standings(state))

    def bots(self) -> Mapping[str, Bot[Action]]:
        """Random, heuristic and search bots, each lent this game's memo while it thinks."""
        # The bots read actions as plain dicts; each returns one of the legal actions given.
        return self._bots

    def _lending(self, bot: Bot[Action]) -> Bot[Action]:
        memo = self.memo

        def lending(view: Any, legal: list[Action], rng: random.Random) -> Action:
            with lent(memo):
                return bot(view, legal, rng)

        lending.__name__ = lending.__qualname__ = getattr(bot, "__name__", "bot")
        lending.__doc__ = bot.__doc__
        return lending

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
        """Bot matches and the balance figures (simulate.py)."""
        report = simulate(games, players, bots, seed=seed, workers=workers, options=options)
        return cast(dict[str, Any], report)

    def report(self, summary: dict[str, Any]) -> str:
        """A simulation summary as text."""
        return format_table(cast(Report, summary))
