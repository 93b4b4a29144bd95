"""Story events in words: ``describe(event, names)`` gives one sentence in the reader's language.

Every word comes from the message catalogue under the "age-of-summoners" context; spirit and
colour names come from the card data (``names.py``) in the same locale.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from companion.cardgames.summoners.cards import kinds, trim_of
from companion.cardgames.summoners.records import Event
from companion.cardgames.summoners.view import numbers

from .catalogue import lazy_pgettext, pgettext
from .names import colour_name, kind_name
from .words import action_name, listed, seat_name

_TEMPLATES = {
    "setup": lazy_pgettext(
        "age-of-summoners", "A match for %(players)s players begins; %(start)s starts."
    ),
    "dealt": lazy_pgettext("age-of-summoners", "%(who)s is dealt %(count)s cards%(kinds_paren)s."),
    "initial-mana": lazy_pgettext("age-of-summoners", "%(who)s reveals initial mana: %(kinds)s."),
    "catch-up": lazy_pgettext(
        "age-of-summoners", "%(who)s plays later in the lap and starts with %(vp)s VP."
    ),
    "turn": lazy_pgettext("age-of-summoners", "%(who)s's turn."),
    "empty-hand": lazy_pgettext(
        "age-of-summoners", "%(who)s has no hand and plays the top card of the deck."
    ),
    "command": lazy_pgettext(
        "age-of-summoners",
        "%(who)s plays %(played)s beside %(pairing)s: command number %(number)s.",
    ),
    "summoned": lazy_pgettext("age-of-summoners", "%(who)s summons %(kind)s (paid %(paid)s)."),
    "placed": lazy_pgettext("age-of-summoners", "%(who)s places %(kind)s as mana (Baltanders)."),
    "paid": lazy_pgettext("age-of-summoners", "%(who)s pays %(paid)s for %(kind)s's ability."),
    "action": lazy_pgettext(
        "age-of-summoners", "%(who)s takes %(action)s%(choice_paren)s with %(number)s%(via_paren)s."
    ),
    "conquest": lazy_pgettext(
        "age-of-summoners",
        "%(who)s gains %(gain)s VP from axes and swords and takes %(take)s VP from %(victim)s.",
    ),
    "research": lazy_pgettext(
        "age-of-summoners", "%(who)s gains %(gain)s VP for stones%(flip_text)s."
    ),
    "pilgrimage": lazy_pgettext("age-of-summoners", "%(who)s gains %(gain)s VP for faith."),
    "ability": lazy_pgettext("age-of-summoners", "%(who)s's %(kind)s%(times)s: %(effects)s."),
    "drew": lazy_pgettext("age-of-summoners", "%(who)s draws %(count)s%(kinds_paren)s."),
    "stones": lazy_pgettext("age-of-summoners", "%(who)s gains %(count)s philosopher's stone(s)."),
    "mana": lazy_pgettext("age-of-summoners", "%(who)s places %(kinds)s from the deck as mana."),
    "refill-drawn": lazy_pgettext(
        "age-of-summoners", "%(who)s draws %(count)s for the refill%(kinds_paren)s."
    ),
    "revealed": lazy_pgettext("age-of-summoners", "%(who)s reveals %(kinds)s."),
    "gave": lazy_pgettext("age-of-summoners", "%(who)s gives a card to %(to)s%(kinds_paren)s."),
    "festival": lazy_pgettext(
        "age-of-summoners", "%(who)s places %(placed)s as mana%(discard_text)s."
    ),
    "discarded": lazy_pgettext("age-of-summoners", "%(who)s discards %(what)s."),
    "prayer-done": lazy_pgettext(
        "age-of-summoners", "%(who)s stops discarding and refills to %(refill)s."
    ),
    "kept": lazy_pgettext(
        "age-of-summoners", "%(who)s keeps the only card drawn%(kinds_paren)s; no assist."
    ),
    "assisted": lazy_pgettext(
        "age-of-summoners",
        "%(who)s keeps a card%(kinds_paren)s and assists %(kind)s (%(number)s) to %(to)s.",
    ),
    "declined": lazy_pgettext("age-of-summoners", "%(who)s does not use %(kind)s's ability."),
    "declared": lazy_pgettext(
        "age-of-summoners",
        "%(who)s declares the end (%(spirits)s spirits, %(vp)s VP). One more lap.",
    ),
    "reshuffled": lazy_pgettext(
        "age-of-summoners", "The discard pile (%(count)s) is shuffled into a new deck."
    ),
    "rule-9-9": lazy_pgettext(
        "age-of-summoners",
        "Deck and discard are empty: everyone discards down to %(hand_limit)s hand and"
        " %(mana_limit)s mana.",
    ),
    "game-end": lazy_pgettext(
        "age-of-summoners", "The match ends. Scores: %(scores)s; %(winner)s wins."
    ),
}


def _choice(action: str, choice: str) -> str:
    """An action's chosen option in a log line: "draw 2"."""
    n = numbers()
    options: dict[tuple[str, str], Callable[[], str]] = {
        ("alchemy", "draw"): lambda: pgettext("age-of-summoners", "a card and a stone"),
        ("prayer", "draw"): lambda: pgettext("age-of-summoners", "draw %(n)s", n=n["prayer_draw"]),
        ("alchemy", "faith"): lambda: pgettext(
            "age-of-summoners", "%(n)s faith and a stone", n=n["alchemy_faith"]
        ),
        ("pilgrimage", "faith"): lambda: pgettext(
            "age-of-summoners", "a card and %(n)s faith", n=n["pilgrimage_faith"]
        ),
        ("prayer", "refill"): lambda: pgettext(
            "age-of-summoners", "discard, then refill to %(n)s", n=n["refill_to"]
        ),
        ("pilgrimage", "vp"): lambda: pgettext("age-of-summoners", "VP equal to faith"),
    }
    word = options.get((action, choice))
    return "" if word is None else pgettext("age-of-summoners", " (%(x)s)", x=word())


