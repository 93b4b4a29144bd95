"""Static files as the web expects them, served by WhiteNoise in front of the app.

Pages name every file under ``static/`` by its content (``url_for('static', ...)`` gives
``css/app.3f9c2a7b1e04.css``: the first twelve hex digits of the file's SHA-256 before its
suffix). Such a name never changes its bytes, so it is sent ``public, max-age=31536000,
immutable``: a phone asks for it once, and a new version of a file is a new name. The plain
name (``css/app.css``, what a book, a proxy or an old bookmark asks for) is sent ``no-cache``
with an ETag and Last-Modified, so it is always checked and costs a 304 when unchanged. A
digest that is not the file's (a page made before an upgrade) gets today's file as the plain
name does: a page left open keeps its look, and nothing wrong is cached for a year.

Static files never reach Flask: no session is read for them, so they are never private.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from flask import Flask
from whitenoise import WhiteNoise
from whitenoise.string_utils import decode_path_info

DIGEST_CHARS = 12
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
# ``stem.<digest>.suffix``: the name a page gives a static file.
VERSIONED = re.compile(rf"^(?P<stem>.+)\.(?P<digest>[0-9a-f]{{{DIGEST_CHARS}}})(?P<suffix>\.\w+)$")


def digest_of(data: bytes) -> str:
    """The digest a static file's name carries: the start of its SHA-256, in hex."""
    return hashlib.sha256(data).hexdigest()[:DIGEST_CHARS]


def versioned_name(relative: str, digest: str) -> str:
    """``css/app.css`` with ``digest`` before its suffix: ``css/app.<digest>.css`` (a name
    without a suffix, or one that carries a digest already, as it is)."""
    folder, _, name = relative.rpartition("/")
    stem, dot, suffix = name.rpartition(".")
    if not (dot and stem) or VERSIONED.match(name):
        return relative
    named = f"{stem}.{digest}.{suffix}"
    return f"{folder}/{named}" if folder else named


class Digests:
    """The digest of each static file, worked out when first asked and again only when the
    file changed (its size or modification time): bounded by the files in the folder."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._known: dict[str, tuple[tuple[int, int], str]] = {}

    def of(self, relative: str) -> str | None:
        """The digest of ``static/<relative>``; None when there is no such file."""
        path = (self.root / relative).resolve()
        if not path.is_relative_to(self.root):
            return None
        try:
            stat = path.stat()
        except OSError:
            return None
        stamp = (stat.st_mtime_ns, stat.st_size)
        known = self._known.get(relative)
        if known is not None and known[0] == stamp:
            return known[1]
        try:
            digest = digest_of(path.read_bytes())
        except OSError:  # a folder, or gone meanwhile
            return None
        self._known[relative] = (stamp, digest)
        return digest


class StaticFiles(WhiteNoise):  # type: ignore[misc]
    """WhiteNoise over the static folder, answering a file's versioned names as well."""

    def __init__(
        self,
        application: Callable[..., Iterable[bytes]],
        root: Path,
        prefix: str,
        digests: Digests,
        headers: Iterable[tuple[str, str]],
        autorefresh: bool,
    ) -> None:
        self.digests = digests
        self.prefix = prefix.rstrip("/") + "/"
        self.extra_headers = list(headers)
        super().__init__(
            application,
            root=str(root),
            prefix=self.prefix,
            autorefresh=autorefresh,
            max_age=None,
            allow_all_origins=False,
            # As Flask names it, and IANA: not the older image/x-icon.
            mimetypes={".ico": "image/vnd.microsoft.icon"},
            add_headers_function=self._add_headers,
        )

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        path = decode_path_info(environ.get("PATH_INFO", ""))
        if not path.startswith(self.prefix):
            return self.application(environ, start_response)
        static_file = self._plain(path) or self._versioned(path)
        if static_file is None:
            return self.application(environ, start_response)
        asked = environ.get("HTTP_IF_NONE_MATCH")
        if asked and isinstance(getattr(static_file, "etag", None), str):
            environ["HTTP_IF_NONE_MATCH"] = _matched(asked, static_file.etag)
        return self.serve(static_file, environ, start_response)

    def _plain(self, url: str) -> Any:
        return self.find_file(url) if self.autorefresh else self.files.get(url)

    def _versioned(self, url: str) -> Any:
        """The file a versioned name stands for: immutable when the digest is its own."""
        named = VERSIONED.match(url)
        if named is None:
            return None
        plain_url = named["stem"] + named["suffix"]
        plain = self._plain(plain_url)
        if plain is None:
            return None
        if self.digests.of(plain_url[len(self.prefix) :]) != named["digest"]:
            return plain  # a page older than the file: today's file, checked every time
        path = str(self.digests.root / plain_url[len(self.prefix) :])
        static_file = self.get_static_file(path, url)
        if not self.autorefresh:
            self.files[url] = static_file  # one per file: the digest is the file's own
        return static_file

    def add_cache_headers(self, headers: Any, path: str, url: str) -> None:
        named = VERSIONED.match(url)
        relative = Path(path).resolve().relative_to(self.digests.root).as_posix()
        own = named is not None and self.digests.of(relative) == named["digest"]
        headers["Cache-Control"] = IMMUTABLE if own else REVALIDATE

    def _add_headers(self, headers: Any, path: str, url: str) -> None:
        for name, value in self.extra_headers:
            headers[name] = value


def _matched(asked: str, etag: str) -> str:
    """``If-None-Match`` as WhiteNoise compares it (the one tag, exactly): the file's own tag
    when any tag asked for matches it weakly (compression sends it weak, ``W/"..."``)."""
    tags = [tag.strip().removeprefix("W/") for tag in asked.split(",")]
    return etag if "*" in tags or etag.removeprefix("W/") in tags else asked


def init_app(app: Flask, headers: Mapping[str, str]) -> None:
    """Serve ``static/`` in front of the app (``app.front``: ``headers`` on every file) and have
    ``url_for('static', ...)`` name each file by its content."""
    root = Path(str(app.static_folder))
    digests = Digests(root)
    app.extensions["companion.static_digests"] = digests

    def versioned(endpoint: str, values: dict[str, Any]) -> None:
        if endpoint != "static" or "filename" not in values:
            return
        filename = str(values["filename"])
        digest = digests.of(filename)
        if digest is not None:
            values["filename"] = versioned_name(filename, digest)

    app.url_defaults(versioned)
    # Whether a file is there: the screen's faces are made at set-up, and a page links them
    # only when they were.
    app.jinja_env.globals["has_static"] = lambda filename: digests.of(filename) is not None
    inner = getattr(app, "front", None) or (lambda environ, start: app.wsgi_app(environ, start))
    app.front = StaticFiles(  # type: ignore[attr-defined]
        inner,
        root,
        str(app.static_url_path),
        digests,
        headers.items(),
        autorefresh=bool(app.debug),
    )
