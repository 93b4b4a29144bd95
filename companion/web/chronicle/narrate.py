"""What just happened, in words: used when a device acted on an out-of-date page.

A refused device is told who really moved. An event's seat is the player it was decided for;
the host's link acts for whoever's turn it is, so the event's sender (``store.actors``) says
whether that player or the host moved.
"""

from __future__ import annotations

from itertools import takewhile

from companion.legacy.events import (
    SETUP_EVENTS,
    CardDrawn,
    DecisionUndone,
    DiceRolled,
    EpilogueWritten,
    Event,
    FailureAccepted,
    KeystoneLost,
    KeystoneSacrificed,
    MarkBuilt,
    PromptAnswered,
    PromptChosen,
    StakesDeclared,
    SuccessNarrated,
    TextRevised,
    TokenSpent,
)
from companion.store import events as store
from companion.store.db import get_db
from companion.streams.chronicles import Chronicle
from companion.text.bidi import isolate
from companion.text.terms import card_name
from companion.text.wording import gettext as _
from companion.text.wording import join_list, join_sentences

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


def _seat(event: Event) -> int:
    """The seat an event was decided for (-1 for the set-up's, decided for nobody)."""
    return -1 if isinstance(event, SETUP_EVENTS) else event.seat


def _keystone(chronicle: Chronicle, keystone_id: str) -> str:
    named = (k.keystone.name for k in chronicle.state.keystones if k.id == keystone_id)
    name = next(named, None)
    return "?" if name is None else isolate(name)


def describe(event: Event, chronicle: Chronicle, actor: str | None = None) -> str:
    """One event as a short sentence in the reader's language, naming who sent it."""
    who = _name(chronicle, _seat(event))
    if actor == HOST:
        return _host_sentence(event, chronicle, who)
    match event:
        case CardDrawn():
            return _("%(who)s already drew %(card)s.", who=who, card=card_name(event.card))
        case DiceRolled():
            return _("%(who)s already rolled: %(faces)s.", who=who, faces=join_list(event.faces))
        case KeystoneSacrificed():
            name = _keystone(chronicle, event.keystone)
            return _("%(who)s already sacrificed %(name)s.", who=who, name=name)
        case KeystoneLost():
            name = _keystone(chronicle, event.keystone)
            return _("%(who)s recorded the loss of %(name)s.", who=who, name=name)
        case TokenSpent():
            return _("%(who)s already spent a reroll token.", who=who)
        case FailureAccepted():
            return _("%(who)s already accepted the failure.", who=who)
        case SuccessNarrated():
            return _("%(who)s already narrated the success.", who=who)
        case MarkBuilt():
            return _("%(who)s already built the legacy mark “%(name)s”.", who=who, name=event.name)
        case DecisionUndone():
            return _("%(who)s took back the last decision.", who=who)
        case EpilogueWritten():
            return _("The epilogue was written.", who=who)
        case TextRevised():
            return _("%(who)s corrected a text meanwhile.", who=who)
        case PromptChosen() | PromptAnswered() | StakesDeclared():
            return _("%(who)s saved the turn's texts first.", who=who)
    return _("%(who)s already moved on.", who=who)


def _host_sentence(event: Event, chronicle: Chronicle, who: str) -> str:
    """The same sentences for a move the host's link made, for the player ``who``."""
    match event:
        case CardDrawn():
            card = card_name(event.card)
            return _("The host already drew %(card)s for %(who)s.", who=who, card=card)
        case DiceRolled():
            return _(
                "The host already rolled for %(who)s: %(faces)s.",
                who=who,
                faces=join_list(event.faces),
            )
        case KeystoneSacrificed():
            return _(
                "The host already sacrificed %(name)s for %(who)s.",
                who=who,
                name=_keystone(chronicle, event.keystone),
            )
        case KeystoneLost():
            return _(
                "The host recorded the loss of %(name)s for %(who)s.",
                who=who,
                name=_keystone(chronicle, event.keystone),
            )
        case TokenSpent():
            return _("The host already spent a reroll token for %(who)s.", who=who)
        case FailureAccepted():
            return _("The host already accepted the failure for %(who)s.", who=who)
        case SuccessNarrated():
            return _("The host already narrated the success for %(who)s.", who=who)
        case MarkBuilt():
            return _(
                "The host already built the legacy mark “%(name)s” for %(who)s.",
                who=who,
                name=event.name,
            )
        case DecisionUndone():
            return _("The host took back the last decision.", who=who)
        case EpilogueWritten():
            return _("The host wrote the epilogue.", who=who)
        case TextRevised():
            return _("The host corrected a text meanwhile.", who=who)
        case PromptChosen() | PromptAnswered() | StakesDeclared():
            return _("The host saved the turn's texts for %(who)s first.", who=who)
    return _("The host already moved on for %(who)s.", who=who)


def newer_events(chronicle: Chronicle, version: int) -> list[tuple[Event, str | None]]:
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
        told = [pair for pair in pairs if pair[0].kind in wanted]
        if told:
            return told
    return [pair for pair in pairs if pair[0].kind != "text-revised"]


def describe_since(chronicle: Chronicle, version: int) -> str:
    """What happened after ``version``: the page the player acted on was out of date."""
    newer = newer_events(chronicle, version)
    if not newer:
        return _(
            "The page was out of date and has been refreshed. Your text is kept: check it and send it again."
        )
    shown = [describe(event, chronicle, actor) for event, actor in newer[-MAX_LISTED:]]
    return join_sentences([*shown, _("The page now shows the new state; your text is kept.")])


def decision_mark(chronicle: Chronicle) -> int:
    """The newest decision's place in the log (an undo counts, a correction does not): an open
    page keeps what its viewer chose in a form while this stays the same, and starts the forms
    afresh once someone has decided what they were for."""
    return chronicle.state.decided


def announce(chronicle: Chronicle) -> str:
    """The newest decision as news, for the page's live region (read out on other devices)."""
    newest = next((r.event for r in chronicle.state.newest_records()), None)
    if newest is None or newest.kind not in TOLD:
        return ""
    who = _name(chronicle, _seat(newest))
    match newest:
        case CardDrawn():
            return _("%(who)s drew %(card)s.", who=who, card=card_name(newest.card))
        case DiceRolled():
            faces = join_list(newest.faces)
            if any(face >= 5 for face in newest.faces):
                return _("%(who)s rolled %(faces)s: a success.", who=who, faces=faces)
            return _("%(who)s rolled %(faces)s: a failure.", who=who, faces=faces)
        case MarkBuilt():
            return _("%(who)s built the legacy mark “%(name)s”.", who=who, name=newest.name)
    return describe(newest, chronicle)
