"""The sample life: one Pioneer's whole chronicle, written in Japanese and in English.

Each ``life.<language>.json`` holds ``setup`` (the Pioneer, the players, the keystones) and
``commands``: every command of a table-mode chronicle, in the form of ``command_to_dict``, from the
first card to the epilogue. The start page and ``companion demo`` replay it through the rules core.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from companion.base.languages import DEFAULT, LANGUAGES
from companion.legacy import Keystone, Setup, command_from_dict
from companion.legacy.commands import Command
from companion.packs.registry import get_pack

SAMPLES_DIR = Path(__file__).parent


class UnknownSampleError(ValueError):
    """There is no sample life in this language."""


def load_sample(language: str) -> dict[str, Any]:
    """The sample life in ``language`` (one of ``LANGUAGES``) as plain data: ``setup`` and ``commands``."""
    if language not in LANGUAGES:
        raise UnknownSampleError(f"no sample life in language {language!r}")
    path = SAMPLES_DIR / f"life.{language}.json"
    if not path.is_file():  # a language added without its own sample reads the default one
        path = SAMPLES_DIR / f"life.{DEFAULT}.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def sample_setup(sample: dict[str, Any]) -> Setup:
    """The rules core's ``Setup`` for a sample, its prompts taken from the pack it names."""
    setup = sample["setup"]
    pack = get_pack(setup["pack"], setup["language"])
    return Setup(
        pioneer=setup["pioneer"]["name"],
        concept=setup["pioneer"]["concept"],
        people=setup["pioneer"]["people"],
        players=tuple(setup["players"]),
        oldest=setup["oldest"],
        keystones=tuple(Keystone(**keystone) for keystone in setup["keystones"]),
        prompts=dict(pack.prompts),
        pack_name=pack.name,
        language=setup["language"],
        mode=setup["mode"],
        lines=setup.get("lines", ""),
        veils=setup.get("veils", ""),
    )


def sample_commands(sample: dict[str, Any]) -> list[Command]:
    """The sample's commands as the rules core's command objects, in order."""
    return [command_from_dict(data) for data in sample["commands"]]
