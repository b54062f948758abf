"""The write tool: creating files and parents, overwriting only what this session read and
nobody changed since, keeping an existing file's encoding; and define_tool's refusal of a
mutating tool that does not describe itself to the permission gate."""

from __future__ import annotations

from pathlib import Path

import pytest

from earshot.core.tools.base import (
    ToolContext,
    ToolDefinitionError,
    ToolError,
    ToolResult,
    define_tool,
)
from earshot.core.tools.display import FileChange
from earshot.core.tools.edit import TOOL as EDIT
from earshot.core.tools.read import TOOL as READ
from earshot.core.tools.state import ToolState
from earshot.core.tools.write import TOOL, WriteInput
from earshot.providers.types import JSONObject, TextPart


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


def make_ctx(cwd: Path) -> ToolContext:
    return ToolContext(cwd=cwd, state=ToolState())


async def write(ctx: ToolContext, args: JSONObject) -> ToolResult:
    return await TOOL.execute(TOOL.parse(args), ctx)


async def write_error(ctx: ToolContext, args: JSONObject) -> str:
    with pytest.raises(ToolError) as info:
        await write(ctx, args)
    return info.value.message


def text_of(result: ToolResult) -> str:
    part = result.content[0]
    assert isinstance(part, TextPart)
    return part.text


@pytest.mark.anyio
async def test_write_creates_the_file_and_its_parent_directories(work: Path) -> None:
    result = await write(make_ctx(work), {"path": "a/b/c.txt", "content": "one\ntwo\n"})
    assert (work / "a" / "b" / "c.txt").read_bytes() == b"one\ntwo\n"
    assert text_of(result) == "Created a/b/c.txt (2 lines)."
    assert isinstance(result.display, FileChange)
    diff = result.display.diff
    assert diff.startswith("--- /dev/null\n+++ b/a/b/c.txt\n")


@pytest.mark.anyio
async def test_write_records_its_content_so_an_edit_can_follow(work: Path) -> None:
    ctx = make_ctx(work)
    await write(ctx, {"path": "n.py", "content": "x = 1\n"})
    await EDIT.execute(EDIT.parse({"path": "n.py", "old_string": "1", "new_string": "2"}), ctx)
    assert (work / "n.py").read_text() == "x = 2\n"


@pytest.mark.anyio
async def test_write_refuses_to_overwrite_a_file_not_read_this_session(work: Path) -> None:
    (work / "keep.txt").write_text("precious\n")
    message = await write_error(make_ctx(work), {"path": "keep.txt", "content": "gone\n"})
    assert "has not been read" in message
    assert (work / "keep.txt").read_text() == "precious\n"


@pytest.mark.anyio
async def test_write_overwrites_a_file_read_this_session(work: Path) -> None:
    (work / "f.txt").write_text("old\n")
    ctx = make_ctx(work)
    await READ.execute(READ.parse({"path": "f.txt"}), ctx)
    result = await write(ctx, {"path": "f.txt", "content": "new\nlines\nhere\n"})
    assert (work / "f.txt").read_text() == "new\nlines\nhere\n"
    assert text_of(result).startswith("Overwrote f.txt (3 lines;")


@pytest.mark.anyio
async def test_write_refuses_a_file_changed_on_disk_since_it_was_read(work: Path) -> None:
    (work / "f.txt").write_text("old\n")
    ctx = make_ctx(work)
    await READ.execute(READ.parse({"path": "f.txt"}), ctx)
    (work / "f.txt").write_text("someone else's change\n")
    message = await write_error(ctx, {"path": "f.txt", "content": "mine\n"})
    assert "changed on disk" in message
    assert (work / "f.txt").read_text() == "someone else's change\n"


@pytest.mark.anyio
async def test_write_keeps_an_existing_files_crlf_bom_and_encoding(work: Path) -> None:
    (work / "w.txt").write_bytes(b"\xef\xbb\xbfold\r\n")
    (work / "l.txt").write_bytes("vieux caf\u00e9\n".encode("cp1252"))
    ctx = make_ctx(work)
    for name in ("w.txt", "l.txt"):
        await READ.execute(READ.parse({"path": name}), ctx)
    await write(ctx, {"path": "w.txt", "content": "a\nb\n"})
    await write(ctx, {"path": "l.txt", "content": "nouveau caf\u00e9\n"})
    assert (work / "w.txt").read_bytes() == b"\xef\xbb\xbfa\r\nb\r\n"
    assert (work / "l.txt").read_bytes() == "nouveau caf\u00e9\n".encode("cp1252")


@pytest.mark.anyio
async def test_write_writes_a_new_file_as_utf8_exactly_as_given(work: Path) -> None:
    await write(make_ctx(work), {"path": "u.txt", "content": "\u2192 mixed\r\nend"})
    assert (work / "u.txt").read_bytes() == "\u2192 mixed\r\nend".encode()


@pytest.mark.anyio
async def test_write_onto_a_directory_is_an_error(work: Path) -> None:
    (work / "d").mkdir()
    assert "is a directory" in await write_error(make_ctx(work), {"path": "d", "content": ""})


def test_write_permission_is_an_edit_with_the_diff(work: Path) -> None:
    (work / "f.txt").write_text("old\n")
    request = TOOL.describe(TOOL.parse({"path": "f.txt", "content": "new\n"}), make_ctx(work))
    assert request.tool == "write"
    assert request.kind == "edit"
    assert request.paths == (work / "f.txt",)
    assert "-old\n+new\n" in request.detail


def test_write_permission_for_a_new_file_shows_it_created(work: Path) -> None:
    request = TOOL.describe(TOOL.parse({"path": "n.txt", "content": "hi\n"}), make_ctx(work))
    assert request.detail == "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+hi\n"


def test_define_tool_refuses_a_mutating_tool_without_permission() -> None:
    async def execute(args: WriteInput, ctx: ToolContext) -> ToolResult:
        return ToolResult.text("never")

    with pytest.raises(ToolDefinitionError, match="no permission"):
        define_tool(
            name="sneaky_write",
            description="writes without asking",
            input_type=WriteInput,
            execute=execute,
            read_only=False,
        )


def test_write_is_mutating_and_describes_itself_to_the_gate() -> None:
    assert not TOOL.read_only
    assert TOOL.permission is not None
    assert TOOL.input_schema["required"] == ["path", "content"]
    properties = TOOL.input_schema["properties"]
    assert isinstance(properties, dict)
    assert set(properties) == {"path", "content"}
