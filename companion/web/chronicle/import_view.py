"""Import in the browser: a JSON backup becomes a new chronicle whose host link goes to the
browser that uploaded it."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, request, url_for
from werkzeug.wrappers import Response

from companion.base.errors import TemplatedError
from companion.export.backup import import_backup, import_limits
from companion.export.errors import BackupError
from companion.store.db import get_db
from companion.text.wording import gettext as _
from companion.web.shell import ratelimit
from companion.web.shell.access import remember
from companion.web.shell.text_errors import rule_message

import_bp = Blueprint("imports", __name__)

# Multipart framing around the file: boundaries, part headers and the CSRF field.
UPLOAD_OVERHEAD = 64 * 1024


@import_bp.url_value_preprocessor
def _allow_whole_backups(endpoint: str | None, values: dict[str, Any] | None) -> None:
    """Let the import form carry any backup this app exports (requests elsewhere stay capped).

    A URL value preprocessor runs before every before_request hook, so the limit is raised
    before the CSRF check reads the form.
    """
    if endpoint == "imports.upload":
        request.max_content_length = import_limits()[0] + UPLOAD_OVERHEAD


@import_bp.post("/import")
@ratelimit.limited_like_creation
def upload() -> Response:
    """Create a new chronicle from a JSON backup, then open it as its host.

    A client whose imports were refused too often lately is refused before its file is read:
    each refusal may have cost a parse."""
    ratelimit.refusals_left()
    upload = request.files.get("backup")
    if upload is None or not upload.filename:
        return _refuse_import(_("Choose a backup file (.json) to import."))
    try:
        created = import_backup(get_db(), upload.read(import_limits()[0] + 1))
    except BackupError as err:
        ratelimit.count_refusal()
        return _refuse_import(backup_message(err))
    url = url_for("chronicle.play", token=created.host_token)
    remember(url)
    flash(_("The chronicle is imported. This is its host link: keep it."), "success")
    return redirect(url)


def backup_message(err: BackupError) -> str:
    """A refused backup's message in the reader's language."""
    params = dict(err.params)
    if err.cause is not None:
        cause = err.cause
        params["problem"] = rule_message(cause) if isinstance(cause, TemplatedError) else str(cause)
    try:
        return _(err.message) % params
    except (KeyError, TypeError, ValueError):
        return str(err)


def _refuse_import(message: str) -> Response:
    """A refused backup: the start page says why (post/redirect/get: Back never posts again)."""
    flash(message, "error")
    return redirect(url_for("main.index", _anchor="import"), 303)
