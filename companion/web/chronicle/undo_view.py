"""The undo button: what it would take back, said before the click, and who may press it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.legacy import State
from companion.legacy.undo import last_decision, refusal
from companion.store.capabilities import Capability
from companion.text.bidi import isolate
from companion.text.terms import card_name
from companion.text.wording import gettext as _
from companion.web.shell.text_errors import rule_message


@dataclass(frozen=True)
class UndoOffer:
    """The decision Undo would take back now, and whether this link may take it back."""

    label: str
    allowed: bool
    reason: str = ""


def undo_seat(cap: Capability, state: State) -> int:
    """The seat an Undo from this link is issued for: the host's for whoever made the decision."""
    if cap.role == "seat" and cap.seat is not None:
        return cap.seat
    record = last_decision(state)
    return int(getattr(record.event, "seat", state.seat)) if record else state.seat


def undo_offer(cap: Capability, state: State) -> UndoOffer | None:
    """What the undo button says to this link; None when there is nothing (or no right) to undo."""
    record = last_decision(state)
    if record is None or not cap.can_write:
        return None
    label = decision_label(record.event, state)
    refused = refusal(state, record)
    if refused is not None:
        return UndoOffer(label, False, rule_message(refused))
    owner = int(getattr(record.event, "seat", -1))
    if cap.role != "host" and cap.seat != owner:
        reason = _("Only %(owner)s or the host may take this back.", owner=_who(state, owner))
        return UndoOffer(label, False, reason)
    return UndoOffer(label, True)


def _who(state: State, seat: int) -> str:
    players = state.setup.players
    return isolate(players[seat]) if 0 <= seat < len(players) else "?"


def decision_label(event: Any, state: State) -> str:
    """'Ann's draw (5 of Hearts)': one decision, named for the undo button."""
    who = _who(state, getattr(event, "seat", -1))
    keystones = {k.id: k.keystone.name for k in state.keystones}
    labels = {
        "card-drawn": lambda: _("%(who)s's draw (%(card)s)", who=who, card=card_name(event.card)),
        "prompt-chosen": lambda: _("%(who)s's choice of prompt", who=who),
        "prompt-answered": lambda: _("%(who)s's answer", who=who),
        "stakes-declared": lambda: _("%(who)s's stakes", who=who),
        "dice-rolled": lambda: _(
            "%(who)s's roll (%(faces)s)", who=who, faces=", ".join(map(str, event.faces))
        ),
        "success-narrated": lambda: _("%(who)s's narration of the success", who=who),
        "mark-built": lambda: _("%(who)s's legacy mark “%(name)s”", who=who, name=event.name),
        "keystone-lost": lambda: _(
            "%(who)s's loss of %(name)s", who=who, name=keystones.get(event.keystone, "?")
        ),
        "keystone-sacrificed": lambda: _(
            "%(who)s's sacrifice of %(name)s", who=who, name=keystones.get(event.keystone, "?")
        ),
        "token-spent": lambda: _("%(who)s's reroll token", who=who),
        "failure-accepted": lambda: _("%(who)s's acceptance of the failure", who=who),
        "epilogue-written": lambda: _("the epilogue"),
    }
    make = labels.get(getattr(event, "kind", ""))
    return make() if make else _("%(who)s's last decision", who=who)
