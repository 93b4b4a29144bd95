"""The game log: each event of a view as one sentence in the reader's language."""

from __future__ import annotations

from collections.abc import Sequence

from flask_babel import lazy_pgettext

from companion.cardgames.traitors_flame.moves import Event

from .words import card_name, list_of, pgettext, round_end, seat_name

# Lazy strings, said in the locale of the page that words the event.
SENTENCES: dict[str, object] = {
    "round-started": lazy_pgettext(
        "traitors-flame",
        "Round %(round)s begins: %(start)s holds Night, play goes %(direction)s"
        " (shuffled %(shuffles)s×).",
    ),
    "drew": lazy_pgettext("traitors-flame", "%(seat)s drew %(what)s."),
    "played": lazy_pgettext("traitors-flame", "%(seat)s played %(card)s%(at)s."),
    "took": lazy_pgettext("traitors-flame", "%(seat)s took %(what)s from %(target)s."),
    "gave": lazy_pgettext("traitors-flame", "%(seat)s gave %(what)s to %(target)s."),
    "looked": lazy_pgettext("traitors-flame", "%(seat)s looked at %(target)s's hand%(cards)s."),
    "peeked": lazy_pgettext(
        "traitors-flame", "%(seat)s looked at the top %(count)s cards of the deck%(cards)s."
    ),
    "bottomed": lazy_pgettext(
        "traitors-flame", "%(seat)s put a card at the bottom of the deck%(card)s."
    ),
    "reversed": lazy_pgettext("traitors-flame", "The direction of play is now %(direction)s."),
    "skip-set": lazy_pgettext("traitors-flame", "Night will pass over the next player."),
    "skipped": lazy_pgettext("traitors-flame", "Night passed over %(seat)s."),
    "passed": lazy_pgettext(
        "traitors-flame", "%(seat)s hands Night to %(target)s and takes Before-Dawn."
    ),
    "fizzled": lazy_pgettext(
        "traitors-flame", "%(seat)s's effect found nothing to take from %(target)s."
    ),
    "round-ended": lazy_pgettext(
        "traitors-flame", "Round %(round)s ends (%(how)s); %(ender)s ended it. Scores: %(scores)s."
    ),
    "match-ended": lazy_pgettext("traitors-flame", "%(winner)s wins with %(score)s points."),
}


def describe(event: Event, names: Sequence[str] | None = None) -> str:
    """An event from a view as one sentence; private details appear only if the view kept them."""
    template = SENTENCES.get(event["type"])
    if template is None:
        return str(event["type"])
    return str(template) % _fields(event, names)


def _fields(event: Event, names: Sequence[str] | None) -> dict[str, object]:
    """The sentence's parameters (every sentence takes the ones it names)."""
    kind, target = event["type"], seat_name(event.get("target"), names)
    return {
        "round": event.get("round"),
        "seat": seat_name(event.get("seat"), names),
        "target": target,
        "start": seat_name(event.get("start"), names),
        "ender": seat_name(event.get("ender"), names),
        "winner": seat_name(event.get("winner"), names),
        "direction": _direction(event.get("direction", 1)),
        "shuffles": event.get("shuffles"),
        "count": event.get("count"),
        "what": _what(event) if kind in ("took", "gave", "drew") else "",
        "card": _card(event, kind),
        "cards": _listed(event),
        "at": pgettext("traitors-flame", " on %(target)s", target=target)
        if "target" in event
        else "",
        "how": round_end(event.get("ended_by"), event.get("flame_end")),
        "scores": list_of([str(s) for s in event.get("scores", [])]),
        "score": (event.get("totals") or [0])[event.get("winner") or 0],
    }


def _direction(d: int) -> str:
    return (
        pgettext("traitors-flame", "clockwise")
        if d == 1
        else pgettext("traitors-flame", "counterclockwise")
    )


def _what(event: Event) -> str:
    if "card" in event and not event.get("flame"):
        return card_name(event["card"])
    return (
        pgettext("traitors-flame", "a Flame")
        if event.get("flame")
        else pgettext("traitors-flame", "a non-Flame card")
    )


def _card(event: Event, kind: str) -> str:
    if kind == "played":
        return card_name(event["card"])
    if kind == "bottomed" and "card" in event:
        return pgettext("traitors-flame", " (%(card)s)", card=card_name(event["card"]))
    return ""


def _listed(event: Event) -> str:
    if "cards" not in event:
        return ""
    shown = list_of([card_name(c) for c in event["cards"]]) or "—"
    return pgettext("traitors-flame", ": %(cards)s", cards=shown)
