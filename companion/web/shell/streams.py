"""The table kit every stream's pages share: chronicles and card tables alike.

A stream (a chronicle or a card table) is opened by its link; a link that opens nothing gets one
error page (404, or JSON when asked). A refused form (the rules, or a post at an old version) is
answered with a redirect to the page as it stands, its sentence flashed: Back and Reload then
never ask to send a form again. A client that asks for JSON gets the status (409 when stale).
Open pages hold a live feed of the stream's changes (or poll its version) and show its live fragment, rendered once per version and kind of
viewer through the render cache: pushed with the change where the page asked (``live_part``),
fetched otherwise.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Hashable, Mapping
from typing import Any, NoReturn, TypeVar

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import get_locale
from markupsafe import Markup
from werkzeug.exceptions import NotFound
from werkzeug.wrappers import Response

from companion.base.limits import NUMBER_LIMIT
from companion.live import Part
from companion.store.capabilities import TOKEN_PATTERN, Capability, served_state
from companion.store.db import get_db
from companion.store.events import Stream as Header
from companion.store.events import UnknownStreamError
from companion.text.wording import gettext as _
from companion.web.shell.access import open_link
from companion.web.shell.render_cache import cached, known_bytes, live_parts, page_bytes

Stream = TypeVar("Stream")
Loader = Callable[[Any, str, Header], Stream]
Page = Callable[[], str]
Refusal = Response | tuple[Response, int]
SEE_OTHER = 303  # after a post, the browser fetches the page it is sent to with a GET


def open_stream(
    token: str,
    load: Loader[Stream],
    kind: str | tuple[str, ...] | None = None,
    missing: tuple[type[Exception], ...] = (UnknownStreamError,),
) -> tuple[Capability, Stream]:
    """The capability ``token`` grants and the stream it opens (loaded by ``load``); else 404.

    ``kind`` restricts the link to streams of that kind (a chronicle's link never opens a table);
    ``load`` raising one of ``missing`` means the stream is not there. The link and the stream's
    header are read in one query; ``load`` is given the header.
    """
    cap, header = open_header(token, kind)
    try:
        return cap, load(get_db(), cap.stream_id, header)
    except missing:
        abort(404)


def open_header(token: str, kind: str | tuple[str, ...] | None = None) -> tuple[Capability, Header]:
    """The capability ``token`` grants and its stream's header, without loading the stream (what
    a version poll needs); 404 like ``open_stream``."""
    kinds = (kind,) if isinstance(kind, str) else kind
    return open_link(token, kinds)


def wants_json() -> bool:
    """Whether the client prefers JSON to a page (a script sending ``Accept: application/json``)."""
    accept = request.accept_mimetypes
    return accept["application/json"] > accept["text/html"]


def not_found_message() -> str:
    """Why a link opens nothing here, in the reader's language (pages and the JSON API alike)."""
    return _(
        "This link does not open this page: it may be mistyped, revoked, or allowed to read only. Ask whoever shared it for a new link."
    )


class Unreadable(NotFound):
    """A stream that is there but whose record cannot be read at all; its page says why."""


def unreadable(reason: str) -> NoReturn:
    """Answer with the stream error page (404), saying ``reason`` instead of the usual words."""
    raise Unreadable(reason)


def not_found(err: Exception | None = None) -> Refusal:
    """The one answer for a link that opens nothing here: unknown, revoked, not allowed, or a
    stream whose record cannot be read (``unreadable``). A form posted with such a link is sent
    to the link's page (post/redirect/get): it says the same, and Back never posts again."""
    reason = str(err.description) if isinstance(err, Unreadable) else not_found_message()
    if wants_json():
        return refusal_json(reason, 404, "not-found")
    page = form_page(request.path) if request.method == "POST" else None
    if page is not None:
        # A link that opens nothing is sent to the 404 page, which says why; a link that opens
        # the stream but may not do this (a reader's) to its page, which says it here.
        if not isinstance(err, Unreadable) and capability_for_path(page.group(0)) is not None:
            flash(reason, "error")
        return redirect(request.script_root + page.group(0), SEE_OTHER)
    return make_response(render_template("errors/404.html", reason=reason)), 404


def capability_for_path(page: str) -> Capability | None:
    """The capability of the link a stream page's path holds, if it opens anything."""
    from companion.store.capabilities import resolve

    return resolve(get_db(), page.strip("/").partition("/")[2])


def form_page(path: str) -> re.Match[str] | None:
    """The stream page a form posted to ``path`` belongs to (None for the script's own posts)."""
    found = STREAM_PAGE.match(path)
    return found if found is not None and not path.endswith(("/draft", "/preview")) else None


def use_stream_errors(bp: Blueprint) -> None:
    """Answer every 404 of ``bp`` with the stream error page."""
    bp.register_error_handler(404, not_found)


# The page of the link a path is under: where a refused form is sent. The page's script posts
# its drafts and previews itself: those get their status, never a page.
STREAM_PAGE = re.compile(rf"/[ct]/{TOKEN_PATTERN}/")
# A version is a stream's event count: 18 digits are more than any stream will hold.
VERSION_DIGITS = len(str(NUMBER_LIMIT))


