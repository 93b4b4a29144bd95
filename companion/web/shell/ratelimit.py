"""Rate limits per client address: creating things, and trying links that open nothing.

The ``limits`` library keeps the counts in the storage named by ``RATELIMIT_STORAGE_URI``: the
default ``memory://`` counts in each server process (gunicorn runs two, so a client may get up to
twice the figure), and ``redis://host:6379``, ``memcached://host:11211`` or a ``postgresql://``
address (see ``companion.store.ratelimit_store``) shares them between processes and servers. Settings (each
also ``COMPANION_<NAME>`` in the environment):

- ``RATELIMIT_ENABLED``: on by default.
- ``RATELIMIT_CREATE``: chronicles, tables, demos, imports and pack uploads per client; a number
  (per 10 minutes) or a ``limits`` string such as ``"30 per 10 minutes"``. Default 30.
- ``RATELIMIT_GUESS``: unknown or revoked links per client, the same way. Default 60.
- ``RATELIMIT_EXPORT``: exports asked for (books, Markdown, backups), counted both per client
  and per link (whoever uses it), the same way. Default 60.
- ``RATELIMIT_REFUSED``: imports and set-up or lobby forms refused, per client, the same way
  (a refused form is kept for its page; a refused import may have cost a parse). Default 20.
- ``RATELIMIT_DRAFTS``: drafts saved per link (``limits`` string). Default ``5 per second``;
  the play page saves a text at most about three times a second as it is typed.
- ``RATELIMIT_STORAGE_URI``, ``RATELIMIT_STORAGE_OPTIONS`` and ``RATELIMIT_STRATEGY``
  (``moving-window``, ``fixed-window`` or ``sliding-window-counter``): where and how to count.

Only the requests a limit applies to count anything: there is no hook on every request, so a
page or a poll pays nothing for the limits it is not under.

A link that opens something is never refused for the misses of other links: a phone left open
on a revoked link must not lock its own table out. Past the limit, only misses get 429.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from flask import Flask, current_app, g, request
from flask.wrappers import Response
from limits import RateLimitItem, parse
from limits.storage import storage_from_string
from limits.strategies import STRATEGIES, RateLimiter
from werkzeug.exceptions import TooManyRequests

from companion.base import bounds, logs

log = logging.getLogger("companion.web.shell.ratelimit")
View = TypeVar("View", bound=Callable[..., Any])
KINDS = ("create", "guess", "export", "refused", "drafts")  # each one RATELIMIT_<KIND>


def _enabled() -> bool:
    return bool(current_app.config.get("RATELIMIT_ENABLED", True))


def _item(name: str) -> RateLimitItem:
    return _parsed(bounds.value(current_app.config, f"RATELIMIT_{name.upper()}"))


def _parsed(value: Any) -> RateLimitItem:
    return parse(f"{value} per 10 minutes" if isinstance(value, int) else str(value))


def _client() -> str:
    return request.remote_addr or "127.0.0.1"


def _hit(name: str, client: str | None = None) -> bool:
    """Count one event of kind ``name`` for this client (or key); False once over its limit."""
    limiter: RateLimiter = current_app.extensions["companion.limiter"]
    item, client = _item(name), client or _client()
    if limiter.hit(item, name, client):
        return True
    reset = limiter.get_window_stats(item, name, client).reset_time
    g.retry_after = max(1, math.ceil(reset - time.time()))
    return False


def _refuse() -> TooManyRequests:
    return TooManyRequests(retry_after=g.get("retry_after"))


def check_creation() -> None:
    """Refuse with 429 when this client created too many chronicles or tables lately."""
    if _enabled() and not _hit("create"):
        log.warning(
            "too many creations from %s; refusing %s", request.remote_addr, logs.request_path()
        )
        raise _refuse()


def limited_like_creation(view: View) -> View:
    """Count every call of ``view`` against the client's creation allowance (imports, uploads)."""

    @wraps(view)
    def limited(*args: Any, **kwargs: Any) -> Any:
        check_creation()
        return view(*args, **kwargs)

    return limited  # type: ignore[return-value]


