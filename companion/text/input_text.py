"""The one rule for characters a text from outside may not hold, wherever it comes in.

Refused: NUL and the other C0 controls but tab, line feed and carriage return; DEL and the C1
controls (U+0080 to U+009F: invisible, and U+009B starts a terminal escape); lone surrogates
(no UTF-8 text can hold one); and the noncharacters (U+FDD0 to U+FDEF and the last two code
points of every plane, U+FFFE and U+FFFF among them), which Unicode keeps out of text. None of
these is typed by a person, XML (so EPUB) cannot hold the controls, surrogates, U+FFFE or
U+FFFF, and a stored one would make a book fail later: they are refused as they arrive (the JSON
API, every form, backups and prompt packs), with a sentence that says which and where.
Bidirectional controls and every other character are kept: pages isolate them where shown.
"""

from __future__ import annotations

import re
from typing import Any

from companion.base.errors import TemplatedError
from companion.legacy import N_

_NONCHARACTERS = "".join(
    chr(plane * 0x10000 + last) for plane in range(17) for last in (0xFFFE, 0xFFFF)
)
FORBIDDEN = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef" + _NONCHARACTERS + "]"
)
# The same rule as a JSON Schema (ECMA-262) pattern, for the OpenAPI document: a whole text of
# allowed characters. Lone surrogates are no characters a validator's regex may name (a JSON
# text decoded as Unicode cannot hold one), and ECMA-262 classes without the u flag see UTF-16
# code units: those, and the noncharacters beyond the first plane, the server refuses alone.
TEXT_PATTERN = (
    "^[^\\u0000-\\u0008\\u000B\\u000C\\u000E-\\u001F\\u007F-\\u009F\\uFDD0-\\uFDEF\\uFFFE\\uFFFF]*$"
)
REFUSED = N_(
    "The text holds a character that cannot be kept (U+%(point)s, an invisible control"
    " character or a code point that is not text) at character %(position)d. Remove it and"
    " send the text again."
)


class BadCharacterError(TemplatedError):
    """A text holds a refused character; ``message`` and ``params`` say which and where."""

    def __init__(self, code_point: int, position: int) -> None:
        super().__init__("bad-character", REFUSED, point=f"{code_point:04X}", position=position)


def first_refused(text: str) -> tuple[int, int] | None:
    """The first refused character of ``text`` as (code point, position from 1), or None."""
    found = FORBIDDEN.search(text)
    return None if found is None else (ord(found.group(0)), found.start() + 1)


def check(text: str) -> None:
    """Raise BadCharacterError if ``text`` holds a refused character."""
    found = first_refused(text)
    if found is not None:
        raise BadCharacterError(*found)


def check_all(values: Any) -> None:
    """``check`` every text among ``values`` (strings, or pairs and lists of them)."""
    for value in values:
        if isinstance(value, str):
            check(value)
        elif isinstance(value, tuple | list):
            check_all(value)
