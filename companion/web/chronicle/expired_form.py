"""A form refused before its view runs (its CSRF token no longer matches, or a text holds a
character no text may hold): nothing is done, the words it carried are kept where they can be,
and the browser is sent back to the page to press again (post/redirect/get)."""

from __future__ import annotations

import re

from flask import flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _
from werkzeug.datastructures import MultiDict
from werkzeug.wrappers import Response

from companion.store import drafts
from companion.store.capabilities import TOKEN_PATTERN, resolve
from companion.store.db import get_db
from companion.streams import chronicles
from companion.text import input_text
from companion.web.shell import ratelimit, streams

TURN_FORM = re.compile(rf"/c/({TOKEN_PATTERN})/(turn|epilogue)")
SENT_BACK = {"/new": "setup.new_form", "/games/": "tables.lobby"}


def csrf_refused(_reason: str) -> Response | tuple[Response, int]:
    """The answer to a post whose CSRF token is missing, expired or foreign."""
    message = _("The page had expired, so nothing was sent. Press again: what you typed is kept.")
    return send_back(message) or (make_response(render_template("errors/400.html")), 400)


def send_back(message: str) -> Response | None:
    """Send a refused form back to its page with ``message``, its words kept; None when the
    post is not a page's form (a script's, or one that asked for JSON): it gets its status."""
    page = streams.form_page(request.path)
    script = streams.STREAM_PAGE.match(request.path) is not None and page is None
    if request.method != "POST" or streams.wants_json() or script:
        return None
    _keep_words()
    flash(message, "error")
    if page is not None:
        return redirect(request.script_root + page.group(0), streams.SEE_OTHER)
    endpoint = SENT_BACK.get(request.path)
    return redirect(url_for(endpoint or "main.index"), streams.SEE_OTHER)


def _form() -> MultiDict[str, str]:
    """The form's fields, each text with the characters no text may hold shown as U+FFFD."""
    clean = input_text.FORBIDDEN.sub
    return MultiDict([(k, clean("\ufffd", v)) for k, v in request.form.items(multi=True)])


def _keep_words() -> None:
    """Keep what a chronicle's turn (or epilogue) form or the set-up form carried."""
    form = _form()
    found = TURN_FORM.fullmatch(request.path)
    if found is not None:
        from companion.web.chronicle.kept_words import holder, keep_refused

        cap = resolve(get_db(), found.group(1))
        if cap is None or not cap.can_write:
            return
        if found.group(2) == "epilogue" and form.get("epilogue"):
            drafts.keep(get_db(), cap.stream_id, holder(cap), {"epilogue": form["epilogue"]})
        else:
            chronicle = chronicles.load(get_db(), cap.stream_id)
            keep_refused(chronicle, cap, form, streams.posted_version(form))
    elif request.path == "/new" and ratelimit.count_refusal():
        from companion.web.chronicle.setup_form import keepable, read_form
        from companion.web.chronicle.setup_view import hold_form

        hold_form({"values": keepable(read_form(form).values), "errors": {}})
