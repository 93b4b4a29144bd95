"""No module of the app reaches into another module's private names (``_name``): what another
module needs is public, with its one-line docstring, or it belongs in the module that has it."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "companion"


def private(name: str) -> bool:
    """``_name``, but not a dunder such as ``__version__``."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def module_name(path: Path, root: Path) -> tuple[list[str], bool]:
    """A module's dotted name as parts, and whether it is a package's ``__init__``."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        return parts[:-1], True
    return parts, False


def reaches(path: Path, root: Path = PACKAGE) -> set[str]:
    """``module: source.name`` for every private name of another app module that ``path``
    imports (``from m import _x``) or reads off an imported module (``m._x``)."""
    parts, package = module_name(path, root)
    here = parts if package else parts[:-1]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    modules: dict[str, str] = {}  # local name -> the app module it is bound to
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                if private(alias.name):
                    found.add(f"{source}.{alias.name}")
                else:
                    modules[alias.asname or alias.name] = f"{source}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    modules[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and private(node.attr)
        ):
            found.add(f"{modules[node.value.id]}.{node.attr}")
    rel = path.relative_to(root.parent).as_posix()
    return {f"{rel}: {name}" for name in found if name.startswith("companion.")}


def all_reaches(root: Path = PACKAGE) -> set[str]:
    """Every reach into another module's private names under ``root``."""
    modules = sorted(root.rglob("*.py"))
    assert len(modules) > 100  # the package was found
    return {reach for path in modules for reach in reaches(path, root)}


def test_no_module_imports_another_modules_private_names() -> None:
    assert sorted(all_reaches()) == [], "private names reached from another module"


def test_the_check_sees_both_ways_of_reaching(tmp_path: Path) -> None:
    """A module reaching both ways is caught, with the module it reaches into."""
    root = tmp_path / "companion"
    probe = root / "cardgames" / "summoners" / "probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text(
        "from .legal import _KIND, first_copies\n"
        "from . import payment\n"
        "from companion.cardgames import summoners as s\n"
        "import random\n\n"
        "X = payment._key, s._hidden, payment.public, random._inst\n",
        encoding="utf-8",
    )
    here = "companion/cardgames/summoners/probe.py: companion.cardgames"
    assert reaches(probe, root) == {
        f"{here}.summoners.legal._KIND",
        f"{here}.summoners.payment._key",
        f"{here}.summoners._hidden",
    }
