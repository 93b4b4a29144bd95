"""The words of an asked ability's buttons (section 10: every ability is optional): what using
it would do now, for all its copies or some, and declining it."""

from __future__ import annotations

from collections.abc import Sequence

from companion.cardgames.summoners.cards import kinds, trim_of
from companion.cardgames.summoners.state import Action
from companion.cardgames.summoners.view import View, asking_copies

from .catalogue import pgettext
from .words import effect_words, kind_name, listed, my_seat, seat_name

Names = Sequence[str] | None


def optional_label(a: Action, view: View, names: Names) -> str:
    """The button of an asked ability: use it (all copies, or some), or not."""
    waiting = view["waiting"]
    asking = waiting.get("kinds", []) if waiting else []
    kind = a.get("kind") or next(iter(asking), "")  # version 1's ask named no kind
    if kind not in kinds():
        return "?"
    name = kind_name(kind)
    if not a.get("use"):
        return pgettext("age-of-summoners", "Do not use %(card)s", card=name)
    if kinds()[kind]["ability"]["hook"] == "inquisition-equal":
        seat = my_seat(view)
        equal = [
            s["seat"]
            for s in view["seats"]
            if seat is not None and s["seat"] != seat["seat"] and s["faith"] == seat["faith"]
        ]
        return pgettext(
            "age-of-summoners",
            "Use %(card)s: players of equal faith give you a card too (%(who)s)",
            card=name,
            who=listed([seat_name(s, names) for s in equal]),
        )
    if "copies" in a:
        return pgettext(
            "age-of-summoners",
            "Use %(n)s of your %(of)s %(card)s: %(effect)s",
            n=a["copies"],
            of=asking_copies(waiting, kind),
            card=name,
            effect=_asked_effect(kind, view, a["copies"]),
        )
    trim = trim_of(kind)
    if trim is not None:
        return pgettext(
            "age-of-summoners",
            "Use %(card)s: everyone discards down to %(hand)s hand cards and %(mana)s mana",
            card=name,
            hand=trim["hand"],
            mana=trim["mana"],
        )
    return pgettext(
        "age-of-summoners", "Use %(card)s: %(effect)s", card=name, effect=_asked_effect(kind, view)
    )


def _asked_effect(kind: str, view: View, used: int | None = None) -> str:
    """What an asked ability would do now, for the copies used (None: all those asking)."""
    copies = asking_copies(view["waiting"], kind) if used is None else used
    effects = kinds()[kind]["ability"].get("effects", [])
    for effect in effects:
        per_icon = effect.get("cards-per-icon")
        if per_icon is not None:
            seat = my_seat(view)
            count = (seat["icons"].get(per_icon["icon"], 0) if seat else 0) * copies
            to_hand = min(count, per_icon["hand"])
            return pgettext(
                "age-of-summoners",
                "draw %(hand)s, place %(mana)s card(s) from the deck as mana",
                hand=to_hand,
                mana=count - to_hand,
            )
    words = effect_words(effects, copies)
    gain = sum(e.get("faith", 0) for e in effects)
    seat = my_seat(view)
    if gain and seat is not None:  # copy by copy, a gain past the cap does not happen (4.4)
        before = seat["faith"]
        room = max(0, view["faith_cap"] - before)
        after = before + gain * min(copies, room // gain)
        words = pgettext(
            "age-of-summoners",
            "%(effects)s (faith %(before)s → %(after)s)",
            effects=words,
            before=before,
            after=after,
        )
    return words
