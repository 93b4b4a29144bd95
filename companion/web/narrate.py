"""What just happened, in words: used when a device acted on an out-of-date page."""

from __future__ import annotations

from typing import Any

from flask_babel import gettext as _

from ..bidi import isolate
from ..chronicles import Chronicle
from .terms import card_name
from .wording import join_list, join_sentences

MAX_LISTED = 3
TOLD = frozenset(
    {
        "card-drawn",
        "dice-rolled",
        "keystone-sacrificed",
        "keystone-lost",
        "token-spent",
        "failure-accepted",
        "success-narrated",
        "mark-built",
        "decision-undone",
        "epilogue-written",
    }
)


def describe(event: Any, chronicle: Chronicle) -> str:
    """One event as a short sentence in the reader's language."""
    players = chronicle.state.setup.players
    who = isolate(players[event.seat]) if 0 <= getattr(event, "seat", -1) < len(players) else "?"
    kind = getattr(event, "kind", "")
    keystones = {k.id: isolate(k.keystone.name) for k in chronicle.state.keystones}
    sentences = {
        "card-drawn": lambda: _(
            "%(who)s already drew %(card)s.", who=who, card=card_name(event.card)
        ),
        "dice-rolled": lambda: _(
            "%(who)s already rolled: %(faces)s.", who=who, faces=join_list(event.faces)
        ),
        "keystone-sacrificed": lambda: _(
            "%(who)s already sacrificed %(name)s.", who=who, name=keystones.get(event.keystone, "?")
        ),
        "keystone-lost": lambda: _(
            "%(who)s recorded the loss of %(name)s.",
            who=who,
            name=keystones.get(event.keystone, "?"),
        ),
        "token-spent": lambda: _("%(who)s already spent a reroll token.", who=who),
        "failure-accepted": lambda: _("%(who)s already accepted the failure.", who=who),
        "success-narrated": lambda: _("%(who)s already narrated the success.", who=who),
        "mark-built": lambda: _(
            "%(who)s already built the legacy mark “%(name)s”.", who=who, name=event.name
        ),
        "decision-undone": lambda: _("%(who)s took back the last decision.", who=who),
        "epilogue-written": lambda: _("The epilogue was written.", who=who),
    }
    make = sentences.get(kind)
    return make() if make else _("%(who)s already moved on.", who=who)


def describe_since(chronicle: Chronicle, version: int) -> str:
    """What happened after ``version``: the page the player acted on was out of date."""
    newer = [r.event for r in chronicle.state.records() if r.seq > version]
    important = [e for e in newer if getattr(e, "kind", "") not in ("text-revised",)]
    if not important:
        return _(
            "The page was out of date and has been refreshed. Your text is kept: check it and send it again."
        )
    # A roll is several events (prompt, answer, stakes, dice): only the ones with their own
    # sentence are told, each once; "moved on" stands in only when none of them has one.
    told = [e for e in important if getattr(e, "kind", "") in TOLD]
    shown = [describe(e, chronicle) for e in (told or important)[-MAX_LISTED:]]
    return join_sentences([*shown, _("The page now shows the new state; your text is kept.")])


def announce(chronicle: Chronicle) -> str:
    """The newest decision as news, for the page's live region (read out on other devices)."""
    newest = next((r.event for r in chronicle.state.newest_records()), None)
    kind = getattr(newest, "kind", "")
    if newest is None or kind not in TOLD:
        return ""
    players = chronicle.state.setup.players
    seat = getattr(newest, "seat", -1)
    who = isolate(players[seat]) if 0 <= seat < len(players) else "?"
    if kind == "card-drawn":
        return _("%(who)s drew %(card)s.", who=who, card=card_name(newest.card))
    if kind == "dice-rolled":
        faces = join_list(newest.faces)
        if any(face >= 5 for face in newest.faces):
            return _("%(who)s rolled %(faces)s: a success.", who=who, faces=faces)
        return _("%(who)s rolled %(faces)s: a failure.", who=who, faces=faces)
    if kind == "mark-built":
        return _("%(who)s built the legacy mark “%(name)s”.", who=who, name=newest.name)
    return describe(newest, chronicle)
