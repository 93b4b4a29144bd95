"""The README's set-up scripts: the app's set-up succeeds on a machine the tests set up."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow  # installs into .venv and compiles the catalogues in place
def test_the_app_setup_runs_to_the_end() -> None:
    result = subprocess.run(
        ["bash", str(ROOT / "scripts" / "setup")], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (ROOT / "companion" / "translations" / "ja" / "LC_MESSAGES" / "messages.mo").is_file()


def _pinned(lock: Path) -> set[str]:
    names = set()
    for line in lock.read_text().splitlines():
        if line and not line[0].isspace() and "==" in line:
            names.add(line.split("==", 1)[0].strip().lower())
    return names


def _requirement_names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower() for r in requirements}


def test_the_locks_pin_every_dependency_with_hashes() -> None:
    """A dependency added to pyproject.toml without running scripts/lock fails here."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    app = _requirement_names(project["dependencies"])
    test = app | _requirement_names(project["optional-dependencies"]["test"])
    postgres = app | _requirement_names(project["optional-dependencies"]["postgres"])
    locks = (("app.lock", app), ("test.lock", test), ("postgres.lock", postgres))
    for lock, wanted in locks:
        path = ROOT / "requirements" / lock
        assert wanted <= _pinned(path), f"{lock} lacks {sorted(wanted - _pinned(path))}"
        pins = [line for line in path.read_text().splitlines() if "==" in line]
        assert all(line.rstrip().endswith("\\") for line in pins), "a pin without hashes"


def _pins(lock: str) -> dict[str, str]:
    path = ROOT / "requirements" / lock
    return dict(
        line.split(" ", 1)[0].split("==", 1)
        for line in path.read_text().splitlines()
        if line and not line[0].isspace() and "==" in line
    )


def test_the_postgresql_lock_is_the_app_lock_plus_psycopg_at_the_tested_versions() -> None:
    app, postgres, test = _pins("app.lock"), _pins("postgres.lock"), _pins("test.lock")
    assert {k: v for k, v in postgres.items() if k in app} == app
    extra = set(postgres) - set(app)
    assert {"psycopg", "psycopg-binary"} <= extra
    assert all(postgres[name] == test[name] for name in extra)
