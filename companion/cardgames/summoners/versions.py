"""The rules each engine version plays, so a match replays (and plays on) under the rules it was
dealt with. A match's version is kept in its state (``state["version"]``, from ``new``).

- **Version 1** (release 0.1.0): the catch-up chips unless a table turned them off; faith gains
  clamped at 10; every ability used at once, except Nightmare's, which asks (an action without
  a kind: ``{"type": "optional", "use": true}``).
- **Version 2**: the printed set-up (chips only when asked for); a gain that would take faith to
  11 or more does not happen (4.4), copy by copy; the abilities that move cards ask, naming
  their kind; the others are used at once.
- **Version 3**: every ability asks, as printed (section 10, 「能力を使用するかどうかは、任意です。」),
  the copies of a kind used all, some or none; Kasha's extra givers are asked when the
  inquisition is taken; a table may choose ``always_use`` (every ability used at once, no ask).
- **Version 4**: version 3's rules; the match records its chance (the deal, the start player,
  each reshuffle) with the moves that drew it (``cardgames.chance``), so a replay draws nothing.
  Versions 1 to 3 draw every shuffle again from the seed.

Abilities that are not asked in any version: a ward (Tarasque) refuses only what a rival would
take, in the rival's turn; game-end scores add to the score the match ends on; the choices that
are abilities by their nature (Asmodai's and Sandman's numbers, Belial's paid ability,
Baltanders' placement; since version 3 the reductions of Gargoyle and the Giant, which a
summon's payment uses or leaves unused: ``payment.summon_payments``) are made by taking them.
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import MOVES_CARDS, kinds

ENGINE_VERSION = 4
VERSIONS = (1, 2, 3, 4)
RECORDS_CHANCE = 4  # the first version whose matches record their chance
# The hooks whose ability acts by itself when something happens: these are the ones asked.
TRIGGERED = frozenset({"on-action", "on-summon", "on-assist", "end-of-turn", "inquisition-equal"})


class Rules(NamedTuple):
    """What differs between engine versions."""

    version: int
    catch_up: bool  # the catch-up chips of a table whose options do not say
    faith_by_copy: bool  # a gain past 10 is void, each copy's on its own (else clamped at 10)
    asked: frozenset[str]  # the kinds whose ability asks its owner
    names_kind: bool  # an ask's actions name the kind (version 1's did not)
    some_copies: bool  # copies of a kind may be used in part
    reductions_asked: bool  # a summon's payment may leave cost reductions unused
    unasked: Rules | None = None  # these rules for a table that uses every ability unasked


def _moves_cards(kind: str) -> bool:
    return any(MOVES_CARDS.intersection(e) for e in kinds()[kind]["ability"].get("effects", []))


def _trims(kind: str) -> bool:
    return any("trim" in e for e in kinds()[kind]["ability"].get("effects", []))


def _triggered(kind: str) -> bool:
    return kinds()[kind]["ability"]["hook"] in TRIGGERED


_V3_UNASKED = Rules(3, False, True, frozenset(), True, False, False)
_V3 = Rules(3, False, True, frozenset(filter(_triggered, kinds())), True, True, True, _V3_UNASKED)
RULES: dict[int, Rules] = {
    1: Rules(1, True, False, frozenset(filter(_trims, kinds())), False, False, False),
    2: Rules(2, False, True, frozenset(filter(_moves_cards, kinds())), True, False, False),
    3: _V3,
    4: _V3._replace(version=4, unasked=_V3_UNASKED._replace(version=4)),  # only chance differs
}


def rules_for(version: int, options: object = None) -> Rules:
    """The rules of ``version`` for a table with these options (``always_use``)."""
    rules = RULES[version]
    if rules.unasked is not None and isinstance(options, dict) and options.get("always_use"):
        return rules.unasked
    return rules
