"""The board's longer sentences: what the player who must choose is doing, and the end."""

from __future__ import annotations

from .catalogue import lazy_pgettext

# (phase, the viewer is the one choosing) -> sentence; filled with name, to, right, hand,
# mana, kind and refill.
NOW = {
    ("play", True): lazy_pgettext(
        "age-of-summoners", "Phase I: play a card from your hand beside your pairing card."
    ),
    ("play", False): lazy_pgettext(
        "age-of-summoners", "Phase I: %(name)s plays a card to set the command number."
    ),
    ("main", True): lazy_pgettext(
        "age-of-summoners",
        "Phase II: summon one spirit, or take the action of your command number.",
    ),
    ("main", False): lazy_pgettext(
        "age-of-summoners", "Phase II: %(name)s summons a spirit or takes an action."
    ),
    ("summon", True): lazy_pgettext(
        "age-of-summoners", "Phase II: you placed a card as mana; now summon a spirit."
    ),
    ("summon", False): lazy_pgettext(
        "age-of-summoners", "Phase II: %(name)s placed a card as mana and now summons."
    ),
    ("pay", True): lazy_pgettext("age-of-summoners", "Choose which mana to pay with."),
    ("pay", False): lazy_pgettext("age-of-summoners", "%(name)s chooses which mana to pay with."),
    ("prayer-discard", True): lazy_pgettext(
        "age-of-summoners",
        "Prayer: discard as many cards as you like, then draw up to %(refill)s.",
    ),
    ("prayer-discard", False): lazy_pgettext(
        "age-of-summoners", "Prayer: %(name)s discards, then draws up to %(refill)s."
    ),
    ("trim", True): lazy_pgettext(
        "age-of-summoners",
        "Discard down to %(hand)s hand cards and %(mana)s mana (stones count as mana).",
    ),
    ("trim", False): lazy_pgettext(
        "age-of-summoners", "%(name)s discards down to %(hand)s hand cards and %(mana)s mana."
    ),
    ("give", True): lazy_pgettext(
        "age-of-summoners", "Inquisition: choose a card from your hand to give to %(to)s."
    ),
    ("give", False): lazy_pgettext(
        "age-of-summoners", "Inquisition: %(name)s gives %(to)s a card."
    ),
    ("festival", True): lazy_pgettext(
        "age-of-summoners",
        "Festival: place one revealed card as mana; the other is discarded.",
    ),
    ("festival", False): lazy_pgettext(
        "age-of-summoners", "Festival: %(name)s places one of the revealed cards as mana."
    ),
    ("keep", True): lazy_pgettext(
        "age-of-summoners",
        "Phase III: keep one of the two cards you drew; the other goes to %(right)s as an assist.",
    ),
    ("keep", False): lazy_pgettext(
        "age-of-summoners", "Phase III: %(name)s keeps one card and assists the other to %(right)s."
    ),
    ("optional", True): lazy_pgettext(
        "age-of-summoners", "Use the ability of %(kind)s, or not? Using an ability is optional."
    ),
    ("optional", False): lazy_pgettext(
        "age-of-summoners", "%(name)s decides whether to use the ability of %(kind)s."
    ),
    ("declare", True): lazy_pgettext(
        "age-of-summoners", "You may declare the end of the game now."
    ),
    ("declare", False): lazy_pgettext(
        "age-of-summoners", "%(name)s may declare the end of the game."
    ),
}

END_RULE = lazy_pgettext(
    "age-of-summoners",
    "A player with %(spirits)s or more spirits or %(vp)s or more VP may declare the end at the"
    " end of their turn.",
)
DECLARED = lazy_pgettext(
    "age-of-summoners",
    "%(name)s has declared the end. Final lap: %(n)s turns left, this one included; %(name)s's"
    " extra turn comes last.",
)
LAST_TURN = lazy_pgettext(
    "age-of-summoners", "%(name)s has declared the end. This is the last turn of the match."
)
