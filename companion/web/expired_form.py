"""A form whose CSRF token no longer matches (its page was opened in another session, or the
browser lost its cookie): nothing is done, the words it carried are kept where they can be,
and the browser is sent back to the page to press again (post/redirect/get)."""

from __future__ import annotations

import re

from flask import flash, make_response, redirect, render_template, request, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from .. import chronicles, held_forms
from ..capabilities import resolve
from ..db import get_db
from . import streams

TURN_FORM = re.compile(r"/c/([A-Za-z0-9_-]{1,100})/(turn|epilogue)")
SENT_BACK = {"/new": "setup.new_form", "/games/": "tables.lobby"}


def csrf_refused(_reason: str) -> Response | tuple[Response, int]:
    """The answer to a post whose CSRF token is missing, expired or foreign."""
    page = streams.form_page(request.path)
    script = streams.STREAM_PAGE.match(request.path) is not None and page is None
    if request.method != "POST" or streams.wants_json() or script:
        return make_response(render_template("errors/400.html")), 400
    _keep_words()
    flash(
        _("The page had expired, so nothing was sent. Press again: what you typed is kept."),
        "error",
    )
    if page is not None:
        return redirect(request.script_root + page.group(0), streams.SEE_OTHER)
    endpoint = SENT_BACK.get(request.path)
    return redirect(url_for(endpoint or "main.index"), streams.SEE_OTHER)


def _keep_words() -> None:
    """Keep what a chronicle's turn (or epilogue) form or the set-up form carried."""
    from flask import session

    found = TURN_FORM.fullmatch(request.path)
    if found is not None:
        from .kept_words import holder, keep_refused

        cap = resolve(get_db(), found.group(1))
        if cap is not None and cap.can_write:
            chronicle = chronicles.load(get_db(), cap.stream_id)
            if found.group(2) == "epilogue" and request.form.get("epilogue"):
                from .. import drafts

                drafts.keep(
                    get_db(), cap.stream_id, holder(cap), {"epilogue": request.form["epilogue"]}
                )
            else:
                keep_refused(chronicle, cap, request.form, streams.posted_version(request.form))
    elif request.path == "/new":
        from .setup_form import read_form
        from .setup_view import HELD

        values = read_form(request.form).values
        held = held_forms.hold(get_db(), HELD, {"values": values, "errors": {}})
        session["held"] = {**session.get("held", {}), HELD: held}
