"""Prompt packs in the browser: list, preview all 52 cards, download, upload."""

from __future__ import annotations

import secrets
from typing import Any

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from werkzeug.wrappers import Response

from companion.legacy.cards import PILE_CARDS, PILES, STAGES
from companion.packs.format import PackError
from companion.packs.registry import (
    PackLimitError,
    UnknownPackError,
    get_pack,
    list_packs,
    pack_to_text,
    shipped_names,
    upload_pack,
)
from companion.packs.stored import import_folder
from companion.store.db import get_db
from companion.text import input_text
from companion.text.wording import gettext as _
from companion.web.shell import downloads, ratelimit
from companion.web.shell.text_errors import rule_message

bp = Blueprint("packs", __name__, url_prefix="/packs")
UPLOAD_LIMIT = 200 * 1024
MAX_PACKS = 100  # packs (name and language) per store (PACKS_MAX)
MAX_OWNED = 10  # packs per uploader, kept in the uploader's session (PACKS_PER_CLIENT)
_IMPORTED = "companion.packs_imported"


def pack_store() -> Any:
    """The request's database, where uploaded packs live.

    The first use in a process imports the pack files older versions kept in ``PACKS_DIR``;
    rows already stored win, so each server sharing a store may do it safely.
    """
    db = get_db()
    if not current_app.extensions.get(_IMPORTED):
        import_folder(db, current_app.config["PACKS_DIR"], shipped_names())
        current_app.extensions[_IMPORTED] = True
    return db


def _browser() -> str:
    """This browser's id, kept in its session: the owner recorded with its uploads."""
    if "browser" not in session:
        session["browser"] = secrets.token_hex(16)
    return str(session["browser"])


@bp.get("/")
def index() -> str:
    """Every installed pack with its languages, and the upload form."""
    return _index_page([])


def _index_page(problems: list[str], filename: str = "") -> str:
    return render_template(
        "packs/index.html",
        packs=list_packs(pack_store()),
        shipped=shipped_names(),
        mine=session.get("packs", []),
        problems=problems,
        filename=filename,
    )


@bp.get("/<name>/<language>")
def preview(name: str, language: str) -> str:
    """All 52 cards of a pack, pile by pile."""
    try:
        pack = get_pack(name, language, pack_store())
    except UnknownPackError:
        abort(404)
    return render_template(
        "packs/preview.html", pack=pack, stages=STAGES, piles=PILES, pile_cards=PILE_CARDS
    )


@bp.get("/<name>/<language>/download")
def download(name: str, language: str) -> Response:
    """The pack as its Markdown file."""
    try:
        pack = get_pack(name, language, pack_store())
    except UnknownPackError:
        abort(404)
    body = pack_to_text(pack).encode("utf-8")
    return downloads.download(
        body, "text/markdown; charset=utf-8", f"{pack.name}.{pack.language}.md"
    )


def _refused_character(data: bytes) -> str | None:
    """The reader's sentence for a pack that holds a refused character (its line), if any."""
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        try:
            input_text.check(line)
        except input_text.BadCharacterError as err:
            return _("Line %(line)d:", line=number) + " " + rule_message(err)
    return None


@bp.post("/upload")
@ratelimit.limited_like_creation
def upload() -> Response | tuple[str, int]:
    """Validate an uploaded pack file and install it; every problem is listed on failure."""
    file = request.files.get("pack")
    if file is None or not file.filename:
        flash(_("Choose a pack file to upload."), "error")
        return redirect(url_for("packs.index"))
    data = file.read(UPLOAD_LIMIT + 1)
    refused = _refused_character(data)
    if refused is not None:
        return _index_page([f"{file.filename}: {refused}"], file.filename), 400
    owned = list(session.get("packs", []))
    try:
        pack = upload_pack(
            data,
            pack_store(),
            owned,
            max_packs=int(current_app.config.get("PACKS_MAX", MAX_PACKS)),
            max_owned=int(current_app.config.get("PACKS_PER_CLIENT", MAX_OWNED)),
            source=file.filename,
            owner=_browser(),
        )
    except PackError as err:
        return _index_page([str(p) for p in getattr(err, "problems", [err])], file.filename), 400
    except PackLimitError as err:
        message = (
            _("You have uploaded %(n)d packs, as many as one person may here.", n=len(owned))
            if err.whose == "uploader"
            else _(
                "This server holds as many prompt packs as it can take. Ask its owner to make room."
            )
        )
        return _index_page([message], file.filename), 400
    if pack.name not in owned:
        session["packs"] = [*owned, pack.name]
        session.permanent = True
    flash(
        _(
            "Installed the pack “%(name)s” (%(lang)s).",
            name=pack.title or pack.name,
            lang=pack.language,
        ),
        "success",
    )
    return redirect(url_for("packs.preview", name=pack.name, language=pack.language))
