"""The choices a table can make before the deal: none for now (the rules have no variants).

Each option would carry ``label`` and ``help`` message ids; the board's ``option_words`` says them."""

from __future__ import annotations

from companion.cardgames import GameOption

OPTIONS: list[GameOption] = []
