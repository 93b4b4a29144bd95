"""Files the browser saves: one Content-Disposition for every download (RFC 6266, RFC 5987).

Header values must be Latin-1 (gunicorn refuses anything else), so a name such as 朱音.md goes in
``filename*=UTF-8''…`` percent-encoded, after an ASCII ``filename="…"`` for older clients.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from urllib.parse import quote

from flask import send_file
from werkzeug.wrappers import Response

from companion.text.bidi import strip_controls

FALLBACK_STEM = "download"


def content_disposition(name: str) -> str:
    """``attachment`` with the ASCII fallback name and the UTF-8 name, less bidi controls.

    A file manager shows a name alone, where no isolate can hold an override: "Ann" U+202E
    "fdp.exe" would read as "Annexe.pdf". The controls are dropped; every letter stays.
    """
    name = strip_controls(name)
    return f"attachment; filename=\"{ascii_name(name)}\"; filename*=UTF-8''{quote(name, safe='')}"


def ascii_name(name: str) -> str:
    """The name in plain ASCII letters, digits and ``-_.`` (accents dropped), keeping its suffix."""
    stem, dot, suffix = name.rpartition(".")
    if not dot or not re.fullmatch(r"[A-Za-z0-9]{1,8}", suffix):
        stem, suffix = name, ""
    plain = unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode("ascii")
    plain = re.sub(r"[^A-Za-z0-9_.-]+", "-", plain).strip("-_. ")
    return (plain or FALLBACK_STEM) + (f".{suffix}" if suffix else "")


def download(body: bytes | Path, content_type: str, name: str) -> Response:
    """``body`` (bytes, or a file on disk) as an attachment the browser saves as ``name``."""
    if isinstance(body, Path):
        response: Response = send_file(body, mimetype=content_type, conditional=True)
    else:
        response = Response(body, content_type=content_type)
    response.headers["Content-Disposition"] = content_disposition(name)
    return response
