"""Hand-tuned values for the heuristic bot, read from a view only (VP = 1 point).

Resources (cards, mana, stones, faith) are worth less as the estimated end approaches; a spirit
is worth its points, its icons and its ability over the turns that remain.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from .abilities import end_game_score
from .cards import COLOURS, ICONS, Ability, Effect, kinds, trim_of
from .payment import symbols
from .state import END_SPIRITS, END_VP, FAITH_CAP, NO_PAIRING, REFILL_TO
from .view import CardView, SeatView, asking_copies

# A seat's view (view.View); the bots pass it on as the Bot contract hands it over, a plain dict.
View = Mapping[str, Any]


def projected_score(s: SeatView) -> float:
    """A seat's score if the match ended now (chips, points, game-end abilities), scored by the
    engine's own rule (``abilities.end_game_score``) on what the view shows."""
    spirits = Counter(c["kind"] for c in s["spirits"])
    icons, faith = s["icons"], s["faith"]
    total = s["vp"] + sum(
        kinds()[kind]["points"] * n + end_game_score(kind, n, icons, faith)
        for kind, n in spirits.items()
    )
    return float(total)


# Least-squares fit of (final score - projected score) on 80,000 turn starts of heuristic
# self-play (2-4 players); R^2 0.55. Order: turns left, hand, mana, stones, faith, faith*turns,
# stones*turns, (axes+swords)*turns, ability stream, spirits, players, 1.
FUTURE = (2.024, 0.577, -0.190, 0.147, 0.179, 0.064, -0.009, -0.014, 0.213, -0.181, -1.088, 6.751)
# Cards a turn takes from the deck on average (refill 2, the action's draws and stones).
CARDS_PER_TURN = 4.0
# The 9/9 rule's limit on a mana row (stones included).
ROW_LIMIT = 9
_TRIGGER_RATE = {"pilgrimage": 0.18, "research": 0.15, "alchemy": 0.16, "conquest": 0.16}


