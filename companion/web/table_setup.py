"""The lobby form read into a table: seats (with default names) and the game's options."""

from __future__ import annotations

from typing import Any

from flask_babel import force_locale
from flask_babel import gettext as _

from .. import languages, matches
from ..cardgames import game_keys, game_name, get_game

SEAT_ROWS = 6


def seats_from(form: Any, language: str) -> list[matches.Seat]:
    """The filled seats in order; a seat left without a name is called "Player 3" / "プレイヤー3"."""
    seats = []
    with force_locale(languages.known(language)):
        for i in range(SEAT_ROWS):
            kind = form.get(f"seat-{i}-kind", "none")
            name = form.get(f"seat-{i}-name", "").strip()
            if kind == "person":
                seats.append(matches.Seat(name or _("Player %(n)d", n=i + 1)))
            elif kind in matches.BOT_LEVELS:
                seats.append(matches.Seat(name or _("Bot %(n)d", n=i + 1), kind))
    return seats


def options_from(form: Any, key: str) -> dict[str, Any]:
    """The game's options as the form set them; each one the form left out keeps its default.

    The lobby sends ``options-<game>`` with its checkboxes, so an unticked box reads as off."""
    if key not in game_keys():
        return {}
    shown = form.get(f"options-{key}") == "1"
    chosen: dict[str, Any] = {}
    for option in get_game(key).options:
        if option["type"] == "bool":
            field = f"option-{key}-{option['key']}"
            chosen[option["key"]] = form.get(field) == "1" if shown else option["default"]
    return chosen


def option_rows(lang: str) -> list[dict[str, Any]]:
    """Per game, its options with their words in ``lang``, for the lobby form."""
    rows = []
    for key in game_keys():
        game = get_game(key)
        rows.append(
            {
                "game": key,
                "name": game_name(game, lang),
                "options": [
                    {
                        **option,
                        "field": f"option-{key}-{option['key']}",
                        "label_text": option_words(key, option["label"], lang),
                        "help_text": option_words(key, option["help"], lang),
                    }
                    for option in game.options
                ],
            }
        )
    return [row for row in rows if row["options"]]


def option_words(key: str, message: str, lang: str) -> str:
    """An option's label or help sentence in ``lang``, as the game's board says it."""
    from flask_babel import force_locale

    from .boards import board_for

    with force_locale(lang):
        return str(board_for(key).option_words(message))