def _via(via: str | None) -> str:
    if via == "zero-played":
        return pgettext("age-of-summoners", " (by Asmodai)")
    if via == "shift":
        return pgettext("age-of-summoners", " (by Sandman)")
    return ""


def _who(seat: int | None, names: Sequence[str] | None) -> str:
    """A seat by its player's name (the board's seat name when none is given)."""
    return seat_name(seat, names)


def _kind(kind: str | None) -> str:
    return "—" if kind is None else kind_name(kind)


def _kinds(values: list[str] | None) -> str:
    return pgettext("age-of-summoners", ", ").join(_kind(k) for k in values or []) or "—"


def _paid(paid: dict[str, int] | None) -> str:
    if not paid:
        return pgettext("age-of-summoners", "nothing")
    parts = []
    for name, count in paid.items():
        label = pgettext("age-of-summoners", "stone") if name == "stone" else colour_name(name)
        parts.append(f"{label}×{count}")
    return " ".join(parts)


def _effects(event: Event) -> str:
    """What an ability did: "+2 VP, draws 1"."""
    parts = []
    if "vp" in event:
        parts.append(pgettext("age-of-summoners", "+%(n)s VP", n=event["vp"]))
    if "faith" in event:
        parts.append(pgettext("age-of-summoners", "+%(n)s faith", n=event["faith"]))
    if "steal" in event:
        parts.append(pgettext("age-of-summoners", "takes %(n)s VP", n=event["steal"]["amount"]))
    if "steal_each" in event:
        taken = sum(event["steal_each"].values())
        parts.append(pgettext("age-of-summoners", "takes %(n)s VP in all", n=taken))
    if "draw" in event:
        parts.append(pgettext("age-of-summoners", "draws %(n)s", n=event["draw"]))
    if "stone" in event:
        parts.append(pgettext("age-of-summoners", "%(n)s stone(s)", n=event["stone"]))
    if "mana" in event:
        parts.append(pgettext("age-of-summoners", "%(n)s mana from the deck", n=event["mana"]))
    if "cards" in event:
        parts.append(pgettext("age-of-summoners", "%(n)s cards", n=event["cards"]))
    if "kind" in event and kinds()[event["kind"]]["ability"]["hook"] == "inquisition-equal":
        parts.append(pgettext("age-of-summoners", "players of equal faith give a card too"))
    trim = trim_of(event["kind"]) if event.get("trim") and "kind" in event else None
    if trim is not None:
        parts.append(
            pgettext(
                "age-of-summoners",
                "everyone trims to %(hand)s hand, %(mana)s mana",
                hand=trim["hand"],
                mana=trim["mana"],
            )
        )
    return pgettext("age-of-summoners", ", ").join(parts) or pgettext(
        "age-of-summoners", "resolved"
    )


