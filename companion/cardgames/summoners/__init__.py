"""Age of Summoners (エイジ・オブ・サモナーズ): a card game of summoning, with bots and a simulator.

``GAME`` follows the common card-game shape (docs/cardgames.md); the rules are
shared/rules/age-of-summoners.md.
"""

from __future__ import annotations

from .bots import BOTS
from .engine import SummonersGame, replay
from .events import describe

GAME = SummonersGame(BOTS)

__all__ = ["GAME", "describe", "replay"]
