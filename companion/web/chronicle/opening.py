"""Opening a chronicle from its link, and the seat a command from that link is issued for."""

from __future__ import annotations

from flask import g

from companion.store.capabilities import Capability
from companion.streams import chronicles
from companion.web.shell import streams


def open_chronicle(token: str) -> tuple[Capability, chronicles.Chronicle]:
    """The capability a link grants and the chronicle it opens; the stream error page otherwise."""
    cap, chronicle = streams.open_stream(token, chronicles.load, chronicles.KIND)
    # Without an explicit choice, the interface follows the chronicle's language.
    g.content_language = chronicle.state.setup.language
    return cap, chronicle


def acting_seat(cap: Capability, chronicle: chronicles.Chronicle) -> int:
    """The seat a command from this link is issued for: the host acts for whoever's turn it is."""
    if cap.role == "seat" and cap.seat is not None:
        return cap.seat
    return chronicle.state.seat
