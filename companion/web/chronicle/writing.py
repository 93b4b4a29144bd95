"""Who is writing the turn's texts right now, and, when the group chose to show them, the words
so far: every open page shows it live, read-only, refreshed with the live fragment."""

from __future__ import annotations

from dataclasses import dataclass

from companion.store import drafts
from companion.store.capabilities import Capability
from companion.store.db import get_db
from companion.streams import chronicles
from companion.text.bidi import isolate
from companion.text.wording import gettext as _
from companion.web.chronicle.turn_form import TEXT_FIELDS

COMPOSING = frozenset({"choose", "answer", "stakes", "roll"})


@dataclass(frozen=True)
class Writing:
    """What a page says of the texts being typed: who types, and what (for this viewer)."""

    who: tuple[str, ...] = ()
    texts: tuple[tuple[str, str], ...] = ()  # (field, text) shown read-only


def writing_now(
    chronicle: chronicles.Chronicle,
    cap: Capability,
    can_act: bool,
    fields: frozenset[str],
    mark: str,
    rows: list[drafts.Draft] | None = None,
) -> Writing:
    """Who (another link than ``mark``) is typing the step's ``fields``, and the texts this
    viewer may read: none with the group's choice off, nor where its own form shows them.
    ``rows`` are the turn's drafts when the caller read them already."""
    state = chronicle.state
    if state.ended:
        return Writing()
    if rows is None:
        rows = drafts.rows_for_turn(get_db(), chronicle.id, state.turn_no)
    typed = [
        draft
        for draft in rows
        if draft.field in fields and draft.field in TEXT_FIELDS and draft.text.strip()
    ]
    actors = sorted(
        {
            str(draft.author).partition(" ")[0]
            for draft in typed
            if drafts.holder_of(draft.author) not in (None, mark)
        }
    )
    who = tuple(_sentence(chronicle, actor) for actor in actors)
    if not state.setup.show_writing or can_act or state.step in COMPOSING:
        return Writing(who)
    shown = sorted(
        ((d.field, d.text) for d in typed if d.private_to is None),
        key=lambda pair: TEXT_FIELDS.index(pair[0]),
    )
    return Writing(who, tuple(shown))


def _sentence(chronicle: chronicles.Chronicle, actor: str) -> str:
    players = chronicle.state.setup.players
    if actor == "host":
        return _("The host is writing for %(who)s…", who=isolate(chronicle.state.player))
    seat = actor.partition(":")[2]
    index = int(seat) if seat.isascii() and seat.isdigit() else -1
    name = players[index] if 0 <= index < len(players) else chronicle.state.player
    return _("%(who)s is writing…", who=isolate(name))
