"""The error a refused backup raises: a sentence naming what is wrong, translatable."""

from __future__ import annotations

from typing import Any

from ..legacy import N_

__all__ = ["N_", "BackupError", "shown"]


class BackupError(ValueError):
    """A backup file that cannot be imported; nothing was written.

    ``message`` is an English template with ``%(name)s`` placeholders filled from ``params`` (the
    web layer translates it); ``cause`` is the rules core's RuleError when the rules refused an
    event, so its own message can be translated too.
    """

    def __init__(self, code: str, message: str, cause: Exception | None = None, **params: Any):
        self.code = code
        self.message = message
        self.params = params
        self.cause = cause
        super().__init__(message % params)

    def __str__(self) -> str:
        return self.message % self.params


def shown(value: object, limit: int = 60) -> str:
    """A short, safe rendering of a value from the file for an error message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
