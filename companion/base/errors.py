"""The base of every refusal the cores raise: a code, an English template and its parameters.

Pure Python (no Flask): the legacy rules core and the card games both derive their rule errors
from it, and the web layer translates the template before filling it in.
"""

from __future__ import annotations

from typing import Any


class TemplatedError(ValueError):
    """A refusal: ``code`` names it for programs, ``message`` is an English template with
    ``%(name)s`` placeholders filled from ``params`` (the web layer translates it first)."""

    def __init__(self, code: str, message: str, **params: Any) -> None:
        self.code = code
        self.message = message
        self.params = params
        super().__init__(str(self))

    def __str__(self) -> str:
        return self.message % self.params if self.params else self.message
