"""A session cookie that is encrypted as well as signed.

The session remembers the links this browser opened, host links included, for a year. A signed
cookie is only base64: anyone who sees it (a shared computer, a proxy log, a backup) could read
the links. Sealed with AES-GCM under a key derived from the secret key, it shows nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import time
from typing import Any

from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from flask import Flask, Request, request
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface
from flask.sessions import session_json_serializer as tagged_json
from itsdangerous import BadData, URLSafeTimedSerializer

from companion.text.bytecache import ByteLRU, deep_size
from companion.web.shell import render_cache

NONCE_BYTES = 12
# Cookies opened lately, by their exact text: a browser sends the same cookie with every poll
# and page, and checking its signature and decrypting it cost more than serving a cached page.
OPENED_BYTES = 1024 * 1024
# Browsers drop a cookie over 4 KB (and with it the links a browser opened and its CSRF token):
# the session is kept well under that, whatever a browser does.
COOKIE_BUDGET = 3000
# What may be let go to fit, first to last, and how many of each a first pass keeps: the
# hot-seat devices' holders (the cover shows again), the oldest chronicles of the start page's
# list, the oldest messages still to show, a sheet of fresh links, held forms.
PRUNABLE = {"revealed": 2, "opened": 3, "_flashes": 1, "fresh_links": 0, "held": 0}
NEWEST_FIRST = ("opened",)


class Sealer:
    """Serializes a session to encrypted bytes and back (itsdangerous then signs them)."""

    def __init__(self, secret: str | bytes) -> None:
        raw = secret.encode("utf-8") if isinstance(secret, str) else secret
        key = hmac.new(raw, b"companion session encryption", hashlib.sha256).digest()
        self._aead = AESGCM(key)

    def dumps(self, value: Any) -> bytes:
        """The session encrypted under a fresh nonce."""
        nonce = os.urandom(NONCE_BYTES)
        plain = tagged_json.dumps(value).encode("utf-8")
        return nonce + self._aead.encrypt(nonce, plain, None)

    def loads(self, sealed: bytes) -> Any:
        """The session again; raises when the bytes were not sealed with this key."""
        nonce, body = sealed[:NONCE_BYTES], sealed[NONCE_BYTES:]
        return tagged_json.loads(self._aead.decrypt(nonce, body, None).decode("utf-8"))


class SealedSerializer(URLSafeTimedSerializer):
    """Signs sealed bytes; gives the cookie value as text, as Flask sets it."""

    def dumps(self, obj: Any, salt: str | bytes | None = None) -> str:
        value = super().dumps(obj, salt)
        return value.decode("ascii") if isinstance(value, bytes) else value


class ReadSession(SecureCookieSession):
    """A cookie session that knows whether anything was read from it. (Flask's ``accessed``
    is set whenever the session is so much as looked at through ``flask.session``, its own
    ``accessed`` and ``modified`` included, so it cannot tell.)"""

    read = False

    def __getitem__(self, key: str) -> Any:
        self.read = True
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        self.read = True
        return super().get(key, default)

    def setdefault(self, key: str, default: Any = None) -> Any:
        self.read = True
        return super().setdefault(key, default)

    def __contains__(self, key: object) -> bool:
        self.read = True
        return super().__contains__(key)

    def __iter__(self) -> Any:
        self.read = True
        return super().__iter__()

    def keys(self) -> Any:
        self.read = True
        return super().keys()

    def items(self) -> Any:
        self.read = True
        return super().items()

    def values(self) -> Any:
        self.read = True
        return super().values()


# Where a request's environ keeps the session opened for it, so the answer's headers can ask
# what was done with it without looking at it through ``flask.session``.
OPENED_KEY = "companion.session"


def opened_session(environ: dict[str, Any]) -> ReadSession | None:
    """The session opened for the request of ``environ``, if one was."""
    found = environ.get(OPENED_KEY)
    return found if isinstance(found, ReadSession) else None


class SealedSessionInterface(SecureCookieSessionInterface):
    """Flask's cookie session, with the payload encrypted before it is signed."""

    salt = "companion-sealed-session"
    session_class = ReadSession

    def __init__(self, opened_bytes: int = OPENED_BYTES) -> None:
        # Deriving the keys costs more than a request's other work: once per secret key.
        self._serializers: dict[str | bytes, SealedSerializer] = {}
        # cookie text -> (its session data, when it was signed), for this secret key only
        self.opened = ByteLRU(opened_bytes)

    def get_signing_serializer(self, app: Flask) -> URLSafeTimedSerializer | None:
        secret = app.secret_key
        if not secret:
            return None
        if secret not in self._serializers:
            self._serializers = {secret: _serializer(secret, self.salt, self.key_derivation)}
            self.opened.clear()
        return self._serializers[secret]

    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        session = self._open(app, request)
        request.environ[OPENED_KEY] = session
        return session

    def _open(self, app: Flask, request: Request) -> SecureCookieSession | None:
        serializer = self.get_signing_serializer(app)
        if serializer is None:
            return None
        value = request.cookies.get(self.get_cookie_name(app))
        if not value:
            return self.session_class()
        max_age = int(app.permanent_session_lifetime.total_seconds())
        known = self.opened.get(value)
        if known is not None and time.time() - known[1] <= max_age:
            return self.session_class(_copy(known[0]))
        try:
            data, signed = serializer.loads(value, max_age=max_age, return_timestamp=True)
        except BadData:
            return _unsealed(app, value, max_age)
        kept = (data, signed.timestamp())
        self.opened.put(value, kept, deep_size((value, kept)))
        return self.session_class(_copy(data))

    def save_session(self, app: Flask, session: Any, response: Any) -> None:
        """Save the cookie, first trimming what it remembers until it fits the budget; none for
        a live feed's internal request, whose answer no browser receives."""
        if request.environ.get(render_cache.LIVE):
            return
        serializer = self.get_signing_serializer(app)
        if serializer is not None and session and session.modified:
            fit(session, lambda: len(serializer.dumps(dict(session))))
        super().save_session(app, session, response)


