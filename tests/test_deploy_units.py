"""The shipped systemd units pass `systemd-analyze verify` as written.

The units are checked inside a throw-away root folder (``--root``) holding them at
/etc/systemd/system, a copy of this machine's own systemd units (the targets they refer to),
/bin/sh and an executable stand-in at /opt/companion/venv/bin/companion: systemd refuses a unit
whose program is missing. Nothing in the units is changed. ``scripts/deploy-check`` checks them
again in a Debian tree where the real program is installed.
"""

from __future__ import annotations

import re
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


def _deploy_check() -> object:
    from importlib.machinery import SourceFileLoader
    from importlib.util import module_from_spec, spec_from_loader

    loader = SourceFileLoader("deploy_check", str(ROOT / "scripts/deploy-check"))
    spec = spec_from_loader("deploy_check", loader)
    assert spec is not None
    module = module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_deploy_check_takes_every_command_of_the_doc_in_order() -> None:
    """scripts/deploy-check (run by hand: it takes minutes) reads the doc as it now stands."""
    check = _deploy_check()
    doc = (ROOT / "docs/deploy.md").read_text()
    lines, build, packages = check.steps(doc)  # type: ignore[attr-defined]
    assert build == ["python3 -m pip wheel . --no-deps -w dist"]
    assert {"python3-venv", "nginx", "caddy", "sudo"} <= set(packages)
    assert not any(line.startswith("certbot") for line in lines)  # stood in for, said so
    commands = [line for line in lines if line and not line.startswith("#")]
    first = commands.index("systemctl daemon-reload && systemctl enable --now companion")
    assert commands.index("useradd --system --home-dir /var/lib/companion --shell"
                          " /usr/sbin/nologin companion") < first  # fmt: skip
    assert commands[-1] == "systemctl start companion"  # the upgrade block comes last
    # Every line of the doc's sh blocks outside section 8 is run, but for the build block;
    # they are commands to paste, not usage ([--option], a|b): those go in text blocks.
    for section, block in check.blocks(doc):  # type: ignore[attr-defined]
        if section.startswith("## 8.") or block[0].startswith("# on the build machine"):
            continue
        for line in block:
            assert not re.search(r" \[-|\w\|\w|…", line.split("#")[0]), f"a synopsis: {line}"
            assert line in lines or line.startswith(("certbot ", "systemctl reload caddy")), line
