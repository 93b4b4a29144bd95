"""The errors the rules core raises, and the marker that makes their messages translatable."""

from __future__ import annotations

from typing import Any


def N_(message: str) -> str:
    """Mark ``message`` for extraction by Babel; the web layer translates it when it is shown."""
    return message


class RuleError(ValueError):
    """A command the rules do not allow; the state is unchanged and no event is produced.

    ``message`` is an English template with ``%(name)s`` placeholders filled from ``params``;
    ``rule`` names the rule in ``shared/rules/legacy.md`` (``"4.4"``, ``"D6"``).
    """

    def __init__(self, code: str, message: str, rule: str, **params: Any) -> None:
        self.code = code
        self.message = message
        self.rule = rule
        self.params = params
        super().__init__(message % params)

    def __str__(self) -> str:
        return self.message % self.params


class EventFormatError(ValueError):
    """A stored event that cannot be read: unknown name, newer schema, missing or bad field."""
