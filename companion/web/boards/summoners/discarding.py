"""Discarding down in one go (Nightmare's trim, the 9/9 rule): the seat ticks the hand cards and
the mana to discard and presses one button, as game tables online let players do. Each box is
one legal discard; the table applies them in order, and the engine checks each as it comes."""

from __future__ import annotations

from collections.abc import Sequence

from companion.cardgames.summoners.view import View
from companion.web.boards import Batch, BatchGroup, BatchItem

from .catalogue import npgettext, pgettext
from .names import kind_name
from .words import card_tag


def batch(view: View, names: Sequence[str] | None = None) -> Batch | None:
    """The tick-and-discard form of a seat that must discard down now; None otherwise."""
    pending, waiting, me = view["pending"], view["waiting"], view["seat"]
    if pending is None or pending["phase"] != "trim" or waiting is None or me is None:
        return None
    seat = view["seats"][me]
    hand_over = max(0, seat["hand_count"] - waiting.get("hand", 0))
    mana_over = max(0, seat["mana_total"] - waiting.get("mana", 0))
    groups: list[BatchGroup] = []
    if hand_over:
        items: list[BatchItem] = [
            {
                "label": f"{kind_name(card['kind'])} · {card_tag(card['kind'])}",
                "action": {"type": "discard", "zone": "hand", "card": card["id"]},
            }
            for card in seat["hand"] or []
            if "id" in card
        ]
        title = npgettext(
            "age-of-summoners",
            "From your hand: tick %(num)d card",
            "From your hand: tick %(num)d cards",
            hand_over,
        )
        groups.append({"title": title, "need": hand_over, "items": items})
    if mana_over:
        items = [
            {
                "label": _mana_label(card["kind"], card["pairing"]),
                "action": {"type": "discard", "zone": "mana", "card": card["id"]},
            }
            for card in seat["mana"]
            if "id" in card
        ]
        items += [
            {
                "label": pgettext("age-of-summoners", "A philosopher's stone"),
                "action": {"type": "discard", "zone": "stones"},
            }
        ] * seat["stones"]
        title = npgettext(
            "age-of-summoners",
            "From your mana (stones count as mana): tick %(num)d",
            "From your mana (stones count as mana): tick %(num)d",
            mana_over,
        )
        groups.append({"title": title, "need": mana_over, "items": items})
    intro = pgettext(
        "age-of-summoners",
        "Tick what to discard, then discard it all at once.",
    )
    submit = pgettext("age-of-summoners", "Discard the ticked cards")
    return {"intro": intro, "groups": groups, "submit": submit}


def _mana_label(kind: str, pairing: bool) -> str:
    words = f"{kind_name(kind)} · {card_tag(kind)}"
    if pairing:
        return pgettext("age-of-summoners", "%(card)s (your pairing card)", card=words)
    return words
