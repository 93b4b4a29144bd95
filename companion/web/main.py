"""The start page and site-wide pages."""

from __future__ import annotations

from flask import (
    Blueprint,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from werkzeug.wrappers import Response

from .. import LANGUAGES
from ..export.supervisor import health
from .access import opened_chronicles

bp = Blueprint("main", __name__)


@bp.get("/")
def index() -> str:
    """What this is, a new chronicle, and the chronicles this browser has opened."""
    return render_template("main/index.html", opened=opened_chronicles())


@bp.get("/healthz")
def healthz() -> tuple[Response, int]:
    """Health checks (503 when the export worker's heartbeat is stale); a hello-world baseline."""
    export_worker, healthy = health(current_app.config)
    answer = {"status": "ok" if healthy else "degraded", "export_worker": export_worker}
    return jsonify(answer), 200 if healthy else 503


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


@bp.post("/demo")
def demo() -> Response:
    """Open a fresh copy of the sample life, to read and to try."""
    from .. import ratelimit
    from ..db import get_db
    from ..demo import create_demo
    from .access import remember

    ratelimit.check_creation()
    language = request.form.get("lang", "en")
    if language not in LANGUAGES:
        language = "en"
    created = create_demo(get_db(), language)
    url = url_for("chronicle.play", token=created.host_token)
    remember(url)
    return redirect(url_for("story.log", token=created.host_token))
