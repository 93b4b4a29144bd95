"""Log lines an operator can read and share: no secret link, no forged line, one request id.

Every line the app, gunicorn, werkzeug and the export processes write passes ``Clean``, a filter
on the handlers this module installs (a filter on a logger would miss the records its children
pass up). It

- replaces each link token by the link's public id: ``link-`` and the first ten hex digits of
  the token's SHA-256, which is the start of the ``token_hash`` the database stores, so the
  operator can find the row (``WHERE token_hash LIKE '1a2b3c4d5e%'``) while the line opens
  nothing. Tokens are found after ``/c/``, ``/t/`` and ``/api/v1/chronicles/`` in any text,
  and, within a request, wherever the request's own token (its URL's or its bearer's) appears;
- escapes control characters (``\\xNN``, newlines included), bidirectional controls and line
  separators (``\\uNNNN``), so no value taken from a request can start a line of its own or
  turn the text around it; a traceback keeps its line breaks, its lines indented under the
  record that carries it;
- adds the request id (``-`` outside a request).

Lines are text (``LOG_FORMAT=text``, the default) or one JSON object per line (``json``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import sys
import time
from typing import Any

PUBLIC_ID = re.compile(r"link-[0-9a-f]{10}")
STREAM_ID = re.compile(r"[0-9a-f]{16}")  # stream ids are not secret: they stay readable


def _spelt(word: str) -> str:
    """A pattern for ``word`` however a raw URI may spell it: each letter as itself (in either
    case) or percent-escaped."""
    return "".join(
        f"(?:{re.escape(ch)}|%{ord(ch.lower()):02x}|%{ord(ch.upper()):02x})" for ch in word
    )


# Slashes, possibly doubled or percent-escaped, and any ``.`` or ``..`` segments between them:
# a server that merges slashes or decodes escapes serves ``//c/<link>``, ``/%63/<link>`` and
# ``/c/./<link>`` as ``/c/<link>``, so their links are found too.
_SEP = r"(?:/|%2f)+(?:(?:\.|%2e){1,2}(?:/|%2f)+)*"
# A segment after a capability prefix, as a raw URI may spell it.
TOKEN_PATH = re.compile(
    rf"(?i)({_SEP}(?:{_spelt('c')}|{_spelt('t')}){_SEP}"
    rf"|{_SEP}{_spelt('api')}{_SEP}{_spelt('v1')}{_SEP}{_spelt('chronicles')}{_SEP})"
    r"((?:[^/?#\s\"'<>\\%.]|\.(?!\.?(?:/|%2f))|%(?!2f)[0-9a-f]{2})+)"
)
UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff\ufeff]"
)
FORMATS = ("text", "json")
QUIET = ("weasyprint", "fontTools")
_HANDLER_NAME = "companion"
_UNCLEAN = logging.Formatter()


def public_id(token: str) -> str:
    """The non-secret name of a link in logs: the start of its stored hash."""
    if PUBLIC_ID.fullmatch(token):
        return token
    return "link-" + hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()[:10]


def _segment(match: re.Match[str]) -> str:
    segment = match.group(2)
    if STREAM_ID.fullmatch(segment) or PUBLIC_ID.fullmatch(segment):
        return match.group(0)
    return match.group(1) + public_id(segment)


def redact(text: str, tokens: tuple[str, ...] = ()) -> str:
    """``text`` with every link token replaced by its public id."""
    for token in tokens:
        if token and len(token) >= 8 and token in text:
            text = text.replace(token, public_id(token))
    return TOKEN_PATH.sub(_segment, text)


def _escaped(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape(text: str) -> str:
    """``text`` on one line: control, bidi and separator characters written as escapes."""
    return UNSAFE.sub(lambda m: _escaped(m.group(0)), text) if UNSAFE.search(text) else text


def clean(text: str, tokens: tuple[str, ...] = ()) -> str:
    """A value fit for a log line: tokens redacted, controls escaped."""
    return escape(redact(text, tokens))


def _request_facts() -> tuple[str, tuple[str, ...]]:
    """The current request's id and its own tokens (none outside a request)."""
    try:
        from flask import g, has_request_context, request
    except ImportError:  # pragma: no cover - Flask is always there
        return "-", ()
    if not has_request_context():
        return "-", ()
    tokens = []
    token = (request.view_args or {}).get("token")
    if isinstance(token, str):
        tokens.append(token)
    auth = request.headers.get("Authorization", "")
    if auth[:7].lower() == "bearer ":
        tokens.append(auth[7:].strip())
    return str(g.get("request_id", "-")), tuple(tokens)


