"""The host's links page: a printable sheet of every seat's link and the reader's, and revoking.

A link is stored only as a fingerprint, so its address can be shown only when it is made. A
newly made set stays on the host's page while they work on it: the page's forms send the set
back (``keep``), and the server shows again only those that still open this chronicle.
"""

from __future__ import annotations

from typing import Any

from flask import abort, flash, redirect, render_template, request, session, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from .. import capabilities, chronicles
from ..capabilities import Capability
from ..db import get_db
from .chronicle import _open, bp

# More than a full table (eight seats and a reader) is never kept.
MAX_KEPT = 12


def _link_url(token: str) -> str:
    return url_for("chronicle.play", token=token, _external=True)


def qr_svg(url: str) -> str:
    import segno

    return str(segno.make(url, error="m").svg_inline(scale=4, dark="#221d18", light="#fffdf8"))


@bp.get("/links")
def links(token: str) -> str:
    """The host's page of join links: per seat, read-only, with QR codes; revoke and reissue."""
    cap, chronicle = _open(token)
    _host_only(cap)
    fresh = session.pop("fresh_links", {}).get(chronicle.id, [])
    return _links_page(token, cap, chronicle, [f["token"] for f in fresh])


@bp.post("/links")
def manage_links(token: str) -> str | Response:
    """Make links (one seat, the reader, or everyone at once), or revoke one."""
    cap, chronicle = _open(token)
    _host_only(cap)
    kept = request.form.getlist("keep")[:MAX_KEPT]
    revoke_hash = request.form.get("revoke", "")
    if revoke_hash:
        if capabilities.revoke(get_db(), chronicle.id, revoke_hash):
            flash(_("The link was revoked: it no longer opens this chronicle."), "success")
        if not kept:
            return redirect(url_for("chronicle.links", token=token))
        return _links_page(token, cap, chronicle, kept)
    players = len(chronicle.state.setup.players)
    wanted = request.form.get("issue", "")
    roles = _everyone(players) if wanted == "everyone" else [_requested_role(wanted, players)]
    made = [capabilities.issue(get_db(), chronicle.id, role, seat) for role, seat in roles]
    return _links_page(token, cap, chronicle, made if wanted == "everyone" else [*kept, *made])


def _host_only(cap: Capability) -> None:
    if cap.role != "host":
        abort(404)


def _everyone(players: int) -> list[tuple[str, int | None]]:
    return [*(("seat", seat) for seat in range(players)), ("reader", None)]


def _requested_role(value: str, players: int) -> tuple[str, int | None]:
    if value.startswith("seat-") and value[5:].isdigit() and int(value[5:]) < players:
        return "seat", int(value[5:])
    return "reader", None


def _live(chronicle: chronicles.Chronicle, tokens: list[str]) -> list[dict[str, Any]]:
    """The made links that still open this chronicle as a seat or a reader, seats first."""
    shown = []
    for token in dict.fromkeys(tokens):
        cap = capabilities.resolve(get_db(), token)
        if cap is None or cap.stream_id != chronicle.id or cap.role == "host":
            continue
        url = _link_url(token)
        name = chronicle.state.setup.players[cap.seat] if cap.seat is not None else None
        shown.append(
            {"token": token, "role": cap.role, "seat": cap.seat, "name": name, "url": url}
            | {"qr": qr_svg(url), "hash": cap.token_hash}
        )
    return sorted(shown, key=lambda f: (f["seat"] is None, f["seat"] or 0))


def _links_page(
    token: str, cap: Capability, chronicle: chronicles.Chronicle, tokens: list[str]
) -> str:
    active = [c for c in capabilities.active(get_db(), chronicle.id) if c.role != "host"]
    fresh = _live(chronicle, tokens)
    return render_template(
        "chronicle/links.html",
        token=token,
        cap=cap,
        chronicle=chronicle,
        state=chronicle.state,
        fresh=fresh,
        sheet=len(fresh) > 1,
        host_url=_link_url(token),
        active=sorted(active, key=lambda c: (c.seat is None, c.seat or 0)),
        on_sheet={f["hash"] for f in fresh},
    )