def count_miss() -> None:
    """Count one unknown or revoked link from this client; 429 once it tried too many."""
    if _enabled() and not _hit("guess"):
        log.warning(
            "too many unknown links from %s; refusing %s", request.remote_addr, logs.request_path()
        )
        raise _refuse()


def refusals_left() -> None:
    """Refuse with 429 a client whose imports or forms were refused too often lately: each
    refusal it had cost a parse or a held form (``count_refusal``)."""
    if not _enabled():
        return
    limiter: RateLimiter = current_app.extensions["companion.limiter"]
    item, client = _item("refused"), _client()
    if not limiter.test(item, "refused", client):
        reset = limiter.get_window_stats(item, "refused", client).reset_time
        g.retry_after = max(1, math.ceil(reset - time.time()))
        log.warning(
            "too many refused forms from %s; refusing %s", request.remote_addr, logs.request_path()
        )
        raise _refuse()


def count_refusal() -> bool:
    """Count one refused import or form of this client (``refusals_left`` checks the count);
    False once it was refused too often lately (what it sent is then not kept)."""
    return not _enabled() or _hit("refused")


def drafts_left(link: str) -> bool:
    """Count one draft of the link ``link`` (its fingerprint, never the token); False once it
    saved too many lately (``g.retry_after`` then says when to send again)."""
    return not _enabled() or _hit("drafts", f"link:{link[:16]}")


class ExportsRefusedError(TooManyRequests):
    """Too many exports from one client or one link: a 429 that says so in a sentence."""

    def __init__(self, reason: str, retry_after: int | None) -> None:
        super().__init__(description=reason, retry_after=retry_after)
        self.reason = reason


def check_export(link: str) -> None:
    """Refuse with 429 when this client, or this link from any client, asked for too many
    exports lately. ``link`` names the link without being it (its fingerprint), as the counts
    may be kept in a shared store."""
    if _enabled() and not (_hit("export") and _hit("export", f"link:{link[:16]}")):
        from flask_babel import gettext

        log.warning("too many exports from %s; refusing %s", request.remote_addr, request.path)
        reason = gettext(
            "This link or this address asked for too many exports in the last few minutes."
            " Wait a little and try again."
        )
        raise ExportsRefusedError(reason, g.get("retry_after"))


def _retry_after(response: Response) -> Response:
    if (
        response.status_code == 429
        and g.get("retry_after")
        and "Retry-After" not in response.headers
    ):
        response.headers["Retry-After"] = str(g.retry_after)
    return response


def init_app(app: Flask) -> None:
    """Set up the counts' storage from the settings, and the Retry-After header on 429."""
    app.config.setdefault("RATELIMIT_STORAGE_URI", "memory://")
    app.config.setdefault("RATELIMIT_STRATEGY", "moving-window")
    from companion.store.pg import is_url

    uri = app.config["RATELIMIT_STORAGE_URI"]
    if is_url(uri):
        from companion.store import ratelimit_store  # noqa: F401 - registers the postgresql:// storage
    strategy = app.config["RATELIMIT_STRATEGY"]
    if strategy not in STRATEGIES:
        raise ValueError(
            f"RATELIMIT_STRATEGY must be one of {sorted(STRATEGIES)}, not {strategy!r}"
        )
    for kind in KINDS:
        setting = f"RATELIMIT_{kind.upper()}"
        try:
            _parsed(bounds.value(app.config, setting))
        except ValueError as err:
            raise bounds.BoundSettingError(
                f"The setting {setting} (COMPANION_{setting}) cannot be read: {err}"
            ) from None
    storage = storage_from_string(uri, **app.config.get("RATELIMIT_STORAGE_OPTIONS", {}))
    app.extensions["companion.limiter"] = STRATEGIES[strategy](storage)
    app.after_request(_retry_after)
