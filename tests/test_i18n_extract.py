"""The catalogue is offered every block of the card games' rules, under each game's context."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_file
from babel.messages.frontend import parse_mapping_cfg

from companion.cardgames import game_keys, get_game
from companion.ops.i18n_extract import extract_rules
from companion.text.blocks import blocks

ROOT = Path(__file__).resolve().parents[1]


def extracted() -> set[tuple[str | None, str]]:
    """What ``pybabel extract -F babel.cfg`` finds in the files babel.cfg maps to the rules
    extractor, as (context, message) pairs."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as read:
        methods, options = parse_mapping_cfg(read)
    found = set()
    for pattern, method in methods:
        if not method.endswith(":extract_rules"):
            continue
        for path in sorted(ROOT.glob(pattern)):
            for _, message, _, context in extract_from_file(
                method, str(path), DEFAULT_KEYWORDS, options=options[pattern]
            ):
                found.add((context, message))
    return found


def test_every_block_of_every_game_is_extracted_with_its_context() -> None:
    wanted = {(key, b.text) for key in game_keys() for b in blocks(get_game(key).rules())}
    assert extracted() == wanted


def test_a_rules_file_without_a_context_is_refused() -> None:
    source = io.BytesIO(b"# The aim\n")
    source.name = "companion/cardgames/new_game/rules.md"
    with pytest.raises(ValueError, match="new_game/rules.md"):
        list(extract_rules(source, DEFAULT_KEYWORDS, [], {}))
