"""Names on the Age of Summoners board, in the current Babel locale.

Card, colour and mana names are data (the card file holds each language's name), picked by
``names.data_lang``; every other word comes from the catalogue under the "age-of-summoners" context.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from companion.cardgames.summoners.cards import COLOURS, Effect, kind_of_card, kinds
from companion.cardgames.summoners.view import SeatView, View

from .catalogue import pgettext
from .names import colour_name as colour_name
from .names import data_lang as data_lang
from .names import kind_data as kind_data
from .names import kind_id as kind_id
from .names import kind_name as kind_name
from .names import mana_name as mana_name


def seat_name(seat: int | None, names: Sequence[str] | None = None) -> str:
    """A seat as the board names it: the player's name, else "Seat 1"."""
    if seat is None:
        return "—"
    if names is not None and 0 <= seat < len(names):
        return str(names[seat])
    return pgettext("age-of-summoners", "Seat %(n)s", n=seat + 1)


def action_name(action: str) -> str:
    """An action's name: "Conquest" (also "summon")."""
    names = {
        "conquest": pgettext("age-of-summoners", "Conquest"),
        "research": pgettext("age-of-summoners", "Research"),
        "alchemy": pgettext("age-of-summoners", "Alchemy"),
        "prayer": pgettext("age-of-summoners", "Prayer"),
        "festival": pgettext("age-of-summoners", "Festival"),
        "inquisition": pgettext("age-of-summoners", "Inquisition"),
        "pilgrimage": pgettext("age-of-summoners", "Pilgrimage"),
        "summon": pgettext("age-of-summoners", "Summon"),
    }
    return names.get(action, action)


def icon_name(icon: str) -> str:
    """An icon's name: "Armour"."""
    names = {
        "armour": pgettext("age-of-summoners", "Armour"),
        "shield": pgettext("age-of-summoners", "Shield"),
        "staff": pgettext("age-of-summoners", "Staff"),
        "axe": pgettext("age-of-summoners", "Axe"),
        "sword": pgettext("age-of-summoners", "Sword"),
    }
    return names.get(icon, icon)


def card_tag(kind_or_card: str) -> str:
    """A card's mana side in words: "black 1" / "黒1"."""
    spec = kinds()[kind_id(kind_or_card)]
    return pgettext(
        "age-of-summoners",
        "%(colour)s %(number)s",
        colour=colour_name(spec["colour"]),
        number=spec["number"],
    )


def _counted(name: str, n: int) -> str:
    return pgettext("age-of-summoners", "%(n)s %(name)s", n=n, name=name)


def _joined(parts: list[str]) -> str:
    if not parts:
        return pgettext("age-of-summoners", "nothing")
    return pgettext("age-of-summoners", " + ").join(parts)


def cost_words(symbols: Sequence[str]) -> str:
    """A cost as counts: "2 black + 1 any"."""
    counts = Counter(symbols)
    parts = []
    for colour in (*COLOURS, "any"):
        if counts[colour]:
            parts.append(_counted(colour_name(colour), counts[colour]))
    return _joined(parts)


def payment_words(pay: dict[str, int]) -> str:
    """A payment as counts: "1 black + 2 stones"."""
    parts = []
    for name in (*COLOURS, "stone"):
        n = pay.get(name, 0)
        if n and name == "stone":
            parts.append(_counted(stones_word(n), n))
        elif n:
            parts.append(_counted(colour_name(name), n))
    return _joined(parts)


def stones_word(n: int) -> str:
    """The unit of a stone count: "stone" / "stones"."""
    if n == 1:
        return pgettext("age-of-summoners", "stone")
    return pgettext("age-of-summoners", "stones")


def card_count(n: int) -> str:
    """ "3 cards" / "3枚"."""
    if n == 1:
        return pgettext("age-of-summoners", "1 card")
    return pgettext("age-of-summoners", "%(n)s cards", n=n)


def listed(parts: Sequence[str]) -> str:
    """Words in a list: "a, b" / "a、b"."""
    return pgettext("age-of-summoners", ", ").join(parts)


def points_words(n: int) -> str:
    """A card's points: "1 point" / "3 points"."""
    if n == 1:
        return pgettext("age-of-summoners", "1 point")
    return pgettext("age-of-summoners", "%(n)s points", n=n)


def effect_words(effects: list[Effect], times: int = 1) -> str:
    """An ability's effects from the card data, ``times`` copies together: "gain 2 VP, draw 1"."""
    phrases: dict[str, Callable[[object], str]] = {
        "vp": lambda v: pgettext("age-of-summoners", "gain %(n)s VP", n=v),
        "faith": lambda v: pgettext("age-of-summoners", "gain %(n)s faith", n=v),
        "draw": lambda v: pgettext("age-of-summoners", "draw %(n)s", n=v),
        "stone": lambda v: pgettext("age-of-summoners", "gain %(n)s stone(s)", n=v),
        "mana": lambda v: pgettext(
            "age-of-summoners", "place %(n)s card(s) from the deck as mana", n=v
        ),
    }
    parts = []
    for effect in effects:
        for name, value in effect.items():
            if name in phrases and isinstance(value, int):
                parts.append(phrases[name](value * times))
            else:
                parts.append(name)
    return listed(parts)


def card_name(card: str) -> str:
    """A spirit's name from a card id, as a refusal names it; KeyError for an id of no card."""
    return kind_name(kind_of_card()[card])


def my_seat(view: View) -> SeatView | None:
    """The viewing seat's part of a view (None for a spectator)."""
    me = view["seat"]
    return view["seats"][me] if me is not None else None
