"""The README's scripts: the app's set-up succeeds on a machine the tests set up, the locks pin
everything, and scripts/test runs every test (scripts/test --quick all but the slow and browser
ones)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
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


def _entry(lock: Path, name: str) -> list[str]:
    """The lines of ``name``'s pin in ``lock``: its version and its hashes."""
    lines = lock.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{name}=="))
    end = start + 1
    while end < len(lines) and lines[end].lstrip().startswith("--hash"):
        end += 1
    return lines[start:end]


def test_pip_is_locked_once_and_installed_first_at_the_locks_version() -> None:
    """requirements/pip.lock, installed before any lock (the pip a new venv starts with refuses
    a locked package another asks for with an extra), pins the pip every lock pins."""
    pip = (ROOT / "requirements" / "pip.lock").read_text().splitlines()
    assert pip[0].startswith("pip==") and len(pip) > 1
    for lock in ("app.lock", "test.lock", "postgres.lock"):
        assert _entry(ROOT / "requirements" / lock, "pip") == pip, lock
    steps = (("scripts/setup", '-r "$lock"'), ("docs/deploy.md", "-r requirements/app.lock"))
    for path, install in steps:
        text = (ROOT / path).read_text()
        assert text.index("-r requirements/pip.lock") < text.index(install), path
        assert text.count(install) == text.count("-r requirements/pip.lock"), path


# Stands in for pytest in a copy of scripts/test: it collects what the real pytest would run with
# the same arguments, in the checkout, and records each test's id and markers, with the backend.
RECORDER = """
import json, os


def pytest_collection_finish(session):
    tests = {item.nodeid: sorted({m.name for m in item.iter_markers()}) for item in session.items}
    backend = os.environ.get("COMPANION_TEST_BACKEND", "sqlite")
    with open(os.environ["COLLECTED_TESTS"], "a") as out:
        out.write(json.dumps({"backend": backend, "tests": tests}) + "\\n")
"""
FAKE_PYTEST = """#!{python}
import os, sys
os.chdir({root!r})
extra = ["--collect-only", "-q", "-n", "0", "-p", "collected_tests"]
os.execv({pytest!r}, [{pytest!r}, *sys.argv[1:], *extra])
"""


@dataclass
class Harness:
    """A copy of scripts/test whose setup, lint and type checks pass at once and whose pytest only
    collects; ``everything`` is every test of the suite with its markers."""

    folder: Path
    everything: dict[str, list[str]]

    def run(self, *args: str) -> list[dict]:  # type: ignore[type-arg]
        """The pytest runs ``scripts/test ARGS`` makes, each as the tests it would run."""
        record = self.folder / "collected.jsonl"
        record.unlink(missing_ok=True)
        env = {**os.environ, "COLLECTED_TESTS": str(record), "PYTHONPATH": str(self.folder)}
        env.pop("COMPANION_TEST_BACKEND", None)
        result = subprocess.run(
            ["bash", str(self.folder / "scripts" / "test"), *args],
            env=env, capture_output=True, text=True, timeout=1800,
        )  # fmt: skip
        assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
        return [json.loads(line) for line in record.read_text().splitlines()]


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Harness:
    folder = tmp_path_factory.mktemp("scripts-test")
    (folder / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "test", folder / "scripts" / "test")
    (folder / ".venv" / "bin").mkdir(parents=True)
    for passing in ("scripts/setup", ".venv/bin/ruff", ".venv/bin/mypy"):
        (folder / passing).write_text("#!/bin/sh\nexit 0\n")
        (folder / passing).chmod(0o755)
    pytest_bin = str(Path(sys.executable).parent / "pytest")
    fake = folder / ".venv" / "bin" / "pytest"
    fake.write_text(FAKE_PYTEST.format(python=sys.executable, root=str(ROOT), pytest=pytest_bin))
    fake.chmod(0o755)
    (folder / "collected_tests.py").write_text(RECORDER)
    harness = Harness(folder, {})
    (everything,) = harness.run("tests")  # one pytest run of the whole tests folder, unfiltered
    harness.everything = everything["tests"]
    return harness


def _marked(harness: Harness, *markers: str) -> set[str]:
    return {test for test, marks in harness.everything.items() if set(markers) & set(marks)}


@pytest.mark.slow  # collects the whole suite several times
def test_scripts_test_runs_every_test_once_and_the_database_tests_again_on_postgresql(
    harness: Harness,
) -> None:
    runs = harness.run()
    on_sqlite = [test for run in runs if run["backend"] == "sqlite" for test in run["tests"]]
    assert sorted(on_sqlite) == sorted(harness.everything)  # none left out, none run twice
    assert _marked(harness, "slow") and _marked(harness, "browser")  # the long proofs included
    (postgresql,) = [run for run in runs if run["backend"] == "postgresql"]
    assert postgresql["tests"], "no test ran on PostgreSQL"
    assert not any("browser" in marks for marks in postgresql["tests"].values())


@pytest.mark.slow  # collects the whole suite several times
def test_scripts_test_quick_leaves_out_exactly_the_slow_and_browser_tests(
    harness: Harness,
) -> None:
    (quick,) = harness.run("--quick")
    left_out = _marked(harness, "slow", "browser")
    assert set(quick["tests"]) == set(harness.everything) - left_out
    assert quick["tests"] and left_out
    (narrowed,) = harness.run("--quick", "tests/test_scripts.py")  # arguments go on to pytest
    here = {test for test in harness.everything if test.startswith("tests/test_scripts.py::")}
    assert set(narrowed["tests"]) == here - left_out
