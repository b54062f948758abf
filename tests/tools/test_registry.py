"""The built-in tools are offered from generated specs and loaded when first called."""

from __future__ import annotations

from pathlib import Path

from earshot.core.tools._loaders import loaded_builtins
from earshot.core.tools.base import ToolContext
from earshot.core.tools.registry import BUILTIN, BUILTIN_TOOLS, LazyTool
from earshot.core.tools.state import ToolState
from earshot.providers.types import JSONValue

REGENERATE = "run scripts/gen_tool_specs.py: _specs.py is stale"


def test_the_offered_specs_are_what_each_tool_defines() -> None:
    loaded = loaded_builtins()
    assert [tool.name for tool in BUILTIN] == [tool.name for tool in loaded], REGENERATE
    for offered, defined in zip(BUILTIN, loaded, strict=True):
        assert offered.spec() == defined.spec(), f"{defined.name}: {REGENERATE}"
        assert offered.read_only == defined.read_only, f"{defined.name}: {REGENERATE}"
        assert offered.description == defined.description
    assert tuple(tool.name for tool in loaded) == BUILTIN_TOOLS


def test_a_lazy_tool_prepares_a_call_as_the_tool_itself_does(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path, state=ToolState())
    by_name = {tool.name: tool for tool in loaded_builtins()}
    for offered in BUILTIN:
        if offered.name != "read":
            continue
        assert isinstance(offered, LazyTool)
        assert offered.loaded() is by_name["read"]
        raw: JSONValue = {"path": "notes.txt", "limit": 5}
        assert offered.prepare(raw, ctx).request == by_name["read"].prepare(raw, ctx).request
