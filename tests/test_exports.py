"""Every module's ``__all__`` is sorted (isort style, as ruff's RUF022 keeps it: constants,
then classes, then the rest) and names only what the module defines."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import earshot

SRC = Path(earshot.__file__).parent


def _modules_with_all() -> list[tuple[str, list[str]]]:
    found: list[tuple[str, list[str]]] = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
                and isinstance(node.value, ast.List)
            ):
                names = [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
                module = ".".join(path.relative_to(SRC.parent).with_suffix("").parts)
                found.append((module.removesuffix(".__init__"), [str(n) for n in names]))
    return found


def _isort_key(name: str) -> tuple[int, str]:
    if name.isupper():
        return 0, name
    return (1, name) if name[:1].isupper() else (2, name)


def test_exports_are_sorted_and_exist() -> None:
    modules = _modules_with_all()
    assert len(modules) > 20
    for module, names in modules:
        assert names == sorted(names, key=_isort_key), f"{module}.__all__ is not sorted"
        loaded = importlib.import_module(module)
        missing = [n for n in names if not hasattr(loaded, n)]
        assert not missing, f"{module}.__all__ names undefined {missing}"