def posted_number(form: Mapping[str, Any], name: str) -> int:
    """A whole number a form sent (a version, a seat); -1 when missing or unreadable.

    Read in bounded time, and only in ASCII digits: ``int`` also reads other scripts' digits
    and refuses thousands of digits with an error."""
    raw = form.get(name, "")
    if not isinstance(raw, str) or not 0 < len(raw) <= VERSION_DIGITS:
        return -1
    return int(raw) if raw.isascii() and raw.isdigit() else -1


def posted_version(form: Mapping[str, Any]) -> int:
    """The version a form was made at; -1 when missing or unreadable."""
    return posted_number(form, "version")


def is_stale(form: Mapping[str, Any], version: int) -> bool:
    """Whether the form was made at another version than the stream's ``version``."""
    return posted_version(form) != version


def refusal_json(message: str, status: int, code: str, **data: Any) -> tuple[Response, int]:
    """A refusal as JSON: ``{"error": message, "code": code, ...}`` with ``status``."""
    return jsonify(error=message, code=code, **data), status


def refuse(message: str, status: int, target: str, code: str = "refused", **data: Any) -> Refusal:
    """Refuse a post: JSON ``{error, code, ...}`` with ``status`` when asked; else the message
    is flashed and the browser sent to ``target`` (post/redirect/get)."""
    if wants_json():
        return refusal_json(message, status, code, **data)
    flash(message, "error")
    return redirect(target, SEE_OTHER)


STALE = "stale-version"


def stale(message: str, version: int, target: str, **data: Any) -> Refusal:
    """409: someone moved first; the page at ``target`` (or JSON) shows the stream now."""
    return refuse(message, 409, target, code=STALE, version=version, **data)


def stale_json(message: str, version: int, **data: Any) -> tuple[Response, int]:
    """The same 409 for a client that reads only JSON (the API), with what it needs to go on."""
    return refusal_json(message, 409, STALE, version=version, **data)


def cache_key(kind: str, cap: Capability, version: int, *more: Hashable) -> tuple[Hashable, ...]:
    """The render-cache key of a stream's page or fragment: what it varies with per viewer.

    Every cached page of a stream is keyed here: the stream and its version, the reader's
    language, and the link's role, seat and write permission, then whatever the page adds
    (``more``), and last the address the page's links are built from (scheme, host and the
    prefix a proxy mounts the app under), so a forged ``X-Forwarded-Prefix`` or ``Host`` shapes
    only the pages served to that same request's address. The viewer's link token and CSRF token
    are not in it: ``render_cache.cached`` cuts them out of the kept HTML and puts this viewer's
    back.
    """
    locale = str(get_locale())
    served = (request.scheme, request.host, request.script_root)
    return (kind, cap.stream_id, version, locale, cap.role, cap.seat, cap.can_write, *more, served)


def known_page(kind: str, token: str, *more: Hashable) -> bytes | None:
    """This request's page, when one was made before from the same picture of the store; the
    page is kept under that picture once made (``cached_page``). None otherwise, or when the
    session holds a message to show. ``more``: whatever else of the session the page reads.

    ``served_state`` is one row of everything in the store a link's page is made from: the
    link's role and seat, the stream's header and version, its drafts and kept words, its
    version's books (``web.shell.echo`` answers again by it). With the request's path and
    query, what its language is chosen by (the session's choice, the browser's languages) and
    the address its links are built from, it decides the page as its own key would
    (``cache_key``), so a page is served without opening the stream: one query instead of the
    link, the replayed state, the drafts and the kept words. Read before the page is made, so
    a change meanwhile only costs a miss. The session's CSRF token and the link are filled in
    per viewer, as for every kept page. What the request brings is kept in the key as one
    digest: no key holds a link, and a long header makes no bigger key.
    """
    if session.get("_flashes") or not current_app.config.get("RENDER_CACHE_BYTES"):
        return None
    row = served_state(get_db(), token)
    if row is None:
        return None  # the page says why
    asked = (
        request.full_path,
        session.get("lang"),
        request.headers.get("Accept-Language"),
        request.scheme,
        request.host,
        request.script_root,
        *more,
    )
    digest = hashlib.sha256(repr(asked).encode("utf-8", "surrogatepass")).hexdigest()
    return known_bytes(("known", kind, row, digest), token)


def cached_page(key: tuple[Hashable, ...], token: str, render: Page) -> bytes:
    """The page ``render`` makes, as UTF-8, rendered once per ``key`` (see ``cache_key``); the
    same request is answered again from it in front of Flask while its stream stands still."""
    return page_bytes(key, render, token=token)


def cached_part(key: tuple[Hashable, ...], token: str, render: Page) -> Markup:
    """A part of a page ``render`` makes, rendered once per ``key``, to put in a template."""
    return cached(key, render, token=token)


def live_part(parts: Mapping[str, str], **values: Any) -> Part | None:
    """The live part a page's feed pushes with each change: the fragment of the endpoint
    ``parts`` names for the page's ``?part=`` (None: the page asked for none, or for one this
    stream has not)."""
    endpoint = parts.get(request.args.get("part", ""))
    return Part(url_for(endpoint, fragment=1, **values), live_parts) if endpoint else None


def live_fragment(key: tuple[Hashable, ...], template: str, context: dict[str, Any]) -> Markup:
    """The live fragment, rendered once per ``key``; the viewer's token is put back in."""
    return cached(key, lambda: render_template(template, **context), token=context["token"])
