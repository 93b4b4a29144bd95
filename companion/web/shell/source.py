"""``/source``: the running code, for anyone who uses the server (the AGPL's section 13).

The companion is released under the AGPL-3.0-or-later: whoever runs a server offers its users the
source of the version it runs. Every page's footer links here, or to ``SOURCE_URL`` when the
operator publishes the source elsewhere (a fork, a modified copy). The archive is made once per
process from the files the server runs (the package, its templates and static files, and the
licence texts), so a modified server offers its modified source. The bundled faces are left out:
they are the unmodified files ``THIRD-PARTY.md`` names, each available from its own source.
"""

from __future__ import annotations

import hashlib
import io
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

from flask import Blueprint, Flask, current_app, redirect, request, send_file
from werkzeug.wrappers import Response

from companion.base.paths import CHECKOUT, PACKAGE, is_checkout, resources

bp = Blueprint("source", __name__)
FACES = (".ttf", ".otf", ".woff", ".woff2")
SKIPPED_DIRS = {"__pycache__", "_bundle"}
# The project's own files beside the package, in a checkout (a wheel carries the licence texts
# among its metadata instead).
PROJECT_FILES = ("LICENSE", "THIRD-PARTY.md", "REUSE.toml", "README.md", "CHANGELOG.md",
                 "pyproject.toml", "setup.py", "MANIFEST.in", "babel.cfg")  # fmt: skip
NOTE = """This is the source of the companion this server runs, under the GNU Affero General
Public License, version 3 or later (LICENSE). The typefaces in static/fonts/ are left out: they are
the unmodified files THIRD-PARTY.md lists, each under its own licence, from its own source.
"""


def _files() -> Iterator[tuple[str, Path]]:
    """Every file of the running code, as (name in the archive, path)."""
    prefix = f"ijinsho-companion-{_version()}"
    for path in sorted(PACKAGE.rglob("*")):
        parts = set(path.relative_to(PACKAGE).parts)
        if path.is_file() and not parts & SKIPPED_DIRS and path.suffix not in (".pyc", ".mo"):
            yield f"{prefix}/companion/{path.relative_to(PACKAGE)}", path
    files = resources()
    for name, folder in (("templates", files.templates), ("static", files.static)):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix.lower() not in FACES:
                yield f"{prefix}/{name}/{path.relative_to(folder)}", path
    if is_checkout():
        for name in PROJECT_FILES:
            if (CHECKOUT / name).is_file():
                yield f"{prefix}/{name}", CHECKOUT / name
    else:
        yield from _licence_files(prefix)


def _licence_files(prefix: str) -> Iterator[tuple[str, Path]]:
    """The licence texts an installed wheel carries in its metadata."""
    from importlib import metadata

    try:
        dist = metadata.distribution("ijinsho-companion")
    except metadata.PackageNotFoundError:
        return
    for file in dist.files or []:
        parts = Path(str(file)).parts
        if len(parts) > 2 and parts[0].endswith(".dist-info") and parts[1] == "licenses":
            yield f"{prefix}/{Path(*parts[2:])}", Path(str(dist.locate_file(file)))


def _version() -> str:
    from companion.base import __version__

    return __version__


def build() -> bytes:
    """The source archive of the running code."""
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"ijinsho-companion-{_version()}/SOURCE.txt", NOTE)
        for name, path in _files():
            archive.write(path, name)
    return data.getvalue()


class _Kept:
    """The archive, made once per process (a few megabytes) on the first request for it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.data: bytes | None = None

    def get(self) -> bytes:
        with self.lock:
            if self.data is None:
                self.data = build()
            return self.data


@bp.get("/source")
def source() -> Response:
    """The running code as a zip, or the operator's published source (``SOURCE_URL``)."""
    elsewhere = current_app.config.get("SOURCE_URL")
    if elsewhere:
        return redirect(str(elsewhere))
    kept: _Kept = current_app.extensions["companion.source"]
    data = kept.get()
    answer = send_file(
        io.BytesIO(data),
        mimetype="application/zip",
        as_attachment=True,
        download_name=f"ijinsho-companion-{_version()}-source.zip",
        etag=hashlib.sha256(data).hexdigest()[:32],
        max_age=3600,
    )
    return answer.make_conditional(request)


def source_url() -> str:
    """Where the footer's source link points: ``SOURCE_URL``, else this server's ``/source``."""
    from flask import url_for

    return str(current_app.config.get("SOURCE_URL") or url_for("source.source"))


def init_app(app: Flask) -> None:
    """Keep the archive per process and give the templates the link."""
    app.extensions["companion.source"] = _Kept()
    app.jinja_env.globals["source_url"] = source_url
