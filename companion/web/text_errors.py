"""Rule errors from the cores, shown in the reader's language."""

from __future__ import annotations

from typing import Any

from .wording import gettext, ngettext

# Refusals that count something: (singular, plural, the parameter that counts). The cores keep
# one English template; the count picks the right form here.
COUNTED = {
    "dice-count": (
        "This stage rolls %(num)d die: enter exactly one face.",
        "This stage rolls %(num)d dice: enter exactly %(num)d faces.",
        "dice",
    ),
}


def rule_message(err: Any) -> str:
    """Translate a RuleError's English template, then fill in its parameters."""
    template = getattr(err, "message", None) or getattr(err, "template", None) or str(err)
    params = getattr(err, "params", {}) or {}
    counted = COUNTED.get(getattr(err, "code", ""))
    try:
        if counted and isinstance(params.get(counted[2]), int):
            return ngettext(counted[0], counted[1], params[counted[2]], **params)
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
