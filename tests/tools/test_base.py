"""The tool contract: schemas the vendors accept, validation the model can act on, and a
staleness check that trusts content, not timestamps."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import msgspec
import pytest

from earshot.core.tools.base import (
    PermissionRequest,
    ToolContext,
    ToolDefinitionError,
    ToolError,
    ToolResult,
    define_tool,
)
from earshot.core.tools.ops import LocalFileOps
from earshot.core.tools.state import ToolState
from earshot.providers.types import JSONValue


class Inner(msgspec.Struct, kw_only=True):
    text: Annotated[str, msgspec.Meta(description="Some text")]


class Outer(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    items: list[Inner]
    count: int = 1


async def _run(args: Outer, ctx: ToolContext) -> ToolResult:
    return ToolResult.text(str(args.count))


def _permission(args: Outer, ctx: ToolContext) -> PermissionRequest:
    return PermissionRequest(tool="outer", kind="edit")


def test_nested_types_are_inlined_into_a_plain_object_schema() -> None:
    tool = define_tool(
        name="outer",
        description=" Does things. ",
        input_type=Outer,
        execute=_run,
        read_only=True,
        touches_files=False,
    )
    schema = tool.input_schema
    assert "$defs" not in str(schema)
    assert "$ref" not in str(schema)
    assert schema["type"] == "object"
    assert schema["required"] == ["items"]
    items = schema["properties"]
    assert isinstance(items, dict)
    assert items["items"] == {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"text": {"type": "string", "description": "Some text"}},
            "required": ["text"],
        },
    }
    assert tool.spec().description == "Does things."


def test_invalid_arguments_name_the_field_for_the_model() -> None:
    tool = define_tool(
        name="outer",
        description="d",
        input_type=Outer,
        execute=_run,
        read_only=True,
        touches_files=False,
    )
    with pytest.raises(ToolError, match=r"\$\.items\[0\]\.text"):
        tool.parse({"items": [{"text": 3}]})
    with pytest.raises(ToolError, match="unknown field"):
        tool.parse({"items": [], "extra": 1})
    with pytest.raises(ToolError, match="not valid JSON"):
        tool.parse('{"items": [')


def test_a_mutating_tool_without_permission_cannot_be_defined() -> None:
    with pytest.raises(ToolDefinitionError, match="permission"):
        define_tool(name="m", description="d", input_type=Outer, execute=_run, read_only=False)
    tool = define_tool(
        name="m",
        description="d",
        input_type=Outer,
        execute=_run,
        read_only=False,
        permission=_permission,
    )
    assert not tool.read_only


def test_a_read_only_tool_must_hand_the_gate_its_paths_or_say_it_touches_none() -> None:
    with pytest.raises(ToolDefinitionError, match="touches_files=False"):
        define_tool(name="r", description="d", input_type=Outer, execute=_run, read_only=True)
    quiet = define_tool(
        name="r",
        description="d",
        input_type=Outer,
        execute=_run,
        read_only=True,
        touches_files=False,
    )
    assert quiet.read_only


def test_every_builtin_file_tool_hands_the_gate_the_path_it_touches(tmp_path: Path) -> None:
    from earshot.core.tools.registry import builtin_tools

    ctx = ToolContext(cwd=tmp_path, state=ToolState())
    calls: dict[str, dict[str, JSONValue]] = {
        "read": {"path": "a/../b.txt"},
        "ls": {"path": "a/../b.txt"},
        "grep": {"pattern": "x", "path": "a/../b.txt"},
        "glob": {"pattern": "*", "path": "a/../b.txt"},
        "edit": {"path": "a/../b.txt", "old_string": "x", "new_string": "y"},
        "multi_edit": {"path": "a/../b.txt", "edits": [{"old_string": "x", "new_string": "y"}]},
        "write": {"path": "a/../b.txt", "content": "y"},
    }
    for tool in builtin_tools(tuple(calls)):
        request = tool.prepare(calls[tool.name], ctx).request
        assert tmp_path / "a/../b.txt" in request.paths, tool.name
        if tool.name in ("edit", "multi_edit"):
            assert request.reads == request.paths


def test_a_same_size_rewrite_with_the_same_mtime_is_still_stale(tmp_path: Path) -> None:
    files = LocalFileOps()
    state = ToolState()
    path = tmp_path / "a.txt"
    path.write_bytes(b"alpha")
    state.record_read(path, b"alpha", files)
    assert state.stale_reason(path, files) is None
    before = path.stat()
    path.write_bytes(b"omega")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    reason = state.stale_reason(path, files)
    assert reason is not None
    assert "changed on disk" in reason


def test_an_unread_or_deleted_file_says_what_to_do(tmp_path: Path) -> None:
    files = LocalFileOps()
    state = ToolState()
    path = tmp_path / "b.txt"
    path.write_text("x")
    assert "read it before" in (state.stale_reason(path, files) or "")
    state.record_read(path, b"x", files)
    path.unlink()
    assert "deleted" in (state.stale_reason(path, files) or "")
