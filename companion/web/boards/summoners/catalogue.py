"""The catalogue lookups the board speaks through, typed (flask_babel ships no type information).

Every call spells the game's message context, "age-of-summoners", as a literal, so that
``pybabel extract`` files each message under it.
"""

from __future__ import annotations

from typing import Any

import flask_babel


def pgettext(context: str, message: str, **params: object) -> str:
    """``message`` in the reader's language, filled with ``params``."""
    return str(flask_babel.pgettext(context, message, **params))


def npgettext(context: str, singular: str, plural: str, num: int, **params: object) -> str:
    """The singular or plural form ``num`` asks for, in the reader's language."""
    return str(flask_babel.npgettext(context, singular, plural, num, **params))


def lazy_pgettext(context: str, message: str) -> Any:
    """``message``, translated each time it is turned into text (for tables built at import).

    The result is flask_babel's LazyString: it behaves as the text of the locale in use."""
    return flask_babel.lazy_pgettext(context, message)
