"""The host's links sheet of any stream: every seat's link and a reader's, made in one step.

A link is stored only as a fingerprint, so its address can be shown only when it is made. A
newly made set stays on the host's page while they work on it: the page's forms send the set
back (``keep``), and the server shows again only those that still open this stream. Revoking
one link leaves every other link working. Every post is answered with a redirect to the sheet
(the set it shows travels in the sealed session, once), so Back never asks to post again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from flask import abort, flash, redirect, render_template, request, session, url_for
from werkzeug.wrappers import Response

from companion.store import capabilities
from companion.store.capabilities import Capability
from companion.store.db import get_db
from companion.text.wording import gettext as _
from companion.web.shell import streams

# More than a full table (eight seats and a reader) is never kept.
MAX_KEPT = 12
# Links in use per stream besides the host's: every seat several times over and many readers,
# while the page that lists them (and re-renders them on each post) stays small.
MAX_LINKS = 64
SEAT_VALUE = re.compile(r"seat-([0-9]{1,2})")  # ASCII digits only: int() reads others too
Answer = str | Response | tuple[Response, int]


@dataclass(frozen=True)
class Sheet:
    """One stream as its links sheet sees it."""

    template: str  # the page, which includes ``_links_sheet.html``
    opens: str  # the endpoint a link opens (its only argument is the token)
    manage: str  # the endpoint of the sheet's forms
    stream_id: str
    seats: list[str | None]  # each seat's name; None for a seat no person holds (a bot)
    revoked: str  # the sentence flashed when a link is revoked
    bare_post: str = "reader"  # what a post that names nothing makes

    def url(self, token: str) -> str:
        """The full address a link opens."""
        return url_for(self.opens, token=token, _external=True)

    def people(self) -> list[int]:
        """The seats that get a link of their own."""
        return [seat for seat, name in enumerate(self.seats) if name is not None]


def qr_svg(url: str) -> str:
    """A QR code of ``url`` as inline SVG."""
    import segno

    return str(segno.make(url, error="m").svg_inline(scale=4, dark="#221d18", light="#fffdf8"))


def host_only(cap: Capability) -> None:
    """Only the host link manages links; any other gets the same 404 as an unknown link."""
    if cap.role != "host":
        abort(404)


def show(token: str, cap: Capability, sheet: Sheet, **page: Any) -> str:
    """The sheet as the host opens it: links made at setup are shown once, then only listed."""
    host_only(cap)
    fresh = session.pop("fresh_links", {}).get(sheet.stream_id, [])
    return render(token, cap, sheet, [f["token"] for f in fresh], **page)


def manage(token: str, cap: Capability, sheet: Sheet, **page: Any) -> Answer:
    """Make links (one seat, the reader, or everyone at once), or revoke one."""
    host_only(cap)
    kept = request.form.getlist("keep")[:MAX_KEPT]
    revoke_hash = request.form.get("revoke", "")
    if revoke_hash:
        if capabilities.revoke(get_db(), sheet.stream_id, revoke_hash):
            flash(sheet.revoked, "success")
        return _show_next(token, sheet, kept)
    wanted = request.form.get("issue", sheet.bare_post)
    roles = _everyone(sheet) if wanted == "everyone" else _requested(wanted, sheet)
    made = capabilities.issue_within(get_db(), sheet.stream_id, roles, MAX_LINKS) if roles else None
    if made is None:
        return _refuse(token, sheet, kept, bool(roles))
    return _show_next(token, sheet, made if wanted == "everyone" else [*kept, *made])


def _show_next(token: str, sheet: Sheet, tokens: list[str]) -> Response:
    """Send the host to the sheet, which shows ``tokens`` once (they travel sealed)."""
    if tokens:
        session["fresh_links"] = {sheet.stream_id: [{"token": t} for t in tokens[-MAX_KEPT:]]}
    return redirect(url_for(sheet.manage, token=token), streams.SEE_OTHER)


def _refuse(token: str, sheet: Sheet, kept: list[str], full: bool) -> Answer:
    """Make nothing: the post asked for no link this sheet makes (400), or too many are in use."""
    if full:
        message = _(
            "At most %(n)d links can be in use at once: revoke the links nobody needs, then make new ones.",
            n=MAX_LINKS,
        )
    else:
        message = _("Choose whose link to make from the buttons on this page.")
    if streams.wants_json():
        return streams.refusal_json(
            message, 409 if full else 400, "too-many-links" if full else "refused"
        )
    flash(message, "error")
    return _show_next(token, sheet, kept)


def _everyone(sheet: Sheet) -> list[tuple[str, int | None]]:
    return [*(("seat", seat) for seat in sheet.people()), ("reader", None)]


def _requested(value: str, sheet: Sheet) -> list[tuple[str, int | None]]:
    """The one link ``value`` asks for (``reader`` or ``seat-<n>`` of a person); else none."""
    if value == "reader":
        return [("reader", None)]
    found = SEAT_VALUE.fullmatch(value)
    if found is not None and int(found.group(1)) in sheet.people():
        return [("seat", int(found.group(1)))]
    return []


def _live(sheet: Sheet, tokens: list[str]) -> list[dict[str, Any]]:
    """The made links that still open this stream as a seat or a reader, seats first."""
    shown = []
    for token in dict.fromkeys(tokens):
        cap = capabilities.resolve(get_db(), token)
        if cap is None or cap.stream_id != sheet.stream_id or cap.role == "host":
            continue
        url = sheet.url(token)
        name = sheet.seats[cap.seat] if cap.seat is not None else None
        shown.append(
            {"token": token, "role": cap.role, "seat": cap.seat, "name": name, "url": url}
            | {"qr": qr_svg(url), "hash": cap.token_hash}
        )
    return sorted(shown, key=lambda f: (f["seat"] is None, f["seat"] or 0))


def render(token: str, cap: Capability, sheet: Sheet, tokens: list[str], **page: Any) -> str:
    """The page: the fresh links' cards, the forms that make links, and the links in use."""
    active = [c for c in capabilities.active(get_db(), sheet.stream_id) if c.role != "host"]
    fresh = _live(sheet, tokens)
    return render_template(
        sheet.template,
        token=token,
        cap=cap,
        fresh=fresh,
        several=len(fresh) > 1,
        seats=sheet.seats,
        manage_url=url_for(sheet.manage, token=token),
        active=sorted(active, key=lambda c: (c.seat is None, c.seat or 0)),
        on_sheet={f["hash"] for f in fresh},
        **page,
    )
