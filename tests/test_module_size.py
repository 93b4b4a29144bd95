"""No module of the app grows past 400 lines: past that, it holds more than one purpose."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "companion"
MAX_LINES = 400


def line_count(path: Path) -> int:
    with path.open(encoding="utf-8") as lines:
        return sum(1 for _line in lines)


def test_no_module_has_more_than_400_lines() -> None:
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 50  # the package was found
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}: {count} lines"
        for path in modules
        if (count := line_count(path)) > MAX_LINES
    ]
    assert offenders == [], "modules past 400 lines:\n" + "\n".join(offenders)
