"""Card-game tables: the lobby, a table's page as one viewer sees it, its choices as steps, and a
game's rules page (``bp``, from ``pages``). Each game's pictures and words are in
``companion.web.boards``.
"""

from __future__ import annotations

from companion.web.tables.pages import bp

__all__ = ["bp"]
