"""The shipped systemd units pass `systemd-analyze verify` as written.

The units are checked inside a throw-away root folder (``--root``) holding them at
/etc/systemd/system, a copy of this machine's own systemd units (the targets they refer to),
/bin/sh and an executable stand-in at /opt/companion/venv/bin/companion: systemd refuses a unit
whose program is missing. Nothing in the units is changed. ``scripts/deploy-check`` checks them
again in a Debian tree where the real program is installed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ANALYZE = shutil.which("systemd-analyze")
UNITS = ("companion.service", "companion-backup.service", "companion-backup.timer")

pytestmark = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed")


def test_the_units_verify_without_a_warning(tmp_path: Path) -> None:
    units = tmp_path / "etc/systemd/system"
    units.mkdir(parents=True)
    for name in UNITS:
        shutil.copy(ROOT / "deploy/systemd" / name, units / name)
    shutil.copytree("/usr/lib/systemd/system", tmp_path / "usr/lib/systemd/system", symlinks=True)
    (tmp_path / "bin").mkdir()
    shutil.copy("/bin/sh", tmp_path / "bin/sh")
    program = tmp_path / "opt/companion/venv/bin/companion"
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    assert ANALYZE is not None
    checked = subprocess.run(
        [ANALYZE, "verify", f"--root={tmp_path}", *(f"/etc/systemd/system/{u}" for u in UNITS)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert checked.returncode == 0 and checked.stderr == "", checked.stderr
