"""How much a person may write or send at once: each number has its home here.

Pure Python with no Flask, so the rules core, the web forms, the JSON API and its OpenAPI
document all read the same numbers (and the refusals name them).
"""

from __future__ import annotations

from typing import Final

# Characters of one text: an answer, a narration, a correction, a concept, the lines and veils.
TEXT_LIMIT: Final = 20_000
# Characters of one name: a player, the Pioneer, their people, a keystone, a mark.
NAME_LIMIT: Final = 200
# Commands one API request may carry (applied all or none).
COMMAND_BATCH_LIMIT: Final = 50
# The highest version (or other whole number) a device may send: 18 digits, inside the store's
# 64-bit integers; anything beyond is refused as unreadable before it reaches a query.
NUMBER_LIMIT: Final = 10**18 - 1
