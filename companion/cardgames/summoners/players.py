"""The Age of Summoners bots by the names tables and simulations give them. The search bot plays
out sampled worlds with the heuristic, so both bot modules sit below this one."""

from __future__ import annotations

from .bots import heuristic_bot, random_bot
from .search import search_bot

BOTS = {"random": random_bot, "heuristic": heuristic_bot, "search": search_bot}
