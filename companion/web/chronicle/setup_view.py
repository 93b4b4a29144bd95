"""Setting up a new chronicle."""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    current_app,
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

from companion.base import bounds
from companion.legacy import RuleError
from companion.packs.format import Pack
from companion.packs.registry import list_packs
from companion.store import held_forms
from companion.store.db import get_db
from companion.streams import chronicles
from companion.web.chronicle.packs_view import pack_store
from companion.web.chronicle.setup_form import (
    SetupForm,
    blank_form,
    check_form,
    keepable,
    read_form,
)
from companion.web.shell import ratelimit
from companion.web.shell.access import remember
from companion.web.shell.streams import SEE_OTHER
from companion.web.shell.text_errors import rule_message

bp = Blueprint("setup", __name__)
HELD = "new"  # the held form's kind (and its key in the session)


def _packs() -> list[Pack]:
    return list_packs(pack_store())


@bp.get("/new")
def new_form() -> str:
    """The setup form, in the reader's language by default; after a refused post, as typed."""
    held = held_forms.find(get_db(), HELD, session.get("held", {}).get(HELD))
    if isinstance(held, dict) and isinstance(held.get("values"), dict):
        sheet = SetupForm(held["values"], dict(held.get("errors") or {}))
    else:
        sheet = blank_form(str(get_locale()))
    return render_template("chronicle/new.html", sheet=sheet, packs=_packs())


@bp.post("/new")
def create() -> Response:
    """Create the chronicle, or send the form back as typed with what is wrong (post/redirect/get).

    A solo writer goes straight to the table (the links page stays one click away, in the
    menu); a group goes to the links page to share the seats' links first.
    """
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
            _let_go()
            remember(url)
            if len(setup.players) == 1:
                flash(
                    _(
                        "The chronicle has begun. Keep this page's address: it is your key; the read-only link is under Links."
                    ),
                    "success",
                )
                return redirect(url)
            flash(
                _("The chronicle has begun. Keep this page's address: it is the host's key."),
                "success",
            )
            return redirect(url_for("chronicle.links.links", token=created.host_token, new=1))
    ratelimit.refusals_left()  # 429 for a client refused too often: nothing more is kept
    ratelimit.count_refusal()
    hold_form({"values": keepable(sheet.values), "errors": sheet.errors})
    return redirect(url_for("setup.new_form", _anchor="setup-errors"), SEE_OTHER)


def hold_form(data: dict[str, Any]) -> None:
    """Keep a refused set-up form for this browser, in place of the one it kept before."""
    before = session.get("held", {})
    limit = bounds.whole(current_app.config, "HELD_FORM_BYTES")
    held = held_forms.hold(get_db(), HELD, data, limit, replaces=before.get(HELD))
    session["held"] = {**before, HELD: held}


def _let_go() -> None:
    """The set-up was taken: forget the form held for this browser."""
    held = dict(session.get("held", {}))
    if HELD in held:
        held_forms.drop(get_db(), held.pop(HELD))
        session["held"] = held
