"""The lobby form read into a table: seats (with default names) and the game's options."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask_babel import force_locale

from companion.base import languages
from companion.cardgames import GameOption, game_keys, get_game, in_lobby, shown
from companion.legacy.errors import N_
from companion.streams import matches
from companion.text.wording import gettext as _

SEAT_ROWS = 6
# Digits enough for any number option (a seat, a cap on rounds); more is not a lobby choice.
NUMBER_DIGITS = 4
Form = Mapping[str, Any]


def seats_from(form: Form, language: str) -> list[matches.Seat]:
    """The filled seats in order; raises MatchSetupError for a row's kind the lobby never sends.

    A row left empty but given a name seats that person, and a seat without a name is called
    by its number among the seats ("Player 3" / "プレイヤー3"), whichever rows are empty.
    """
    seats: list[matches.Seat] = []
    with force_locale(languages.known(language)):
        for i in range(SEAT_ROWS):
            kind, name = str(form.get(f"seat-{i}-kind", "none")), _field(form, f"seat-{i}-name")
            if kind == "none" and name:
                kind = "person"
            if kind not in ("none", "person", *bot_levels()):
                raise matches.MatchSetupError(N_("Choose who plays each seat from the list."))
            if kind != "none":
                seats.append(_seat(kind, name, len(seats) + 1))
    return seats


CHOICE_LIMIT = 64  # characters of a choice the lobby offers (a game, a mode, a kind of seat)


def keepable(form: Form) -> dict[str, str]:
    """The lobby's own fields of a refused form, as it is kept to be shown again: a seat's name
    cut to what a seat's name may be, every other field to a choice's length; any field the
    lobby does not have is left out."""
    names = {f"seat-{i}-name" for i in range(SEAT_ROWS)}
    kept = {}
    for name, value in form.items():
        if not isinstance(value, str) or not _lobby_field(name):
            continue
        kept[name] = value[: matches.SEAT_NAME_LIMIT if name in names else CHOICE_LIMIT]
    return kept


def _lobby_field(name: str) -> bool:
    if name in ("game", "mode", "language"):
        return True
    if name.startswith("seat-"):
        row, _, what = name.removeprefix("seat-").partition("-")
        return what in ("kind", "name") and row.isdigit() and int(row) < SEAT_ROWS
    if name.startswith("options-"):
        return name.removeprefix("options-") in game_keys()
    return any(
        name == field_name(key, option) for key in game_keys() for option in lobby_options(key)
    )


def bot_levels() -> list[str]:
    """Every bot level the games offer, in the order they name them."""
    return list(dict.fromkeys(level for key in game_keys() for level in get_game(key).bots()))


def _field(form: Form, name: str) -> str:
    value = form.get(name, "")
    return value.strip() if isinstance(value, str) else ""


def _seat(kind: str, name: str, number: int) -> matches.Seat:
    if kind == "person":
        return matches.Seat(name or _("Player %(n)d", n=number))
    return matches.Seat(name or _("Bot %(n)d", n=number), kind)


def field_name(key: str, option: GameOption) -> str:
    """The lobby form's field of one option."""
    return f"option-{key}-{option['key']}"


def lobby_options(key: str) -> list[GameOption]:
    """The options of the game ``key`` the lobby offers, in the schema's order."""
    return [option for option in get_game(key).options if in_lobby(option)]


def options_from(form: Form, key: str) -> dict[str, Any]:
    """The game's options as the form set them; each one the form left out keeps its default.

    The lobby sends ``options-<game>`` with its checkboxes, so an unticked box reads as off.
    Raises MatchSetupError for a field naming an option the lobby does not offer, or a value
    none of its choices sends."""
    if key not in game_keys():
        return {}
    _refuse_unknown(form, key)
    shown_here = form.get(f"options-{key}") == "1"
    chosen: dict[str, Any] = {}
    for option in lobby_options(key):
        value = _value(option, form.get(field_name(key, option)), shown_here)
        if value is not None:
            chosen[option["key"]] = value
    return chosen


def _refuse_unknown(form: Form, key: str) -> None:
    """An ``option-`` field of this game the lobby does not offer, or of no game, is refused;
    the other games' fields are the lobby's other fieldsets."""
    offered = {field_name(key, option) for option in lobby_options(key)}
    others = tuple(f"option-{other}-" for other in game_keys() if other != key)
    for name in form:
        if name.startswith("option-") and name not in offered and not name.startswith(others):
            raise matches.MatchSetupError(
                N_("There is no option %(option)s in this game."),
                option=shown(name.removeprefix(f"option-{key}-")),
            )


def _value(option: GameOption, raw: Any, shown_here: bool) -> bool | int | None:
    """An option's value from its field: a box is on ("1") or off; a number is its digits."""
    if option["type"] == "bool":
        if raw is None or raw == "1":
            return raw == "1" if shown_here else bool(option["default"])
    elif raw is None or raw == "":
        return None  # left to its default (a start seat: the deal picks one)
    elif isinstance(raw, str) and raw.isascii() and raw.isdigit() and len(raw) <= NUMBER_DIGITS:
        return int(raw)
    raise matches.MatchSetupError(N_("Choose the table's options from the list."))


def option_rows(lang: str) -> list[dict[str, Any]]:
    """Per game, the options the lobby offers with their words in ``lang``, for the form."""
    rows = []
    for key in game_keys():
        game = get_game(key)
        options = [
            _option_row(key, option, game.max_players, lang) for option in lobby_options(key)
        ]
        rows.append({"game": key, "name": name_in(key, lang), "options": options})
    return [row for row in rows if row["options"]]


def _option_row(key: str, option: GameOption, seats: int, lang: str) -> dict[str, Any]:
    row: dict[str, Any] = {
        **option,
        "field": field_name(key, option),
        "label_text": option_words(key, option["label"], lang),
        "help_text": option_words(key, option["help"], lang),
    }
    if option["type"] == "seat":
        with force_locale(lang):
            row["choices"] = [("", _("Chosen at random"))] + [
                (str(seat), _("Seat %(n)d", n=seat + 1)) for seat in range(seats)
            ]
    return row


def name_in(key: str, lang: str) -> str:
    """The game's name in ``lang``, as its board says it (a table's title, the lobby)."""
    from companion.web.boards import board_for

    with force_locale(lang):
        return board_for(key).name()


def option_words(key: str, message: str, lang: str) -> str:
    """An option's label or help sentence in ``lang``, as the game's board says it."""
    from companion.web.boards import board_for

    with force_locale(lang):
        return board_for(key).option_words(message)
