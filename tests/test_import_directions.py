"""The package imports in one direction (``docs/architecture.md``): no module imports, directly or
through others, a module that imports it back, and each package imports only the layers below
it, counting the imports made inside functions (those made only for type checking aside)."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("companion.legacy", "companion.cardgames")


def _modules() -> dict[str, Path]:
    found = {}
    for path in (ROOT / "companion").rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _runtime_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement, at any depth, but those under ``if TYPE_CHECKING:``."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _targets(
    module: str, is_package: bool, node: ast.Import | ast.ImportFrom, modules: Iterable[str]
) -> list[str]:
    """What an import statement reads: ``from p import m`` reads the module ``p.m`` when there
    is one, else a name of ``p`` itself (the root package's, say, which sits at the top)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = module.split(".") if is_package else module.split(".")[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    prefix = ".".join(base) if node.level else ""
    target = ".".join(p for p in (prefix, node.module or "") if p)
    named = [f"{target}.{alias.name}" for alias in node.names]
    return [name if name in modules else target for name in named]


def import_graph(parents: bool = False) -> dict[str, set[str]]:
    """Module -> the modules of the package it imports. Its own parent packages are left out
    unless ``parents``: importing a submodule runs them first, whoever asks, so they make no
    cycle; but a name read from one (``from companion import create_app``) is still an import
    of that package, which the layers must allow."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_package = path.name == "__init__.py"
        deps = {
            target
            for node in _runtime_imports(tree)
            for target in _targets(name, is_package, node, modules)
            if target in modules
        }
        graph[name] = {d for d in deps if d != name and (parents or not name.startswith(d + "."))}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


# The layers, lowest first: a package may import the layers below its own, never one above, and
# within a layer only what SIDEWAYS names. The same table is drawn in docs/architecture.md.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("base",),
    ("legacy", "cardgames"),
    ("text",),
    ("store",),
    ("packs", "samples"),
    ("streams",),
    ("export",),
    ("live",),
    ("web.boards",),
    ("ops",),
    ("web.shell",),
    ("web.chronicle", "web.tables"),
    ("web.api",),
    ("web",),
    ("app",),
    ("",),
)
SIDEWAYS = {("samples", "packs")}


def unit(module: str) -> str:
    """The package of the layer table a module belongs to ("" for the root package, which
    imports nothing and is read by nothing of its own)."""
    parts = module.split(".")[1:]
    if parts[:1] == ["web"] and len(parts) > 1 and "web." + parts[1] in _LAYER_OF:
        return "web." + parts[1]
    return parts[0] if parts else ""


_LAYER_OF = {name: level for level, layer in enumerate(LAYERS) for name in layer}


def test_every_module_belongs_to_a_layer() -> None:
    units = {unit(module) for module in import_graph()}
    assert units - set(_LAYER_OF) == set()
    assert set(_LAYER_OF) - units == set(), "the table names a package that is gone"


def test_each_package_imports_only_the_layers_below_it() -> None:
    wrong = sorted(
        f"{module} imports {target}"
        for module, targets in import_graph(parents=True).items()
        for target in targets
        if (a := unit(module)) != (b := unit(target))
        and _LAYER_OF[b] >= _LAYER_OF[a]
        and (a, b) not in SIDEWAYS
    )
    assert wrong == []


def test_no_module_of_the_package_is_in_an_import_cycle() -> None:
    assert cycles(import_graph()) == []


def test_the_layer_check_sees_an_import_upwards() -> None:
    assert unit("companion.store.db") == "store"
    assert unit("companion.web.shell.main") == "web.shell"
    assert unit("companion.web.delete_view") == "web"
    assert unit("companion") == ""
    assert unit("companion.app") == "app"
    assert _LAYER_OF["app"] > _LAYER_OF["web"] > _LAYER_OF["export"] > _LAYER_OF["base"]
    # A name read from the root package is an import of the root, from any depth.
    upward = ast.parse("from companion import create_app\nfrom .. import __version__")
    modules = set(_modules())
    read = [_targets("companion.export.worker", False, node, modules) for node in upward.body]
    assert read == [["companion"], ["companion"]]
    assert _targets(
        "companion.web.x", False, ast.parse("from companion import live").body[0], modules
    ) == ["companion.live"]


def test_the_root_package_imports_nothing() -> None:
    """Every module's import runs the root package first: it must stay a docstring."""
    tree = ast.parse((ROOT / "companion" / "__init__.py").read_text(encoding="utf-8"))
    assert _runtime_imports(tree) == []
    assert [type(node) for node in tree.body] == [ast.Expr]
    assert _LAYER_OF[unit("companion.web.api.routes")] > _LAYER_OF[unit("companion.store.db")]


@pytest.mark.parametrize("package", PACKAGES)
def test_the_rules_cores_have_no_import_cycle(package: str) -> None:
    graph = import_graph()
    ours = {m: {d for d in deps if d.startswith(package)} for m, deps in graph.items()}
    ours = {m: deps for m, deps in ours.items() if m.startswith(package)}
    assert ours, package
    assert cycles(ours) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
