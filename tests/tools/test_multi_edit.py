"""The multi_edit tool: edits applied in order in memory, written once, all or nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from earshot.core.tools.base import ToolContext, ToolError, ToolResult
from earshot.core.tools.display import FileChange
from earshot.core.tools.multi_edit import TOOL
from earshot.core.tools.read import TOOL as READ
from earshot.core.tools.state import ToolState
from earshot.providers.types import JSONObject, TextPart

SOURCE = b"def a():\n    return 1\n\ndef b():\n    return 1\n"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


async def read_then_ctx(work: Path, name: str, data: bytes) -> ToolContext:
    (work / name).write_bytes(data)
    ctx = ToolContext(cwd=work, state=ToolState())
    await READ.execute(READ.parse({"path": name}), ctx)
    return ctx


async def multi_edit(ctx: ToolContext, args: JSONObject) -> ToolResult:
    return await TOOL.execute(TOOL.parse(args), ctx)


async def multi_edit_error(ctx: ToolContext, args: JSONObject) -> str:
    with pytest.raises(ToolError) as info:
        await multi_edit(ctx, args)
    return info.value.message


def text_of(result: ToolResult) -> str:
    part = result.content[0]
    assert isinstance(part, TextPart)
    return part.text


@pytest.mark.anyio
async def test_multi_edit_applies_edits_in_order_each_to_the_last_result(work: Path) -> None:
    ctx = await read_then_ctx(work, "m.py", SOURCE)
    result = await multi_edit(
        ctx,
        {
            "path": "m.py",
            "edits": [
                {"old_string": "def a():\n    return 1", "new_string": "def a():\n    return 10"},
                {"old_string": "return 1\n", "new_string": "return 20\n"},
                {"old_string": "return", "new_string": "yield", "replace_all": True},
            ],
        },
    )
    assert (work / "m.py").read_bytes() == b"def a():\n    yield 10\n\ndef b():\n    yield 20\n"
    assert "applied 3 edits (4 replacements" in text_of(result)
    assert "+    yield 20" in text_of(result)
    assert isinstance(result.display, FileChange)
    diff = result.display.diff
    assert diff.startswith("--- a/m.py\n+++ b/m.py\n")


@pytest.mark.anyio
async def test_multi_edit_writes_nothing_when_one_edit_fails(work: Path) -> None:
    ctx = await read_then_ctx(work, "m.py", SOURCE)
    before = (work / "m.py").stat().st_mtime_ns
    message = await multi_edit_error(
        ctx,
        {
            "path": "m.py",
            "edits": [
                {"old_string": "def a", "new_string": "def first"},
                {"old_string": "def c", "new_string": "def third"},
                {"old_string": "def b", "new_string": "def second"},
            ],
        },
    )
    assert message.startswith("edit 2 of 3 failed: old_string was not found")
    assert "No edit was applied" in message
    assert (work / "m.py").read_bytes() == SOURCE
    assert (work / "m.py").stat().st_mtime_ns == before


@pytest.mark.anyio
async def test_multi_edit_names_an_ambiguous_edit_and_its_lines(work: Path) -> None:
    ctx = await read_then_ctx(work, "m.py", SOURCE)
    message = await multi_edit_error(
        ctx,
        {
            "path": "m.py",
            "edits": [
                {"old_string": "def a", "new_string": "def first"},
                {"old_string": "return 1", "new_string": "return 2"},
            ],
        },
    )
    assert message.startswith("edit 2 of 2 failed: old_string matches 2 times")
    assert "lines 2, 5" in message
    assert (work / "m.py").read_bytes() == SOURCE


@pytest.mark.anyio
async def test_multi_edit_requires_the_file_read_this_session(work: Path) -> None:
    (work / "m.py").write_bytes(SOURCE)
    ctx = ToolContext(cwd=work, state=ToolState())
    message = await multi_edit_error(
        ctx, {"path": "m.py", "edits": [{"old_string": "def a", "new_string": "def z"}]}
    )
    assert "has not been read" in message


@pytest.mark.anyio
async def test_multi_edit_refuses_a_file_changed_since_it_was_read(work: Path) -> None:
    ctx = await read_then_ctx(work, "m.py", SOURCE)
    (work / "m.py").write_bytes(SOURCE + b"# added elsewhere\n")
    message = await multi_edit_error(
        ctx, {"path": "m.py", "edits": [{"old_string": "def a", "new_string": "def z"}]}
    )
    assert "changed on disk" in message


@pytest.mark.anyio
async def test_multi_edit_keeps_crlf_line_endings(work: Path) -> None:
    ctx = await read_then_ctx(work, "w.txt", b"a\r\nb\r\nc\r\n")
    await multi_edit(
        ctx,
        {
            "path": "w.txt",
            "edits": [
                {"old_string": "a\nb", "new_string": "A\nB"},
                {"old_string": "c\n", "new_string": "C\nD\n"},
            ],
        },
    )
    assert (work / "w.txt").read_bytes() == b"A\r\nB\r\nC\r\nD\r\n"


def test_multi_edit_rejects_an_empty_list_of_edits() -> None:
    with pytest.raises(ToolError, match="edits"):
        TOOL.parse({"path": "m.py", "edits": []})


def test_multi_edit_permission_shows_the_combined_diff(work: Path) -> None:
    (work / "m.py").write_bytes(SOURCE)
    ctx = ToolContext(cwd=work, state=ToolState())
    request = TOOL.describe(
        TOOL.parse(
            {
                "path": "m.py",
                "edits": [
                    {"old_string": "def a", "new_string": "def x"},
                    {"old_string": "def b", "new_string": "def y"},
                ],
            }
        ),
        ctx,
    )
    assert request.tool == "multi_edit"
    assert request.kind == "edit"
    assert request.paths == (work / "m.py",)
    assert "-def a():\n+def x():\n" in request.detail
    assert "-def b():\n+def y():\n" in request.detail


def test_multi_edit_is_mutating_and_describes_itself_to_the_gate() -> None:
    assert not TOOL.read_only
    assert TOOL.permission is not None
