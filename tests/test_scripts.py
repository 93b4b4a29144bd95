"""The README's set-up scripts: the app's set-up succeeds on a machine the tests set up."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_app_setup_runs_to_the_end() -> None:
    result = subprocess.run(
        ["bash", str(ROOT / "scripts" / "setup")], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (ROOT / "companion" / "translations" / "ja" / "LC_MESSAGES" / "messages.mo").is_file()
