"""The host's "delete this chronicle" (and "delete this table"): a page that says what goes, and a
form that deletes only when the host types the Pioneer's name (or the table's name).

Only the host's link opens it (any other gets the same 404 as an unknown link); the form carries
the CSRF token every form does. Deleting removes the stream and everything kept for it
(``companion.ops.deletion``), then says on the start page what was removed.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from companion.ops import deletion
from companion.store.capabilities import Capability
from companion.store.db import get_db
from companion.streams.chronicles import KIND
from companion.text.wording import gettext as _
from companion.web.chronicle.opening import open_chronicle
from companion.web.tables.pages import open_table

bp = Blueprint("deletion", __name__)
Answer = str | Response | tuple[str, int]


@bp.route("/c/<token>/delete", methods=["GET", "POST"])
def chronicle(token: str) -> Answer:
    """Delete this chronicle, once the host has typed the Pioneer's name."""
    cap, loaded = open_chronicle(token)
    page = {
        "title": _("Delete this chronicle"),
        "name": loaded.state.setup.pioneer,
        "ask": _("To delete it, type the Pioneer's name:"),
        "back": url_for("chronicle.links.links", token=token),
    }
    return _delete(cap, loaded.id, [KIND], page)


@bp.route("/t/<token>/delete", methods=["GET", "POST"])
def table(token: str) -> Answer:
    """Delete this card table, once the host has typed its name."""
    cap, match = open_table(token)
    stream = deletion.find(get_db(), match.id, [match.key])
    page = {
        "title": _("Delete this table"),
        "name": stream.title if stream is not None else match.key,
        "ask": _("To delete it, type the table's name:"),
        "back": url_for("tables.links", token=token),
    }
    return _delete(cap, match.id, [match.key], page)


def _delete(cap: Capability, stream_id: str, kinds: list[str], page: dict[str, Any]) -> Answer:
    if cap.role != "host":
        abort(404)
    db, exports = get_db(), Path(current_app.config["EXPORTS_DIR"])
    stream = deletion.find(db, stream_id, kinds)
    if stream is None:
        abort(404)
    if request.method == "GET":
        return _page(deletion.inventory(db, stream, exports), page)
    if not _same(request.form.get("name", ""), page["name"]):
        flash(_("The name you typed is not this one: nothing was deleted."), "error")
        return redirect(request.path, 303)  # the page again (post/redirect/get)
    removed = deletion.delete(db, stream, exports)
    flash(
        _(
            "“%(name)s” is deleted from this server. Removed: %(events)d events, %(drafts)d"
            " drafts, %(links)d links, %(books)d books.",
            name=page["name"],
            events=removed.count("events"),
            drafts=removed.count("drafts"),
            links=removed.count("capabilities"),
            books=removed.count("exports"),
        ),
        "success",
    )
    return redirect(url_for("main.index"))


def _page(kept: deletion.Removed, page: dict[str, Any]) -> str:
    return render_template("delete.html", kept=kept, **page)


def _same(typed: str, name: str) -> bool:
    """Whether the host typed the name (spaces and Unicode forms aside)."""

    def plain(text: str) -> str:
        return " ".join(unicodedata.normalize("NFKC", text).split()).casefold()

    return bool(plain(typed)) and plain(typed) == plain(name)
