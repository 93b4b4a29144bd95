"""The rules cores load alone: importing one brings no web framework, no database driver and
no module of the layers above it, so the engines run the same in a test, a bot simulation, the
export worker or a page."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORES = (
    "companion.legacy.engine",
    "companion.cardgames",
    "companion.cardgames.traitors_flame",
    "companion.cardgames.summoners",
)
# Top-level modules a rules core must not load, and the companion's packages above the cores.
FORBIDDEN = ("flask", "werkzeug", "jinja2", "flask_babel", "sqlite3", "sqlite_utils", "psycopg")
ABOVE = ("companion.text", "companion.store", "companion.streams", "companion.export")
ABOVE += ("companion.live", "companion.web", "companion.ops", "companion.app")


def loaded_by(module: str) -> set[str]:
    """The modules a fresh interpreter holds after importing ``module`` (and its registry)."""
    code = (
        "import importlib, json, sys\n"
        f"m = importlib.import_module({module!r})\n"
        "getattr(m, 'game_keys', lambda: None)()\n"  # the card games' registry loads each game
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return set(json.loads(done.stdout))


def offending(modules: set[str]) -> list[str]:
    """The loaded modules no rules core may bring."""
    return sorted(
        name
        for name in modules
        if name.split(".")[0] in FORBIDDEN
        or any(name == a or name.startswith(a + ".") for a in ABOVE)
    )


@pytest.mark.parametrize("module", CORES)
def test_a_rules_core_loads_no_web_database_or_upper_layer(module: str) -> None:
    modules = loaded_by(module)
    assert module in modules
    assert offending(modules) == []


def test_the_check_sees_the_web_app() -> None:
    assert {"flask", "companion.export.rendering"} <= set(offending(loaded_by("companion.app")))
