"""The two contracts a card game keeps: its rules engine (``CardGame``) and its board (``Board``
and the game's own protocol). The table shell and the CLI reach a game only through them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from companion.cardgames import game_keys, get_game
from companion.web import boards

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "templates" / "tables"
PROTOCOLS = {"traitors-flame": boards.TraitorsFlameBoard, "age-of-summoners": boards.SummonersBoard}
SHELL = [
    "web/tables/pages.py",
    "web/tables/view.py",
    "web/tables/setup.py",
    "web/tables/choosing.py",
    "web/shell/streams.py",
    "ops/cli.py",
]
SHELL += ["streams/matches.py", "streams/match_replay.py"]


def members(protocol: type) -> set[str]:
    return {name for name in dir(protocol) if not name.startswith("_")}


def called(folder: Path) -> set[str]:
    """Every ``board.<member>`` the templates directly in ``folder`` call."""
    return {
        name
        for path in folder.glob("*.html")
        for name in re.findall(r"\bboard\.([a-z_]+)\(", path.read_text("utf-8"))
    }


def test_the_shared_table_templates_call_only_the_board_contract() -> None:
    used = called(TEMPLATES)
    assert used and used <= members(boards.Board)


@pytest.mark.parametrize("key", sorted(PROTOCOLS))
def test_each_games_templates_call_only_its_board_protocol(key: str) -> None:
    used = called(TEMPLATES / key)
    assert used and used <= members(PROTOCOLS[key])
    assert members(boards.Board) <= members(PROTOCOLS[key])


def test_the_shell_reaches_a_game_only_through_the_contracts() -> None:
    games = re.compile(r"cardgames\.(traitors_flame|summoners)|boards\.(traitors_flame|summoners)")
    for name in SHELL:
        tree = ast.parse((ROOT / "companion" / name).read_text("utf-8"))
        imported = [
            node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
        ] + [
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        ]
        assert not [module for module in imported if games.search(module)], name


def test_an_engine_holds_no_words_its_board_names_the_game() -> None:
    for key in game_keys():
        assert not hasattr(get_game(key), "names")
        assert callable(boards.board_for(key).name)
