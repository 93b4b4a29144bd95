"""Prompt packs in the browser: list, preview all 52 cards, download, upload."""

from __future__ import annotations

from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from ..legacy.cards import PILE_CARDS, PILES, STAGES
from ..packs.format import PackError
from ..packs.registry import (
    UnknownPackError,
    get_pack,
    list_packs,
    pack_to_text,
    save_pack,
    shipped_names,
)
from . import downloads

bp = Blueprint("packs", __name__, url_prefix="/packs")
UPLOAD_LIMIT = 200 * 1024


def _user_dir() -> str:
    return str(current_app.config["PACKS_DIR"])


@bp.get("/")
def index() -> str:
    """Every installed pack with its languages, and the upload form."""
    return render_template(
        "packs/index.html", packs=list_packs(_user_dir()), shipped=shipped_names(), problems=[]
    )


@bp.get("/<name>/<language>")
def preview(name: str, language: str) -> str:
    """All 52 cards of a pack, pile by pile."""
    try:
        pack = get_pack(name, language, _user_dir())
    except UnknownPackError:
        abort(404)
    return render_template(
        "packs/preview.html", pack=pack, stages=STAGES, piles=PILES, pile_cards=PILE_CARDS
    )


@bp.get("/<name>/<language>/download")
def download(name: str, language: str) -> Response:
    """The pack as its Markdown file."""
    try:
        pack = get_pack(name, language, _user_dir())
    except UnknownPackError:
        abort(404)
    body = pack_to_text(pack).encode("utf-8")
    return downloads.download(
        body, "text/markdown; charset=utf-8", f"{pack.name}.{pack.language}.md"
    )


@bp.post("/upload")
def upload() -> Response | tuple[str, int]:
    """Validate an uploaded pack file and install it; every problem is listed on failure."""
    file = request.files.get("pack")
    if file is None or not file.filename:
        flash(_("Choose a pack file to upload."), "error")
        return redirect(url_for("packs.index"))
    data = file.read(UPLOAD_LIMIT + 1)
    try:
        pack = save_pack(data, _user_dir(), source=file.filename)
    except PackError as err:
        return render_template(
            "packs/index.html",
            packs=list_packs(_user_dir()),
            shipped=shipped_names(),
            problems=[str(p) for p in getattr(err, "problems", [err])],
            filename=file.filename,
        ), 400
    flash(
        _(
            "Installed the pack “%(name)s” (%(lang)s).",
            name=pack.title or pack.name,
            lang=pack.language,
        ),
        "success",
    )
    return redirect(url_for("packs.preview", name=pack.name, language=pack.language))