def describe(event: Event, names: Sequence[str] | None = None) -> str:
    """One sentence for a (viewed) event in the current locale, naming seats by ``names``;
    outside an application context the sentence is English."""
    return _sentence(event, names)


def _sentence(event: Event, names: Sequence[str] | None) -> str:
    template = _TEMPLATES.get(event["type"])
    if template is None:
        return event["type"]
    ctx: dict[str, object] = dict(event)
    ctx["start"] = _who(event.get("start"), names)
    ctx["to"] = _who(event.get("to"), names)
    ctx["winner"] = _who(event.get("winner"), names)
    n = numbers()
    ctx.update(take=n["conquest_take"], refill=n["refill_to"])
    ctx.update(hand_limit=n["rule99_hand"], mana_limit=n["rule99_mana"])
    ctx["who"] = _who(event.get("seat"), names)
    ctx["victim"] = (
        _who(event["victim"], names)
        if event.get("victim") is not None
        else pgettext("age-of-summoners", "the supply")
    )
    ctx["kind"] = _kind(event.get("kind"))
    ctx["played"] = _kind(event.get("played"))
    ctx["pairing"] = _kind(event.get("pairing")) + pgettext(
        "age-of-summoners", " (%(x)s)", x=event.get("pairing_number", 0)
    )
    ctx["kinds"] = _kinds(event.get("kinds"))
    ctx["kinds_paren"] = (
        pgettext("age-of-summoners", " (%(x)s)", x=ctx["kinds"]) if event.get("kinds") else ""
    )
    ctx["placed"] = _kinds(event.get("placed"))
    discarded = event.get("discarded")
    ctx["discard_text"] = (
        pgettext("age-of-summoners", " and discards %(kind)s", kind=_kind(discarded))
        if discarded
        else ""
    )
    ctx["paid"] = _paid(event.get("paid"))
    ctx["action"] = action_name(event["action"]) if "action" in event else ""
    ctx["choice_paren"] = _choice(event.get("action", ""), event.get("choice") or "")
    ctx["via_paren"] = _via(event.get("via"))
    flipped = event.get("flipped")
    ctx["flip_text"] = (
        pgettext(
            "age-of-summoners",
            ", then turns a %(colour)s mana into a stone",
            colour=colour_name(flipped),
        )
        if flipped
        else ""
    )
    ctx["times"] = f"×{event['times']}" if event.get("times", 1) > 1 else ""
    ctx["effects"] = _effects(event)
    ctx["scores"] = _scores(event.get("totals", []), names)
    ctx["what"] = _discard_what(event.get("zone"), event.get("kind"))
    return str(template) % ctx


def _scores(totals: list[int], names: Sequence[str] | None) -> str:
    """Every seat with its score: "Ann 37, Ben 50"."""
    return listed(
        [
            pgettext("age-of-summoners", "%(name)s %(score)s", name=_who(seat, names), score=n)
            for seat, n in enumerate(totals)
        ]
    )


def _discard_what(zone: str | None, kind: str | None) -> str:
    if zone == "stones":
        return pgettext("age-of-summoners", "a philosopher's stone")
    if zone == "mana":
        return pgettext("age-of-summoners", "%(kind)s from mana", kind=_kind(kind))
    if kind is None:
        return pgettext("age-of-summoners", "a hand card")
    return pgettext("age-of-summoners", "%(kind)s from hand", kind=_kind(kind))
