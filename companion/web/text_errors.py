"""Rule errors from the cores, shown in the reader's language."""

from __future__ import annotations

from typing import Any

from flask_babel import gettext


def rule_message(err: Any) -> str:
    """Translate a RuleError's English template, then fill in its parameters."""
    template = getattr(err, "message", None) or getattr(err, "template", None) or str(err)
    params = getattr(err, "params", {}) or {}
    try:
        return gettext(template) % params if params else gettext(template)
    except (KeyError, TypeError, ValueError):
        return str(err)
