"""Marks that file a card game's English templates in the message catalogue.

The rules cores have no catalogue: these return the template unchanged. ``pybabel extract``
reads them by name (its ``pgettext`` and ``N_`` keywords, see ``scripts/i18n``), and the table
translates a refusal's template when it shows it, under the game's message context first
(``companion.web.shell.text_errors.rule_message``).
"""

from __future__ import annotations


def pgettext(context: str, template: str) -> str:
    """``template`` itself, filed under the message context ``context`` (a game's key)."""
    return template


def N_(template: str) -> str:  # noqa: N802 - the name pybabel extract knows
    """``template`` itself, filed without a context: the shell's words about any card game."""
    return template