class Clean(logging.Filter):
    """Redacts tokens, escapes controls and adds ``request_id`` (see the module's docstring)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "_cleaned", False):
            return True
        request_id, tokens = _request_facts()
        # The record's own attributes: LogRecord declares no ``request_id``.
        fields = vars(record)
        fields["request_id"] = clean(str(fields.setdefault("request_id", request_id)))
        record.msg, record.args = clean(record.getMessage(), tokens), ()
        if record.exc_info and not record.exc_text:
            record.exc_text = _UNCLEAN.formatException(record.exc_info)
        for name in ("exc_text", "stack_info"):
            value = getattr(record, name, None)
            if value:
                lines = redact(str(value), tokens).split("\n")
                setattr(record, name, "\n".join(escape(line) for line in lines))
        record._cleaned = True
        return True


class TextFormatter(logging.Formatter):
    """``2025-05-01T12:00:00.123Z ERROR [request id] logger: message``; tracebacks indented."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s [%(request_id)s] %(name)s: %(message)s")

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        return f"{stamp}.{int(record.msecs):03d}Z"

    def format(self, record: logging.LogRecord) -> str:
        if not hasattr(record, "request_id"):
            record.request_id = "-"
        first, *rest = super().format(record).split("\n")
        # A line that starts at the margin is always a record of its own.
        return "\n".join([first, *("    " + line for line in rest)])


class JsonFormatter(TextFormatter):
    """One JSON object per line: time, level, logger, request id, message and the record's extras."""

    FIELDS = ("method", "path", "route", "status", "duration_ms", "remote", "job", "stream")

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": self.formatTime(record),
            "level": record.levelname,
            "logger": record.name,
            "request_id": getattr(record, "request_id", "-"),
            "message": record.getMessage(),
        }
        line.update({k: getattr(record, k) for k in self.FIELDS if hasattr(record, k)})
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exception"] = record.exc_text
        if record.stack_info:
            line["stack"] = record.stack_info
        return json.dumps(line, ensure_ascii=False)  # controls are escaped already


def formatter(kind: str = "text") -> logging.Formatter:
    """The formatter of ``LOG_FORMAT`` ``kind``; ValueError for another."""
    if kind not in FORMATS:
        raise ValueError(f"LOG_FORMAT must be one of {', '.join(FORMATS)}, not {kind!r}")
    return JsonFormatter() if kind == "json" else TextFormatter()


def dress(handler: logging.Handler, kind: str = "text") -> logging.Handler:
    """Give ``handler`` the cleaning filter (once) and the formatter of ``kind``."""
    if not any(isinstance(f, Clean) for f in handler.filters):
        handler.addFilter(Clean())
    handler.setFormatter(formatter(kind))
    return handler


def configure(kind: str = "text", level: str | int = "INFO", stream: Any = None) -> None:
    """Send the root logger's records to ``stream`` (stderr) through one cleaning handler."""
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == _HANDLER_NAME]:
        root.removeHandler(old)
    handler = dress(logging.StreamHandler(stream or sys.stderr), kind)
    handler.set_name(_HANDLER_NAME)
    root.addHandler(handler)
    root.setLevel(level.upper() if isinstance(level, str) else level)
    for chatty in QUIET:  # their INFO lines say how a page is laid out, not what went wrong
        logging.getLogger(chatty).setLevel(max(logging.WARNING, root.level))
    from flask.logging import default_handler

    # Flask's own handler would write the app's records a second time, uncleaned.
    logging.getLogger("companion").removeHandler(default_handler)
    for name in ("gunicorn.error", "gunicorn.access"):
        for other in logging.getLogger(name).handlers:
            dress(other, kind)


def configured_format() -> str:
    """The format the root handler writes (what gunicorn's handlers should write too)."""
    for handler in logging.getLogger().handlers:
        if handler.get_name() == _HANDLER_NAME:
            return "json" if isinstance(handler.formatter, JsonFormatter) else "text"
    return "text"


def configure_process(*streams: Any) -> None:
    """Logging of a process the server starts (the export supervisor and its workers): the
    format of ``COMPANION_LOG_FORMAT``, every record written to each of ``streams``."""

    kind = os.environ.get("COMPANION_LOG_FORMAT", "text")
    configure(kind if kind in FORMATS else "text", "INFO", streams[0])
    seen = {_identity(streams[0])}
    for stream in streams[1:]:
        if _identity(stream) not in seen:
            seen.add(_identity(stream))
            logging.getLogger().addHandler(dress(logging.StreamHandler(stream), kind))


def _identity(stream: Any) -> Any:
    """The open file behind ``stream``, so that one file is never written twice."""

    try:
        info = os.fstat(stream.fileno())
    except (OSError, AttributeError, ValueError):
        return id(stream)
    return (info.st_dev, info.st_ino)


def request_path() -> str:
    """The current request's path as a log line may hold it (tokens redacted, escaped)."""
    from flask import request

    return clean(request.path, _request_facts()[1])
