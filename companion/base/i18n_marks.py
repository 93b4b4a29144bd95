"""The i18n markers that file an English template in the message catalogue (not a legacy mark).

The rules cores have no catalogue: these return the template unchanged. ``pybabel extract``
reads them by name (its ``pgettext`` and ``N_`` keywords, see ``scripts/i18n``), and the web
layer translates a template when it shows it; a card game's refusal under the game's message
context first (``companion.web.shell.text_errors.rule_message``).
"""

from __future__ import annotations


def pgettext(context: str, template: str) -> str:
    """``template`` itself, filed under the message context ``context`` (a game's key)."""
    return template


def N_(template: str) -> str:  # noqa: N802 - the name pybabel extract knows
    """``template`` itself, filed without a context."""
    return template
