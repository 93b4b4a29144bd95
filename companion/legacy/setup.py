"""The chronicle's setup: the Pioneer, the players, the keystones and the prompt pack snapshot."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from companion.base.languages import LANGUAGES
from companion.base.limits import TEXT_LIMIT

from .cards import CARDS
from .errors import N_, RuleError

KINDS = ("resource", "attachment", "creed")  # also the sacrifice order (4.4)
MODES = ("digital", "table")
MAX_PLAYERS = 8
MAX_PER_KIND = 6
MAX_PROMPTS = 4
DEFAULT_COUNTS = (3, 3, 3)


@dataclass(frozen=True)
class Keystone:
    """A resource, attachment or creed of the Pioneer, as written at setup (1.5, 2.2)."""

    id: str
    kind: str
    name: str
    description: str = ""


@dataclass(frozen=True)
class Setup:
    """Everything fixed when the chronicle starts; it is stored whole in ``ChronicleStarted``.

    ``players`` are in clockwise seating order and ``oldest`` is the index of the oldest (2.3).
    ``prompts`` is a snapshot of the pack: card code to its 1-4 prompts, for all 52 cards.
    """

    pioneer: str
    concept: str
    players: tuple[str, ...]
    oldest: int
    keystones: tuple[Keystone, ...]
    prompts: Mapping[str, tuple[str, ...]]
    pack_name: str = "standard"
    people: str = ""
    language: str = "en"
    mode: str = "digital"
    forgiving_undo: bool = False
    lines: str = ""
    veils: str = ""
    # Every device shows the texts of the turn as they are typed; chronicles begun before the
    # choice existed read as on, as they behaved.
    show_writing: bool = True


def placeholder_keystones(counts: tuple[int, int, int] = DEFAULT_COUNTS) -> tuple[Keystone, ...]:
    """Keystones named "Resource 1", "Creed 2"...: for simulations, tests and a setup form's draft."""
    return tuple(
        Keystone(f"{kind[0]}{number}", kind, f"{kind.capitalize()} {number}")
        for kind, count in zip(KINDS, counts, strict=True)
        for number in range(1, count + 1)
    )


def validate_setup(setup: Setup) -> None:
    """Raise RuleError for the first thing wrong with ``setup``."""
    check_text(setup.pioneer, required=N_("Give the Pioneer a name."))
    for text in (setup.concept, setup.people, setup.pack_name, setup.lines, setup.veils):
        check_text(text)
    _check_choice(setup.language, LANGUAGES, N_("Unknown language %(value)r."))
    _check_choice(setup.mode, MODES, N_("Unknown mode %(value)r: use digital or table."))
    _check_players(setup.players, setup.oldest)
    _check_keystones(setup.keystones)
    _check_prompts(setup.prompts)


def check_text(text: object, required: str | None = None) -> str:
    """The text itself if it may be stored; RuleError if too long, or blank when ``required``.

    ``required`` is the message shown when the text is blank.
    """
    if type(text) is str and len(text) <= TEXT_LIMIT and (required is None or text.strip()):
        return text  # the common case, first: simulations check millions of texts
    if not isinstance(text, str):
        raise RuleError("bad-text", N_("Expected a text, got %(value)r."), "1.6", value=text)
    if len(text) > TEXT_LIMIT:
        raise RuleError(
            "text-too-long",
            N_("This text has %(length)s characters; the limit is %(limit)s."),
            "1.6",
            length=len(text),
            limit=TEXT_LIMIT,
        )
    if required is not None and not text.strip():
        raise RuleError("text-required", required, "1.6")
    return text


def _check_choice(value: str, choices: tuple[str, ...], message: str) -> None:
    if value not in choices:
        raise RuleError("bad-setup", message, "2.2", value=value)


def _check_players(players: tuple[str, ...], oldest: int) -> None:
    if not 1 <= len(players) <= MAX_PLAYERS:
        raise RuleError(
            "player-count",
            N_("A chronicle needs 1 to %(limit)d players, not %(count)d."),
            "1.7",
            limit=MAX_PLAYERS,
            count=len(players),
        )
    for name in players:
        check_text(name, required=N_("Every player needs a name."))
    if len({name.strip().casefold() for name in players}) < len(players):
        raise RuleError("duplicate-player", N_("Two players have the same name."), "D14")
    if isinstance(oldest, bool) or not isinstance(oldest, int) or not 0 <= oldest < len(players):
        raise RuleError(
            "bad-oldest", N_("Mark one of the players as the oldest."), "2.3", value=oldest
        )


def _check_keystones(keystones: tuple[Keystone, ...]) -> None:
    for keystone in keystones:
        _check_keystone(keystone)
    if len({keystone.id for keystone in keystones}) < len(keystones):
        raise RuleError("duplicate-keystone", N_("Two keystones have the same id."), "2.2")
    for kind in KINDS:
        count = sum(1 for keystone in keystones if keystone.kind == kind)
        if count > MAX_PER_KIND:
            raise RuleError(
                "keystone-count",
                N_("The Pioneer may have at most %(limit)d keystones of one kind, not %(count)d."),
                "D1",
                limit=MAX_PER_KIND,
                count=count,
            )


def _check_keystone(keystone: Keystone) -> None:
    check_text(keystone.id, required=N_("Every keystone needs an id."))
    if keystone.kind not in KINDS:
        raise RuleError(
            "bad-keystone-kind",
            N_("A keystone is a resource, an attachment or a creed, not %(value)r."),
            "1.5",
            value=keystone.kind,
        )
    check_text(keystone.name, required=N_("Every keystone needs a name."))
    check_text(keystone.description)


def _check_prompts(prompts: Mapping[str, tuple[str, ...]]) -> None:
    unknown = sorted(set(prompts) - set(CARDS))
    missing = [card for card in CARDS if card not in prompts]
    if unknown or missing:
        raise RuleError(
            "bad-pack",
            N_("The prompt pack must give prompts for exactly the 52 cards; check %(cards)s."),
            "1.4",
            cards=", ".join(missing + unknown),
        )
    for card in CARDS:
        _check_card_prompts(card, prompts[card])


def _check_card_prompts(card: str, texts: tuple[str, ...]) -> None:
    if not isinstance(texts, tuple) or not 1 <= len(texts) <= MAX_PROMPTS:
        raise RuleError(
            "bad-pack",
            N_("Card %(card)s needs 1 to %(limit)d prompts."),
            "D2",
            card=card,
            limit=MAX_PROMPTS,
        )
    for text in texts:
        check_text(text, required=N_("A prompt of the pack is empty."))
