"""The layer arrows point inward (docs/architecture.md)::

    cli -> {headless, tui, acp, mcp} -> core -> providers -> _base

and the front-ends reach core only through its surface (``FRONT_END_SURFACE``): the
session, its commands and configuration, and the loop's vocabulary (events, approvals,
input), never the loop's machinery or a tool's module. No module imports, through any
chain of imports, a module that imports it back (``import_circles``).

Every ``import``/``from`` of ``earshot.*`` in every module is read with ``ast`` (including
imports inside functions and ``TYPE_CHECKING`` blocks), so a lazy import cannot sneak a
dependency past the rule.
"""

from __future__ import annotations

import ast
from pathlib import Path

import earshot

SRC = Path(earshot.__file__).parent

ALLOWED: dict[str, set[str]] = {
    "_base": {"_base"},
    "providers": {"providers", "_base"},
    "core": {"core", "providers", "_base"},
    "headless": {"headless", "core", "providers", "_base"},
    "acp": {"acp", "core", "providers", "_base"},
    "tui": {"tui", "core", "providers", "_base"},
    "mcp": {"mcp", "core", "providers", "_base"},
    "cli": {"cli", "headless", "tui", "acp", "mcp", "core", "providers", "_base"},
}
FRONT_ENDS = ("headless", "tui", "acp")
FRONT_END_SURFACE = (
    "earshot.core.agent_session",
    "earshot.core.commands",
    "earshot.core.config",
    "earshot.core.extensions",
    "earshot.core.loop.events",
    "earshot.core.loop.approvals",
    "earshot.core.loop.input",
    "earshot.core.permissions",
    "earshot.core.scope_edit",
    "earshot.core.session",
    "earshot.core.tools.base",
    "earshot.core.tools.display",
    "earshot.core.tools.state",
)


def _layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "earshot" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in ALLOWED else None


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def violations() -> list[str]:
    problems: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        if len(rel.parts) < 2 or rel.parts[0] not in ALLOWED:
            continue
        layer = rel.parts[0]
        for line, module in _imports(path):
            target = _layer_of(module)
            if target is not None and target not in ALLOWED[layer]:
                problems.append(f"{rel}:{line}: {layer} imports {module}")
    return problems


def test_every_layer_imports_only_inward() -> None:
    assert violations() == []


def _on_surface(module: str) -> bool:
    if module in ("earshot.core", "earshot.core.loop", "earshot.core.tools"):
        return True  # a package itself (``from earshot.core import commands``)
    return any(module == s or module.startswith(s + ".") for s in FRONT_END_SURFACE)


def surface_violations() -> list[str]:
    problems: list[str] = []
    for layer in FRONT_ENDS:
        for path in sorted((SRC / layer).rglob("*.py")):
            for line, module in _imports(path):
                if module.startswith("earshot.core") and not _on_surface(module):
                    problems.append(f"{path.relative_to(SRC)}:{line}: imports {module}")
    return problems


def test_front_ends_reach_core_only_through_its_surface() -> None:
    assert surface_violations() == []


def test_the_checker_sees_a_violation(tmp_path: Path) -> None:
    bad = tmp_path / "m.py"
    bad.write_text("def f():\n    from earshot.cli.app import run\n")
    assert (2, "earshot.cli.app") in _imports(bad)
    assert _layer_of("earshot.cli.app") == "cli"
    assert "cli" not in ALLOWED["core"]
    assert not _on_surface("earshot.core.loop.agent")
    assert not _on_surface("earshot.core.tools.edit")
    assert _on_surface("earshot.core.loop.events")


def test_every_layer_package_exists() -> None:
    for layer in ALLOWED:
        assert (SRC / layer / "__init__.py").is_file(), layer


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules of ``root``'s package it imports (lazy and ``TYPE_CHECKING``
    imports included). ``from a.b import c`` is an arrow to ``a.b.c`` when that is a module,
    else to ``a.b``; the parent packages Python runs on the way are not arrows."""
    paths = {_module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names if a.name in paths)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    if full in paths:
                        targets.add(full)
                    elif node.module in paths:
                        targets.add(node.module)
        graph[name] = targets - {name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: each set of modules that lead back to one another (Tarjan's
    strongly connected components of more than one module), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in sorted(graph[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component: list[str] = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def test_no_import_circle_in_any_package() -> None:
    assert circles(import_graph(SRC)) == []


def test_the_circle_checker_sees_a_lazy_circle(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from pkg.sub.c import g\n")
    (pkg / "sub" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import X\n"
    )
    (pkg / "d.py").write_text("import pkg.a\n")
    assert circles(import_graph(pkg)) == [["pkg.a", "pkg.sub.b", "pkg.sub.c"]]
