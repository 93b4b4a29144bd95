"""No module of the app grows past 400 lines: past that, it holds more than one purpose. Lines
are counted as the formatter writes them, so that no `# fmt: skip` keeps a module under."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "companion"
MAX_LINES = 400


RUFF = Path(sys.executable).parent / "ruff"
SKIP = re.compile(r"\s*# fmt: skip\b")


def line_count(path: Path) -> int:
    """The module's lines as the formatter would write them: a ``# fmt: skip`` that keeps
    lines packed does not count."""
    text = path.read_text(encoding="utf-8")
    if SKIP.search(text):
        formatted = subprocess.run(
            [str(RUFF), "format", "--stdin-filename", str(path), "-"],
            input=SKIP.sub("", text),
            capture_output=True,
            text=True,
            check=True,
        )
        text = formatted.stdout
    return text.count("\n")


def test_no_module_has_more_than_400_lines() -> None:
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 50  # the package was found
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}: {count} lines"
        for path in modules
        if (count := line_count(path)) > MAX_LINES
    ]
    assert offenders == [], "modules past 400 lines:\n" + "\n".join(offenders)
