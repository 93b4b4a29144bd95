"""逆臣の炎 (Traitor's Flame): the rules engine and its bots, behind ``GAME``.

Its words and pictures live on the web side, in ``companion.web.boards.traitors_flame``."""

from __future__ import annotations

from typing import Any

from . import engine, view
from .bots import make_bots
from .options import OPTIONS
from .standing import standings

__all__ = ["GAME", "TraitorsFlame"]


class TraitorsFlame:
    """The card game object registered as ``traitors-flame`` (see docs/cardgames.md)."""

    key = engine.KEY
    names = {"ja": "逆臣の炎", "en": "Traitor's Flame"}
    min_players = 2
    max_players = 6
    options = OPTIONS

    def __init__(self) -> None:
        self.bots: dict[str, Any] = make_bots()

    def new(self, players: int, seed: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
        """A fresh match (options: ``start`` seat, ``max_rounds`` safety cap)."""
        return engine.new(players, seed, options)

    def legal_actions(self, state: dict[str, Any], seat: int) -> list[dict[str, Any]]:
        """Every legal action of ``seat`` (empty when it is not that seat's turn)."""
        return engine.legal_actions(state, seat)

    def apply(self, state: dict[str, Any], seat: int, action: dict[str, Any]) -> dict[str, Any]:
        """The next state; raises CardGameRuleError and leaves ``state`` untouched."""
        return engine.apply(state, seat, action)

    def view(self, state: dict[str, Any], seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know (None: a spectator)."""
        return view.view(state, seat)

    def result(self, state: dict[str, Any]) -> dict[str, Any] | None:
        """None while the match runs, then the winner and totals."""
        return engine.result(state)

    def standings(self, state: dict[str, Any]) -> list[dict[str, Any]]:
        """Every seat's score as it stands now, from public facts only."""
        return standings(state)

    def replay(
        self, seed: int, players: int, options: dict[str, Any] | None, actions: list[list[Any]]
    ) -> dict[str, Any]:
        """Rebuild a match from its seed and ``[seat, action]`` log."""
        return engine.replay(seed, players, options, actions)


GAME = TraitorsFlame()
