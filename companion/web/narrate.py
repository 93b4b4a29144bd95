"""What just happened, in words: used when a device acted on an out-of-date page.

A refused device is told who really moved. An event's seat is the player it was decided for;
the host's link acts for whoever's turn it is, so the event's sender (``store.actors``) says
whether that player or the host moved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import takewhile
from typing import Any

from flask_babel import gettext as _

from .. import store
from ..bidi import isolate
from ..chronicles import Chronicle
from ..db import get_db
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
# Texts written before a roll: told ("saved first") only when nothing else happened.
SAVED = frozenset({"prompt-chosen", "prompt-answered", "stakes-declared"})
HOST = "host"


def actor_of(role: str, seat: int | None) -> str:
    """How the sender of a command is recorded beside its events: ``host`` or ``seat:<n>``."""
    return HOST if role == HOST else f"seat:{seat}"


def _name(chronicle: Chronicle, seat: int) -> str:
    players = chronicle.state.setup.players
    return isolate(players[seat]) if 0 <= seat < len(players) else "?"


def describe(event: Any, chronicle: Chronicle, actor: str | None = None) -> str:
    """One event as a short sentence in the reader's language, naming who sent it."""
    who = _name(chronicle, getattr(event, "seat", -1))
    if actor == HOST:
        return _host_sentence(event, chronicle, who)
    kind = getattr(event, "kind", "")
    keystones = {k.id: isolate(k.keystone.name) for k in chronicle.state.keystones}
    sentences: Mapping[str, Callable[[], str]] = {
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
        "text-revised": lambda: _("%(who)s corrected a text meanwhile.", who=who),
        **dict.fromkeys(SAVED, lambda: _("%(who)s saved the turn's texts first.", who=who)),
    }
    make = sentences.get(kind)
    return make() if make else _("%(who)s already moved on.", who=who)


def _host_sentence(event: Any, chronicle: Chronicle, who: str) -> str:
    """The same sentences for a move the host's link made, for the player ``who``."""
    kind = getattr(event, "kind", "")
    keystones = {k.id: isolate(k.keystone.name) for k in chronicle.state.keystones}
    sentences: Mapping[str, Callable[[], str]] = {
        "card-drawn": lambda: _(
            "The host already drew %(card)s for %(who)s.", who=who, card=card_name(event.card)
        ),
        "dice-rolled": lambda: _(
            "The host already rolled for %(who)s: %(faces)s.",
            who=who,
            faces=join_list(event.faces),
        ),
        "keystone-sacrificed": lambda: _(
            "The host already sacrificed %(name)s for %(who)s.",
            who=who,
            name=keystones.get(event.keystone, "?"),
        ),
        "keystone-lost": lambda: _(
            "The host recorded the loss of %(name)s for %(who)s.",
            who=who,
            name=keystones.get(event.keystone, "?"),
        ),
        "token-spent": lambda: _("The host already spent a reroll token for %(who)s.", who=who),
        "failure-accepted": lambda: _(
            "The host already accepted the failure for %(who)s.", who=who
        ),
        "success-narrated": lambda: _(
            "The host already narrated the success for %(who)s.", who=who
        ),
        "mark-built": lambda: _(
            "The host already built the legacy mark “%(name)s” for %(who)s.",
            who=who,
            name=event.name,
        ),
        "decision-undone": lambda: _("The host took back the last decision.", who=who),
        "epilogue-written": lambda: _("The host wrote the epilogue.", who=who),
        "text-revised": lambda: _("The host corrected a text meanwhile.", who=who),
        **dict.fromkeys(
            SAVED, lambda: _("The host saved the turn's texts for %(who)s first.", who=who)
        ),
    }
    make = sentences.get(kind)
    return make() if make else _("The host already moved on for %(who)s.", who=who)


def newer_events(chronicle: Chronicle, version: int) -> list[tuple[Any, str | None]]:
    """The events after ``version`` that matter to a refused device, each with its sender.

    A roll is several events (prompt, answer, stakes, dice): only the ones with their own
    sentence are told, each once; the texts saved before a roll are told only when nothing
    else happened, and corrections only when nothing at all did.
    """
    newest = takewhile(lambda r: r.seq > version, chronicle.state.newest_records())
    records = list(newest)[::-1]
    sent = store.actors(get_db(), chronicle.id, version) if records else {}
    pairs = [(r.event, sent.get(r.seq)) for r in records]
    for wanted in (TOLD, SAVED, frozenset({"text-revised"})):
        told = [pair for pair in pairs if getattr(pair[0], "kind", "") in wanted]
        if told:
            return told
    return [pair for pair in pairs if getattr(pair[0], "kind", "") != "text-revised"]


def describe_since(chronicle: Chronicle, version: int) -> str:
    """What happened after ``version``: the page the player acted on was out of date."""
    newer = newer_events(chronicle, version)
    if not newer:
        return _(
            "The page was out of date and has been refreshed. Your text is kept: check it and send it again."
        )
    shown = [describe(event, chronicle, actor) for event, actor in newer[-MAX_LISTED:]]
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
