#!/usr/bin/env python3
"""Write ``src/earshot/core/tools/_specs.py``: what each built-in tool tells the model.

A session offers the built-in tools from their specs (name, description, input schema)
and imports a tool's module only when the model first calls it (``core/tools/registry.py``),
so the first model request does not wait for fourteen modules it may never run. The specs
come from the tools' own definitions: run this after changing a tool's description or
input type (``tests/tools/test_registry.py`` fails until then). Usage::

    .venv/bin/python scripts/gen_tool_specs.py [OUT]   # OUT defaults to the module above
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "src" / "earshot" / "core" / "tools" / "_specs.py"
HEADER = '''# ruff: noqa: E501 (generated: the descriptions are long lines)
"""The built-in tools' specs, generated from their definitions: do not edit by hand.

``scripts/gen_tool_specs.py`` writes it; ``tests/tools/test_registry.py`` checks that it
equals what every tool's module defines. ``registry.py`` offers the tools from it.
"""

from earshot.providers.types import ToolSpec

SPECS: dict[str, tuple[bool, ToolSpec]] = {
'''


def render() -> str:
    sys.path.insert(0, str(ROOT / "src"))
    from earshot.core.tools._loaders import loaded_builtins

    rows = []
    for tool in loaded_builtins():
        spec = tool.spec()
        rows.append(
            f"    {spec.name!r}: (\n        {tool.read_only!r},\n        ToolSpec(\n"
            f"            name={spec.name!r},\n            description={spec.description!r},\n"
            f"            input_schema={spec.input_schema!r},\n        ),\n    ),\n"
        )
    return HEADER + "".join(rows) + '}\n\n__all__ = ["SPECS"]\n'


def main(argv: list[str]) -> int:
    if len(argv) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    target = Path(argv[1]) if len(argv) == 2 else TARGET
    target.write_text(render(), encoding="utf-8")
    # The repository's formatter lays the literals out (quotes, line breaks).
    subprocess.run([sys.executable, "-m", "ruff", "format", "-q", str(target)], check=True)
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