class Eye:
    """One seat's look at the table, with the values its decisions need."""

    K = {
        "research_rate": 0.15,
        "research_cap": 3.0,
        "faith_rate": 0.15,
        "faith_cap": 2.0,
        "stream": 1.0,
        "icons": 1.1,
        "relief": 1.2,
        "relief_dry": 2.5,
        "pilgrim_faith": 0.3,
        "discount": 0.21,
        "set_growth": 1.0,
    }

    def __init__(self, view: View) -> None:
        self.view = view
        self.seat = view["seat"]
        self.players = int(view["players"])
        self.me: SeatView = view["seats"][self.seat]
        self.pending: Mapping[str, Any] = view["pending"] or {}
        self.hand = [c["kind"] for c in self.me["hand"] or []]
        self.spirits = Counter(c["kind"] for c in self.me["spirits"])
        self.icons = Counter(self.me["icons"])
        self.mana = Counter(c["colour"] for c in self.me["mana"])
        self.turns_left = self._turns_left()
        self.scale = min(1.0, self.turns_left / 5.0)
        self.need = self._colour_need()

    @staticmethod
    def kind(card: str) -> str:
        """The kind id of a card id."""
        return card.rsplit("-", 1)[0]

    def _turns_left(self) -> float:
        v = self.view
        if v["final_turns_left"] is not None:
            return max(1.0, float(v["final_turns_left"]) / self.players)
        progress = float(
            max(max(s["vp"] / END_VP, len(s["spirits"]) / END_SPIRITS) for s in v["seats"])
        )
        return max(1.0, 15.0 * (1.0 - progress) + 1.0)

    def _colour_need(self) -> dict[str, float]:
        need = dict.fromkeys(COLOURS, 0.0)
        for kind in self.hand:
            for symbol in kinds()[kind]["cost"]:
                if symbol != "any":
                    need[symbol] += 1.0
        total = sum(need.values()) or 1.0
        return {c: n / total for c, n in need.items()}

    def laps_of_supply(self) -> float:
        """How many laps of draws the deck and discard pile still hold (about 4 cards a turn)."""
        supply = float(self.view["deck"] + self.view["discard"])
        return supply / (CARDS_PER_TURN * self.players)

    def colour_need(self, colour: str) -> float:
        """Share of the hand's coloured cost symbols that are ``colour``."""
        return self.need[colour]

    def card_value(self) -> float:
        """A card drawn into the hand: worth less the fuller the hand."""
        plenty = min(1.1, max(0.25, 1.4 - 0.12 * len(self.hand)))
        return 0.9 * plenty * self.scale

    def _mana_plenty(self) -> float:
        total = float(sum(self.mana.values()) + self.me["stones"])
        return min(1.0, max(0.15, 1.35 - total / 9.0))

    def mana_value(self, colour: str) -> float:
        """One face-up mana of ``colour``: worth less the fuller the row."""
        return (0.45 + 0.45 * self.need[colour]) * self._mana_plenty() * self.scale

    def stone_value(self) -> float:
        """One philosopher's stone (any colour, and research counts them)."""
        research = min(self.K["research_cap"], self.K["research_rate"] * (self.turns_left - 1))
        return 0.7 * self._mana_plenty() * self.scale + max(0.0, research)

    def faith_value(self) -> float:
        """One faith point, for future pilgrimages and comparisons."""
        if self.me["faith"] >= FAITH_CAP:
            return 0.0
        return max(0.15, min(self.K["faith_cap"], self.K["faith_rate"] * self.turns_left))

    def faith_gain(self, amount: int, copies: int = 1) -> int:
        """Faith ``copies`` gains of ``amount`` would add now: each stops short of 11 (4.4)."""
        room = max(0, FAITH_CAP - int(self.me["faith"]))
        return amount * min(copies, room // amount) if amount > 0 else 0

    def effect_value(self, effects: list[Effect], times: int = 1) -> float:
        """Value of a list of ability effects."""
        total = 0.0
        value: Any  # an effect's amount: an int, or a dict for cards-per-icon and trim
        for effect in effects:
            for name, value in effect.items():
                if name == "vp":
                    total += value
                elif name == "faith":  # copy by copy; a gain past the cap is void (4.4)
                    total += self.faith_gain(value, times) * self.faith_value() / times
                elif name == "draw":
                    total += value * self.card_value()
                elif name == "stone":
                    total += value * self.stone_value()
                elif name == "mana":
                    total += value * 0.5 * self.scale
                elif name == "steal-victim":
                    total += value * 1.4
                elif name == "steal-each":
                    robbed = sum(
                        1 for s in self.view["seats"] if s["seat"] != self.seat and s["vp"]
                    )
                    # Each VP taken is one for this seat and one less for a rival: the whole
                    # swing with one opponent, a share of it when the rivals are several.
                    total += value * robbed * (1.0 + 1.0 / (self.players - 1))
                elif name == "cards-per-icon":
                    total += (self.icons["shield"] + 2) * 0.7 * self.scale
                elif name == "trim":
                    total += 0.5
        return total * times

    def triggers(self, action: str) -> float:
        """What this seat's spirits add when it takes ``action``."""
        total = 0.0
        for kind, count in self.spirits.items():
            ability = kinds()[kind]["ability"]
            if ability["hook"] == "on-action" and action in ability["actions"]:
                total += self.effect_value(ability["effects"], count)
        return total

    def spirit_value(self, kind: str) -> float:
        """Points, icons and the ability's expected worth over the turns left."""
        spec = kinds()[kind]
        t = self.turns_left
        value = float(spec["points"])
        fights = self.icons["axe"] + self.icons["sword"]
        rate = min(0.35, 0.1 + 0.04 * fights)
        other_icon = 0.25 + 0.3 * min(1, self.spirits["chimera"])
        for icon in spec["icons"]:
            value += self.K["icons"] * rate * t if icon in ("axe", "sword") else other_icon
        return value + self._ability_value(kind, spec["ability"], t)

    def _ability_value(self, kind: str, a: Ability, t: float) -> float:
        hook = a["hook"]
        if hook == "on-action":
            rate = sum(_TRIGGER_RATE.get(name, 0.12) for name in a["actions"])
            value = self.effect_value(a["effects"]) * rate * t * self.K["stream"]
            if "pilgrimage" in a["actions"]:  # its faith raises the later pilgrimages' VP
                faith = sum(e.get("faith", 0) for e in a["effects"])
                value += self.K["pilgrim_faith"] * faith * (rate * t) ** 2 / 2
            return value
        if hook == "on-summon":
            return self.effect_value(a["effects"])
        if hook == "end-game":
            return self._end_game_estimate(kind, a)
        if hook == "end-of-turn":
            count = self._end_of_turn_count(a, t)
            return count * self.effect_value(a["effects"]) * self.K["stream"]
        flat = {
            "discount": min(4.0, self.K["discount"] * t),
            "zero-played": 0.15 * t * (2 + self.icons["axe"] + self.icons["sword"]),
            "shift-command": 0.1 * t * a.get("amount", 1),
            "ward": 0.06 * t * (self.players - 1),
            "inquisition-equal": 0.08 * t * (self.players - 1) + self._equal_faith() * 0.1 * t,
            "paid": 0.25 * t,
            "on-assist": 0.55 * t,
            "place-on-summon": 0.16 * t,
        }
        return float(flat.get(hook, 0.0) * self.K["stream"])

    def _equal_faith(self) -> float:
        """Other seats within one faith of this one: who an equal-faith ability may soon reach."""
        mine = int(self.me["faith"])
        others = (s for s in self.view["seats"] if s["seat"] != self.seat)
        return float(sum(1 for s in others if abs(int(s["faith"]) - mine) <= 1))

    def _end_of_turn_count(self, a: Ability, t: float) -> float:
        """How many more turns an end-of-turn ability is expected to fire."""
        if "max_faith" in a:
            return max(0.0, min(0.9 * t, float(a["max_faith"] - self.me["faith"]) + 1.0))
        return 0.35 * t

    def _end_game_estimate(self, kind: str, a: Ability) -> float:
        icons = self.icons + Counter(kinds()[kind]["icons"])
        growth = self.turns_left / 8.0
        if a["score"] == "icon-sets":
            sets = min(icons[i] for i in ICONS) + self.K["set_growth"] * growth
            return float(sets * a["points"])
        if a["score"] == "icons":
            base = float(icons[a["icon"]])
        else:
            base = float(self.me["faith"])
        return float((base + growth) / a["per"] * a["points"])

    def hold_value(self, kind: str) -> float:
        """A card kept in hand: a card, plus part of what it would be as a spirit."""
        spare = self.spirit_value(kind) - 0.5 * len(kinds()[kind]["cost"])
        return self.card_value() + 0.25 * max(0.0, spare) * self.scale

    def paid_value(self, pay: dict[str, int]) -> float:
        """What a payment gives up."""
        total = 0.0
        for name, count in pay.items():
            total += count * (self.stone_value() if name == "stone" else self.mana_value(name))
        return total

    def summon_value(self, kind: str, extra_mana: str | None = None) -> float:
        """Summoning ``kind`` with the cheapest payment (-99 when it cannot be paid)."""
        req, generic, free = self.summon_cost(kind)
        cost = self.cheapest(req, generic, free, extra_mana)
        if cost is None:
            return -99.0
        paid = max(0, sum(req) + generic - free)
        return self.spirit_value(kind) - cost - 0.6 * self.card_value() + self.relief(paid)

    def relief(self, paid: int) -> float:
        """Worth of paying ``paid`` mana out of a row above the 9/9 limit.

        Mana piles up two cards a turn and leaves only as payment; rows past nine cards are
        what empties the deck and the discard pile into the 9/9 rule, which the original says
        happens only very, very rarely. Spending the excess returns it to the discard pile;
        once the supply holds less than ``relief_dry`` laps of draws, every card paid does.
        """
        limit = 0 if self.laps_of_supply() < self.K["relief_dry"] else ROW_LIMIT
        over = len(self.me["mana"]) + int(self.me["stones"]) - limit
        return self.K["relief"] * min(paid, max(0, over))

    def cheapest(
        self, req: tuple[int, ...], generic: int, free: int, extra_mana: str | None = None
    ) -> float | None:
        """Greedy cheapest payment value: reductions where short, stones only when needed."""
        left = Counter(self.mana)
        if extra_mana:
            left[extra_mana] += 1
        need = list(req)
        for i, colour in enumerate(COLOURS):
            waive = min(max(0, need[i] - left[colour]), free)
            need[i] -= waive
            free -= waive
        while free and sum(need):
            i = max((j for j in range(5) if need[j]), key=lambda j: self.mana_value(COLOURS[j]))
            need[i] -= 1
            free -= 1
        stones, cost, stone = self.me["stones"], 0.0, self.stone_value()
        for i, colour in enumerate(COLOURS):
            use = min(need[i], left[colour])
            left[colour] -= use
            stones -= need[i] - use
            cost += use * self.mana_value(colour) + (need[i] - use) * stone
        if stones < 0:
            return None
        pool = sorted(
            [self.mana_value(c) for c in COLOURS for _ in range(left[c])] + [stone] * stones
        )
        if len(pool) < generic:
            return None
        return cost + sum(pool[:generic])

    def best_summon(self, extra_mana: str | None = None, without: str | None = None) -> float:
        """The best summon possible with one more mana of ``extra_mana`` and one card fewer."""
        hand = list(self.hand)
        if without is not None and self.kind(without) in hand:
            hand.remove(self.kind(without))
        return max((self.summon_value(kind, extra_mana) for kind in set(hand)), default=-99.0)

    def summon_cost(self, kind: str) -> tuple[tuple[int, ...], int, int]:
        """Cost after this seat's reductions, as payment.summon_cost computes it."""
        spec = kinds()[kind]
        req, generic = symbols(tuple(spec["cost"]))
        a = spec["ability"]
        if a["hook"] == "self-discount" and not self.spirits[kind]:
            i = COLOURS.index(a["colour"])
            req = req[:i] + (max(0, req[i] - a["amount"]),) + req[i + 1 :]
        free = sum(
            n * kinds()[k]["ability"].get("amount", 1)
            for k, n in self.spirits.items()
            if kinds()[k]["ability"]["hook"] == "discount"
        )
        return req, generic, free

    def pairing_number(self) -> int:
        """The number Phase I will pair with (D5, D6)."""
        mana = self.me["mana"]
        for card in mana:
            if card["pairing"]:
                return int(card["number"])
        return int(mana[-1]["number"]) if mana else NO_PAIRING

    def command_numbers(self, played: int) -> set[int]:
        """Command numbers reachable when playing a card numbered ``played``."""
        base = self.pairing_number()
        numbers = {base + played}
        if self.spirits["asmodai"]:
            numbers.add(base)
        shift = self.spirits["sandman"]
        return {n + d for n in numbers for d in range(-shift, shift + 1)}

    def is_pairing(self, card: str) -> bool:
        """True when ``card`` is this seat's pending pairing card."""
        return any(c["id"] == card and c["pairing"] for c in self.me["mana"])

    def act_value(
        self, name: str, action: Mapping[str, Any] | None = None, extra_mana: str | None = None
    ) -> float:
        """Immediate worth of taking action ``name`` (with its choice, if given)."""
        choice = (action or {}).get("choice")
        me = self.me
        card, faith = self.card_value(), self.faith_value()
        others = [s for s in self.view["seats"] if s["seat"] != self.seat]
        if name == "conquest":
            base = self.icons["axe"] + self.icons["sword"] + 1.0
            base += 0.5 if (action or {}).get("victim") is not None else 0.0
        elif name == "research":
            base = me["stones"] + self.stone_value() - 0.45 * self.scale
        elif name == "alchemy":
            gain = {"draw": card, "faith": faith}.get(choice or "", max(card, faith))
            base = gain + self.stone_value()
        elif name == "prayer":
            refill = max(0, REFILL_TO - len(self.hand) + (1 if extra_mana else 0)) * card
            base = {"draw": 2 * card, "refill": refill}.get(choice or "", max(2 * card, refill))
        elif name == "festival":
            lower = any(s["faith"] < min(10, me["faith"] + 1) for s in others)
            base = faith + (2 if lower else 1) * 0.55 * self.scale
        elif name == "inquisition":
            givers = sum(1 for s in others if s["faith"] < me["faith"] and s["hand_count"])
            base = (2 if self.players == 4 else 3) * card + 0.6 * givers * self.scale
        else:
            gains = {"vp": float(me["faith"]), "faith": card + faith}
            base = gains.get(choice or "", max(gains.values()))
        return base + self.triggers(name)

    def paid_ability_value(self, kind: str) -> float:
        """A paid ability: its effects minus the cheapest payment."""
        ability = kinds()[kind]["ability"]
        cost = self.cheapest(*symbols(tuple(ability["cost"])), 0)
        return -99.0 if cost is None else self.effect_value(ability["effects"]) - cost

    def place_value(self, card: str) -> float:
        """Baltanders: placing a spare card as mana commits this turn to a summon."""
        if len(self.hand) < 6:
            return -5.0
        return (
            self.best_summon(kinds()[self.kind(card)]["colour"], card)
            - self.hold_value(self.kind(card))
            + 0.4
        )

    def assist_bonus(self, other: CardView) -> float:
        """Cerberus pays for assisting a high card."""
        return float(self.spirits["cerberus"]) if other["number"] >= 4 else 0.0

    def ask_value(self, kind: str, copies: int | None = None) -> float:
        """Using an asked ability now (``copies`` of the copies asking; None: all of them):
        Nightmare's trim by what it takes from whom, Kasha's by the cards the players of equal
        faith would give, the others by their effects, less what their faith would void later
        (a gain of 2 in hand, Vodyanoy's, is void from faith 9: 4.4)."""
        if trim_of(kind) is not None:
            return self.nightmare_gain()
        ability = kinds()[kind]["ability"]
        if ability["hook"] == "inquisition-equal":
            mine = self.me["faith"]
            equal = sum(
                1 for s in self.view["seats"] if s["seat"] != self.seat and s["faith"] == mine
            )
            return equal * self.card_value()
        used = asking_copies(self.view["waiting"], kind) if copies is None else copies
        value = self.effect_value(ability.get("effects", []), used)
        gained = sum(e.get("faith", 0) for e in ability.get("effects", []))
        if gained and self.faith_gain(gained, used) + self.me["faith"] == FAITH_CAP - 1:
            value -= self.void_later() * self.faith_value()
        return value

    def void_later(self) -> int:
        """Faith this seat's hand would gain by one spirit's "gain 2" (Vodyanoy), which faith 9
        voids while 8 would not."""
        return (
            max(
                (
                    e.get("faith", 0)
                    for kind in self.hand
                    for e in kinds()[kind]["ability"].get("effects", [])
                    if kinds()[kind]["ability"]["hook"] == "on-summon"
                ),
                default=0,
            )
            // 2
            * 2
        )

    def nightmare_gain(self) -> float:
        """Cards the others would lose minus cards this seat would lose."""

        def excess(s: SeatView) -> int:
            return max(0, int(s["hand_count"]) - 6) + max(0, len(s["mana"]) + int(s["stones"]) - 7)

        mine = excess(self.me)
        theirs = sum(excess(s) for s in self.view["seats"] if s["seat"] != self.seat)
        return 0.6 * float(theirs - mine * (self.players - 1))

    projected = staticmethod(projected_score)  # a seat's score if the match ended now

    def position_value(self) -> float:
        """Projected score plus the expected further gain, fitted on heuristic self-play."""
        me = self.me
        t = self.turns_left
        stream = 0.0
        for kind, count in self.spirits.items():
            ability = kinds()[kind]["ability"]
            if ability["hook"] != "end-game":
                stream += count * self._ability_value(kind, ability, t)
        fights = self.icons["axe"] + self.icons["sword"]
        features = (
            t,
            len(self.hand),
            sum(self.mana.values()),
            me["stones"],
            me["faith"],
            me["faith"] * t,
            me["stones"] * t,
            fights * t,
            stream,
            len(me["spirits"]),
            self.players,
            1.0,
        )
        future = sum(w * float(f) for w, f in zip(FUTURE, features, strict=True))
        return self.projected(me) + future

    def projected_margin(self) -> float:
        """This seat's projected score minus the best other's."""
        mine = self.projected(self.me)
        return mine - max(self.projected(s) for s in self.view["seats"] if s["seat"] != self.seat)
