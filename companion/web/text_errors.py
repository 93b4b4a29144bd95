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


# A refusal about who asks is 403; one about the moment, or a decision that stays, is 409.
RULE_STATUS = {
    "not-your-decision": 403,
    "dice-stay-rolled": 409,
    "card-stays-veiled": 409,
    "nothing-to-undo": 409,
}


def rule_status(err: Any) -> int:
    """The HTTP status the API answers a RuleError with (400 unless listed)."""
    return RULE_STATUS.get(getattr(err, "code", ""), 400)
