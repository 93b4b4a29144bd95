"""The start page and site-wide pages."""

from __future__ import annotations

from flask import Blueprint, redirect, render_template, request, session, url_for
from werkzeug.wrappers import Response

from .. import LANGUAGES

bp = Blueprint("main", __name__)


@bp.get("/")
def index() -> str:
    """What this is, a new chronicle, and the chronicles this browser has opened."""
    opened = session.get("opened", [])
    return render_template("main/index.html", opened=opened)


@bp.post("/language")
def set_language() -> Response:
    """Switch the interface language and go back where the reader was."""
    lang = request.form.get("lang", "")
    if lang in LANGUAGES:
        session["lang"] = lang
        session.permanent = True
    target = request.form.get("next", "")
    if not target.startswith("/") or target.startswith("//"):
        target = url_for("main.index")
    return redirect(target)