def _copy(value: Any) -> Any:
    """A copy of session data whose lists and dicts are its own (a request may change them)."""
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value  # str, numbers, and the tagged types (tuples of them, Markup, bytes): immutable


def fit(session: Any, size: Any) -> None:
    """Let the oldest remembered things go (``PRUNABLE``, in order, first down to a few of
    each, then all) while ``size()`` of the sealed cookie is over ``COOKIE_BUDGET``."""
    for first_pass in (True, False):
        for key, few in PRUNABLE.items():
            floor = few if first_pass else 0
            while size() > COOKIE_BUDGET and len(session.get(key) or ()) > floor:
                session[key] = _newest(key, session[key], max(floor, len(session[key]) // 2))


def _newest(key: str, held: Any, keep: int) -> Any:
    """The newest ``keep`` entries of a remembered list or mapping."""
    if isinstance(held, dict):
        return dict(list(held.items())[len(held) - keep :]) if keep else {}
    if isinstance(held, list):
        return held[:keep] if key in NEWEST_FIRST else held[len(held) - keep :] if keep else []
    return None


def _serializer(secret: str | bytes, salt: str, key_derivation: str) -> SealedSerializer:
    return SealedSerializer(
        secret,
        salt=salt,
        serializer=Sealer(secret),
        signer_kwargs={"key_derivation": key_derivation, "digest_method": hashlib.sha1},
    )


def _unsealed(app: Flask, value: str, max_age: int) -> SecureCookieSession:
    """A cookie from before sessions were sealed: read it once, and seal it on the way out."""
    plain = SecureCookieSessionInterface().get_signing_serializer(app)
    try:
        data = plain.loads(value, max_age=max_age) if plain is not None else {}
    except BadData:
        return ReadSession()
    session = ReadSession(data)
    session.modified = True
    return session


def init_app(app: Flask) -> None:
    """Seal the app's session cookie."""
    app.session_interface = SealedSessionInterface()
