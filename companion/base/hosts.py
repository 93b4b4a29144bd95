"""Which host names the server answers to, and the address absolute links are built from.

``BASE_URL`` (``COMPANION_BASE_URL``), such as ``https://play.example`` or
``http://192.168.1.20:8000``, is put in every absolute link (join links, QR codes, the API's
creation answer) whatever ``Host`` a request names. ``TRUSTED_HOSTS`` (Flask's own setting) lists
the host names a request may name; any other gets 400. ``companion serve`` sets it when it is not
configured: localhost, 127.0.0.1, the address it binds (its LAN address with ``--lan``) and the
base URL's host.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Flask, jsonify, render_template, request
from flask_babel import gettext as _
from werkzeug.exceptions import SecurityError

LOOPBACK = ("localhost", "127.0.0.1")
WILDCARDS = ("0.0.0.0", "::", "")


class Companion(Flask):
    """Flask, building absolute links from ``BASE_URL`` when one is configured, with the
    instance's secret key made on first use rather than when the app is built."""

    @property
    def secret_key(self) -> str | bytes | None:
        key = self.config.get("SECRET_KEY")
        if not key:
            from pathlib import Path

            from companion.base.paths import ensure_secret

            key = self.config["SECRET_KEY"] = ensure_secret(Path(self.instance_path))
        return key

    @secret_key.setter
    def secret_key(self, value: str | bytes | None) -> None:
        self.config["SECRET_KEY"] = value

    # What answers before the app's own WSGI stack (static files, compression), set by the
    # factory; ``wsgi_app`` stays the app's own, for the internal requests live feeds make.
    front: Any = None

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        """The app as a server calls it: ``front`` when there is one, else ``wsgi_app``."""
        return (self.front or self.wsgi_app)(environ, start_response)

    def url_for(self, endpoint: str, *, _external: bool | None = None, **values: Any) -> str:
        base = self.config.get("BASE_URL")
        if not (_external and base):
            return super().url_for(endpoint, _external=_external, **values)
        values.pop("_scheme", None)
        return str(base) + super().url_for(endpoint, _external=False, **values)


# Where `companion serve` listens unless told otherwise: the address the command line prints
# when no BASE_URL is configured.
SERVE_ADDRESS = "http://127.0.0.1:8000"


def public_address(config: Any) -> str:
    """The address the command line prints links with: ``BASE_URL``, else serve's default."""
    return str(config.get("BASE_URL") or SERVE_ADDRESS).rstrip("/")


def default_trusted_hosts(app: Flask, bind: str, lan_address: str | None) -> list[str]:
    """The host names ``companion serve`` answers to when ``TRUSTED_HOSTS`` is not configured."""
    names = list(LOOPBACK)
    if bind not in WILDCARDS:
        names.append(bind)
    if lan_address:
        names.append(lan_address)
    base = app.config.get("BASE_URL")
    if base:
        names.append(str(urlsplit(str(base)).hostname))
    return list(dict.fromkeys(names))


def _untrusted(_error: SecurityError) -> tuple[Any, int]:
    message = _(
        "This server does not answer to that address. Open it by the address its host gave."
    )
    if request.path.startswith("/api/"):
        return jsonify(error=message, code="untrusted-host"), 400
    return render_template("errors/host.html", reason=message), 400


def init_app(app: Flask) -> None:
    """Answer a request naming an untrusted host with a clear 400, never echoing the name."""
    app.register_error_handler(SecurityError, _untrusted)
