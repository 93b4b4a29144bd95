"""A chronicle's links page: the shared links sheet, one card per player and a read-only link."""

from __future__ import annotations

from flask import Blueprint, url_for

from companion.streams import chronicles
from companion.text.wording import gettext as _
from companion.web.chronicle.opening import open_chronicle
from companion.web.shell import links_sheet

# Nested in the chronicle blueprint (``companion.web.chronicle``): ``/c/<token>/links``.
bp = Blueprint("links", __name__)


def _sheet(chronicle: chronicles.Chronicle) -> links_sheet.Sheet:
    return links_sheet.Sheet(
        template="chronicle/links.html",
        opens="chronicle.play",
        manage="chronicle.links.manage_links",
        stream_id=chronicle.id,
        seats=list(chronicle.state.setup.players),
        revoked=_("The link was revoked: it no longer opens this chronicle."),
    )


def _page(token: str, chronicle: chronicles.Chronicle) -> dict[str, object]:
    return {
        "chronicle": chronicle,
        "state": chronicle.state,
        "host_url": url_for("chronicle.play", token=token, _external=True),
    }


@bp.get("/links")
def links(token: str) -> str:
    """The host's page of join links: per seat, read-only, with QR codes; revoke and reissue."""
    cap, chronicle = open_chronicle(token)
    return links_sheet.show(token, cap, _sheet(chronicle), **_page(token, chronicle))


@bp.post("/links")
def manage_links(token: str) -> links_sheet.Answer:
    """Make links (one seat, the reader, or everyone at once), or revoke one."""
    cap, chronicle = open_chronicle(token)
    return links_sheet.manage(token, cap, _sheet(chronicle), **_page(token, chronicle))
