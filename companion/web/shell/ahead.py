"""Pages made ahead of their watchers: after a request writes a change to a stream, the process
that wrote it makes the stream's pages its visitors have been asking for, before they ask again.

Every page the render cache serves under a stream's key (``streams.cache_key``) notes how it was
asked (``seen``): its path, its query (none, its live part's, or a language: nothing else), the
language it was made in and the address it was served under; never a cookie, a header or a
token beyond the path the link already is. A request that writes (a form, a command) notes the
streams whose changes it committed (``store.signal.noting``; their signals go out at the commit,
as ever); before it answers, this process asks the noted pages of those streams again through
the app, as a live feed asks its part (an internal request, no session): each is then in this
process's render cache and in the store for every other process and server
(``store.rendered``). The live parts first (this process's feeds, woken by the change, find them
made), then the whole pages whose version moved, each after the worker's other greenlets had
their turn (under gevent: the feeds the change woke push first), then the writer has its answer.

What one client can make a process hold or do is bounded: ``AHEAD_PAGES`` noted pages a stream
(the most recently asked kept; 0 turns this off), for ``STREAMS`` streams a process (under
2 MiB in all); a page not asked again within ``CHANGES`` changes is forgotten, so pages are made
ahead only for those who keep asking, and a change makes at most ``AHEAD_PAGES`` pages. A page
that cannot be made ahead is logged and left to whoever asks.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app, g, request

from companion.base.languages import LANGUAGES
from companion.live import feed
from companion.store import events, signal
from companion.store.db import get_db, next_turn

log = logging.getLogger(__name__)
STREAMS = 128  # streams whose pages a process notes, the most recently asked kept
CHANGES = 4  # a page not asked again within this many changes of its stream is forgotten
# The queries a noted page may have been asked with: none, or its live part, in a language.
QUERIES = frozenset(
    {"", "fragment=1"}
    | {f"lang={lang}" for lang in LANGUAGES}
    | {f"fragment=1&lang={lang}" for lang in LANGUAGES}
)
MINE = "companion.ahead"  # in the environ of a page this module asks for
LANG = "companion.lang"  # in it too: the language the page was made in (``select_locale``)
SAFE = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass
class Noted:
    """A page as it was asked: the internal request that asks it again, whether it is a live
    part, the newest version it was asked at, and the changes left before it is forgotten."""

    environ: dict[str, Any]
    part: bool
    version: int
    left: int = CHANGES


class Ahead:
    """The pages of each stream this process has served lately, and making them again."""

    def __init__(self, app: Flask, per_stream: int) -> None:
        self.app, self.per_stream = app, per_stream
        self.lock = threading.Lock()
        self.streams: OrderedDict[str, OrderedDict[tuple[Any, ...], Noted]] = OrderedDict()

    def noted(self, stream_id: str) -> list[Noted]:
        """The pages noted for ``stream_id``, least recently asked first."""
        with self.lock:
            return list(self.streams.get(stream_id, {}).values())

    def seen(self, stream_id: str, version: int, environ: dict[str, Any], lang: str) -> None:
        """Note that the request ``environ`` was served the stream's page at ``version``, made
        in ``lang``."""
        if not self.per_stream or environ.get(MINE) or lang not in LANGUAGES:
            return
        if environ.get("REQUEST_METHOD") != "GET":
            return
        query = str(environ.get("QUERY_STRING", ""))
        if query not in QUERIES:
            return
        path = str(environ.get("PATH_INFO", ""))
        where = tuple(environ.get(name) for name in ("wsgi.url_scheme", *feed.KEYED))
        key = (path, query, lang, *where)
        with self.lock:
            pages = self.streams.pop(stream_id, None) or OrderedDict()
            self.streams[stream_id] = pages
            while len(self.streams) > STREAMS:
                self.streams.popitem(last=False)
            page = pages.pop(key, None)
            if page is None:
                asked = feed.internal(environ, path, query, accept="text/html")
                asked.update({MINE: True, LANG: lang})
                del asked["wsgi.input"]  # each ask is given its own
                page = Noted(asked, query.startswith("fragment="), version)
            page.version, page.left = max(page.version, version), CHANGES
            pages[key] = page
            while len(pages) > self.per_stream:
                pages.popitem(last=False)

    def make(self, stream_ids: Iterable[str]) -> int:
        """Make the noted pages of the changed streams: their parts, then the whole pages
        whose version moved; how many were made."""
        due: list[tuple[str, tuple[Any, ...], Noted]] = []
        with self.lock:
            for stream_id in stream_ids:
                pages = self.streams.get(stream_id)
                for key, page in list((pages or {}).items()):
                    page.left -= 1
                    if page.left < 0:
                        del pages[key]  # type: ignore[union-attr]
                    else:
                        due.append((stream_id, key, page))
        made = sum(self._ask(*item) for item in due if item[2].part)
        versions: dict[str, int] = {}
        for stream_id, key, page in due:
            if page.part:
                continue
            next_turn()  # the feeds this change woke, and the worker's other visitors, first
            if stream_id not in versions:
                versions[stream_id] = _version(stream_id)
            if versions[stream_id] > page.version:
                made += self._ask(stream_id, key, page)
        return made

    def _ask(self, stream_id: str, key: tuple[Any, ...], page: Noted) -> int:
        try:
            answer = feed.ask(self.app, dict(page.environ))
        except Exception:  # noqa: BLE001 - whoever asks makes it then
            log.warning("a page of %s was not made ahead", stream_id, exc_info=True)
            return 0
        if answer.status != 200:  # the link opens nothing now: forget it
            with self.lock:
                self.streams.get(stream_id, OrderedDict()).pop(key, None)
            return 0
        return 1


def _version(stream_id: str) -> int:
    try:
        return events.stream_version(get_db(), stream_id)
    except events.UnknownStreamError:
        return -1


def seen(key: tuple[Any, ...], stream_id: str, version: int) -> None:
    """Note the request being served the page of ``key`` (a stream's: ``streams.cache_key``)."""
    ahead: Ahead | None = current_app.extensions.get("companion.ahead")
    if ahead is not None and isinstance(key[3], str):
        ahead.seen(stream_id, version, request.environ, key[3])


def init_app(app: Flask) -> None:
    """Note pages as they are served, and make them ahead after each request that writes."""
    ahead = Ahead(app, int(app.config["AHEAD_PAGES"]))
    app.extensions["companion.ahead"] = ahead
    if not ahead.per_stream:
        return

    def note() -> None:
        if request.method not in SAFE and not request.environ.get(feed.LIVE):
            g.companion_noting = signal.noting()

    def make(response: Any) -> Any:
        noting = g.pop("companion_noting", None)
        if noting is not None:
            signal.stop_noting(noting[1])
            try:
                if noting[0]:
                    ahead.make(list(noting[0]))
            except Exception:  # noqa: BLE001 - the change is written: the writer has its answer
                log.warning("the pages of a change were not made ahead", exc_info=True)
        return response

    def stopped(_error: BaseException | None) -> None:
        noting = g.pop("companion_noting", None)
        if noting is not None:
            signal.stop_noting(noting[1])

    app.before_request(note)
    app.after_request(make)
    app.teardown_request(stopped)
