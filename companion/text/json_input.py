"""JSON from outside (request bodies, form fields, backup files), refused when it cannot be stored.

Python's parser raises RecursionError on deep nesting and accepts lone surrogates (``"\\ud800"``),
which no UTF-8 text (nor SQLite) can hold, and every character ``companion.text.input_text`` refuses
(``"\\u0000"``); each becomes a JsonInputError with a plain sentence. ``values_over`` counts a
document's keys and values before anything parses it: a parse holds its whole process.
"""

from __future__ import annotations

import json
import re
from typing import Any

from companion.base.errors import TemplatedError
from companion.legacy import N_
from companion.text import input_text

MAX_DEPTH = 64


class JsonInputError(TemplatedError):
    """JSON that parses but cannot be used: nested too deep, or a text that is not Unicode."""


TOO_DEEP = N_("The JSON is nested too deeply: at most %(limit)d levels are accepted.")
NOT_UNICODE = N_(
    "The JSON holds a text that is not valid Unicode (a lone surrogate such as \\ud800)."
)


def loads(data: str | bytes, max_depth: int = MAX_DEPTH, **options: Any) -> Any:
    """Parse JSON ``data`` and check it; ValueError if it is not JSON, JsonInputError if unusable."""
    try:
        value = json.loads(data, **options)
    except RecursionError:
        raise JsonInputError("too-deep", TOO_DEEP, limit=max_depth) from None
    check(value, max_depth)
    return value


def check(value: Any, max_depth: int = MAX_DEPTH) -> None:
    """Raise JsonInputError if ``value`` nests deeper than ``max_depth`` or holds a lone surrogate."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            _check_text(item)
        elif isinstance(item, (list, dict)):
            if depth >= max_depth:
                raise JsonInputError("too-deep", TOO_DEEP, limit=max_depth)
            if isinstance(item, dict):
                stack.extend((key, depth) for key in item)
                item = item.values()
            stack.extend((child, depth + 1) for child in item)


def _check_text(text: str) -> None:
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise JsonInputError("bad-unicode", NOT_UNICODE) from None
    try:
        input_text.check(text)
    except input_text.BadCharacterError as err:
        raise JsonInputError(err.code, err.message, **err.params) from None


# The characters before each key or value of JSON but the first: what a count of them bounds.
STRUCTURE = b"[{,:"
# A JSON text, quotes included (its escapes skipped whole); possessive, so linear.
JSON_TEXT = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"')


def structure_marks(data: bytes) -> int:
    """How many of ``[ { , :`` ``data`` holds (one pass in C)."""
    return len(data) - len(data.translate(None, STRUCTURE))


def values_over(data: bytes, limit: int) -> bool:
    """Whether the JSON ``data`` holds more than ``limit`` keys and values, told without
    parsing it: in time linear in its bytes, and in bounded time however it is made.

    Each key and value but the first follows one of ``[ { , :`` outside a text, so their
    count bounds it. First that count in the whole file, texts too (one pass in C): at most
    the limit, and the file is within it. Else every text is a key or a value itself, so a
    file of more texts than the limit is over it; and in one of fewer, the marks inside its
    texts (found by one pass of a regular expression, at most about twice the limit's texts)
    are taken off the count.
    """
    marks = structure_marks(data)
    if 1 + marks <= limit:
        return False
    texts = (data.count(b'"') - data.count(b'\\"')) // 2  # each \" may be one escaped quote
    if texts > limit:
        return True
    inside = structure_marks(b"".join(JSON_TEXT.findall(data)))
    return 1 + marks - inside > limit
