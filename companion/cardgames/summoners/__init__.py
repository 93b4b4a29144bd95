"""Age of Summoners (エイジ・オブ・サモナーズ): a card game of summoning, with bots and a simulator.

``GAME`` implements the card-game contract (companion/cardgames, docs/cardgames.md); the rules
are shared/rules/age-of-summoners.md.
"""

from __future__ import annotations

from companion.cardgames import CardGame

from .game import SummonersGame
from .state import Action, State

GAME: CardGame[State, Action] = SummonersGame()

__all__ = ["GAME"]
