"""The extension points are tables, and the checklists of ``docs/architecture.md`` ("Adding a
layout", "Adding a card game") name every place a new entry must reach: each registered entry is
found in each named file, and each place named with ``<key>`` exists."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import pytest
from flask import Flask

from companion.cardgames import GAMES, game_keys, game_package, get_game
from companion.export import EDITIONS, FORMATS, editions
from companion.web import boards

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURE = ROOT / "docs" / "architecture.md"
PLACE = re.compile(r"`((?:companion|docs|templates|static)/[^`]+|babel\.cfg)`")


def checklist(title: str) -> list[str]:
    """The files and folders a section of docs/architecture.md names, in order."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
    return PLACE.findall(section)


def missing(
    places: list[str], keys: tuple[str, ...], packages: Mapping[str, str] | None = None
) -> list[str]:
    """Where a key is not: a named file without it, or a ``<key>`` place (``<package>``: the
    key's package in ``packages``) that is not there."""
    found = []
    for place in places:
        for key in keys:
            if "<key>" in place or "<package>" in place:
                named = place.replace("<key>", key)
                named = named.replace("<package>", (packages or {}).get(key, "<package>"))
                if not (ROOT / named).exists():
                    found.append(named)
            elif (ROOT / place).is_file():
                text = (ROOT / place).read_text(encoding="utf-8")
                if not re.search(rf"(?<![\w-]){re.escape(key)}(?![\w-])", text):
                    found.append(f"{key} in {place}")
    return found


def test_the_layout_checklist_names_every_place_and_each_holds_every_layout() -> None:
    places = checklist("Adding a layout")
    assert {"companion/export/editions.py", "docs/exports.md"} <= set(places)
    assert [p for p in places if not (ROOT / p).exists()] == []
    assert missing(places, editions.LAYOUTS) == []


def test_the_card_game_checklist_names_every_place_and_each_holds_every_game() -> None:
    places = checklist("Adding a card game")
    assert "companion/cardgames/__init__.py" in places and "templates/tables/<key>/" in places
    assert {"companion/cardgames/<package>/", "companion/web/boards/<package>/"} <= set(places)
    assert [p for p in places if "<" not in p and not (ROOT / p).exists()] == []
    assert missing(places, game_keys(), GAMES) == []


def test_the_checklist_check_sees_a_missing_entry() -> None:
    assert missing(["docs/exports.md"], ("booklet-sideways",)) == [
        "booklet-sideways in docs/exports.md"
    ]
    assert missing(["templates/tables/<key>/"], ("chess",)) == ["templates/tables/chess/"]
    assert missing(["companion/web/boards/<package>/"], ("chess",), {"chess": "chess"}) == [
        "companion/web/boards/chess/"
    ]


def test_every_game_has_exactly_one_board_and_every_board_a_game() -> None:
    """The card games' one registry finds each game's engine and board by the same package name:
    no board package is left without a game, none is shared, and each game's engine and board
    are the packages the registry names."""
    assert list(boards.boards()) == list(game_keys()) == list(GAMES)
    board_packages = {p.name for p in (ROOT / "companion/web/boards").iterdir() if p.is_dir()}
    assert board_packages - {"__pycache__"} == {game_package(key) for key in game_keys()}
    assert len(set(GAMES.values())) == len(GAMES)  # no package registered under two keys
    for key in game_keys():
        package = game_package(key)
        assert get_game(key).key == key
        engine_module = type(get_game(key)).__module__ + "."
        assert engine_module.startswith(f"companion.cardgames.{package}.")
        assert boards.board_for(key).__name__ == f"companion.web.boards.{package}"
    with pytest.raises(KeyError):
        boards.board_for("chess")
    with pytest.raises(KeyError):
        get_game("chess")


def test_the_book_formats_are_the_layouts_formats() -> None:
    assert [f for f in FORMATS if f not in ("md", "json")] == list(editions.FORMATS)


# The home-printer PDF is named by its edition and paper alone.
@pytest.mark.parametrize("key", [key for key in editions.LAYOUTS if key != "book"])
def test_each_layout_has_a_name_on_the_exports_page(app: Flask, key: str) -> None:
    from companion.web.chronicle.export_view import _layout_name

    with app.test_request_context("/?lang=ja"):
        assert _layout_name(key)


def test_an_unknown_layout_is_refused_not_made_as_another() -> None:
    from companion.export.contents import EditionError
    from companion.export.editions import make, parse_layout

    with pytest.raises(EditionError):
        parse_layout("epub-sideways")
    with pytest.raises(EditionError):
        make(None, "story", "a5", "book-sideways", ROOT / "static")  # type: ignore[arg-type]


def test_chromium_is_said_by_the_table() -> None:
    chromium = {
        (vertical, booklet): editions.needs_chromium(
            editions.layouts_for("pdf", False, vertical, 0.1, booklet)
        )
        for vertical in (False, True)
        for booklet in (False, True)
    }
    assert chromium == {(False, False): False, (False, True): False, (True, False): True,
                        (True, True): True}  # fmt: skip
    assert not editions.needs_chromium(editions.layouts_for("epub", False, True, 0.1))
    assert editions.layouts_for("pdf", True, False, 0.1) == ["print", "cover-100"]
    assert editions.layouts_for("epub", False, True, 0.1) == ["epub-vertical"]
    with pytest.raises(
        Exception, match=r"no pdf book is made that way \(ways: plain, print shop, vertical, "
    ):
        editions.layouts_for("pdf", True, True, 0.1)


@pytest.mark.parametrize("edition", EDITIONS)
def test_each_edition_has_a_name_and_a_download_route(app: Flask, edition: str) -> None:
    from companion.export.rendering import edition_name

    with app.test_request_context("/?lang=ja"):
        assert edition_name(edition) != edition_name(next(e for e in EDITIONS if e != edition))
    rules = [r.rule for r in app.url_map.iter_rules() if "/book/v<int:version>-" in r.rule]
    assert len(rules) == 2 and all(f'"{edition}"' in rule for rule in rules)
