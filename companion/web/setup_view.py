"""Setting up a new chronicle."""

from __future__ import annotations

from flask import (
    Blueprint,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import get_locale
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from .. import chronicles, ratelimit
from ..db import get_db
from ..legacy import RuleError
from ..packs.registry import list_packs
from .access import remember
from .packs_view import pack_store
from .setup_form import blank_form, check_form, read_form
from .text_errors import rule_message

bp = Blueprint("setup", __name__)


def _packs() -> list:
    return list_packs(pack_store())


@bp.get("/new")
def new_form() -> str:
    """The setup form, in the reader's language by default."""
    return render_template(
        "chronicle/new.html", sheet=blank_form(str(get_locale())), packs=_packs()
    )


@bp.post("/new")
def create() -> Response | tuple[str, int]:
    """Create the chronicle, or show the form again with every field as typed."""
    sheet = read_form(request.form)
    setup = check_form(sheet, _packs())
    if setup is not None:
        ratelimit.check_creation()
        try:
            created = chronicles.create(get_db(), setup)
        except RuleError as err:
            sheet.errors["form"] = rule_message(err)
        else:
            url = url_for("chronicle.play", token=created.host_token)
            fresh = [{"token": created.reader_token, "role": "reader", "seat": None}]
            session["fresh_links"] = {created.id: fresh}
            remember(url)
            flash(
                _("The chronicle has begun. Keep this page's address: it is the host's key."),
                "success",
            )
            return redirect(url_for("chronicle.links", token=created.host_token, new=1))
    return render_template("chronicle/new.html", sheet=sheet, packs=_packs()), 400
