"""Building the companion's wheel from a source folder, for the tests that install it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

SOURCE_IGNORED = shutil.ignore_patterns(
    ".git", ".venv", "instance", "build", "dist", "*.egg-info", "__pycache__", ".*_cache",
    ".hypothesis", "test-results", "tests", "bench", "*.mo", "node_modules",
)  # fmt: skip


def quiet_env() -> dict[str, str]:
    """This environment without the companion's settings or PYTHONPATH (the real HOME stays,
    so pip finds its cache), so an installed copy never imports the checkout instead."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPANION_")}
    env.pop("PYTHONPATH", None)
    return env


def build_wheel(source: Path, dist: Path) -> Path:
    """``pip wheel`` of ``source`` into ``dist``; the wheel's path."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--disable-pip-version-check",
         str(source), "--no-deps", "-w", str(dist)],
        cwd=source, env=quiet_env(), check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    return next(dist.glob("ijinsho_companion-*.whl"))
