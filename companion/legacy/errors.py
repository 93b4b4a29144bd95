"""The errors the rules core raises, and the marker that makes their messages translatable."""

from __future__ import annotations

from typing import Any

from companion.base.errors import TemplatedError
from companion.base.i18n_marks import N_ as N_  # the rules' messages are filed by it


class RuleError(TemplatedError):
    """A command the rules do not allow; the state is unchanged and no event is produced.

    ``message`` is an English template with ``%(name)s`` placeholders filled from ``params``;
    ``rule`` names the rule in ``shared/rules/legacy.md`` (``"4.4"``, ``"D6"``).
    """

    def __init__(self, code: str, message: str, rule: str, **params: Any) -> None:
        self.rule = rule
        super().__init__(code, message, **params)


class EventFormatError(ValueError):
    """A stored event that cannot be read: unknown name, newer schema, missing or bad field."""
