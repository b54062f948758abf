"""The edit tool: exact, unambiguous replacement of a file read this session, keeping the
file's line endings, BOM and encoding byte for byte."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from earshot.core.tools.base import ToolContext, ToolError, ToolResult
from earshot.core.tools.display import FileChange
from earshot.core.tools.edit import TOOL
from earshot.core.tools.read import TOOL as READ
from earshot.core.tools.state import ToolState
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


async def read(ctx: ToolContext, path: str) -> None:
    await READ.execute(READ.parse({"path": path}), ctx)


async def edit(ctx: ToolContext, args: JSONObject) -> ToolResult:
    return await TOOL.execute(TOOL.parse(args), ctx)


async def edit_error(ctx: ToolContext, args: JSONObject) -> str:
    with pytest.raises(ToolError) as info:
        await edit(ctx, args)
    return info.value.message


async def read_then_ctx(work: Path, name: str, data: bytes) -> ToolContext:
    (work / name).write_bytes(data)
    ctx = make_ctx(work)
    await read(ctx, name)
    return ctx


def text_of(result: ToolResult) -> str:
    part = result.content[0]
    assert isinstance(part, TextPart)
    return part.text


@pytest.mark.anyio
async def test_edit_replaces_a_unique_match_and_shows_the_change(work: Path) -> None:
    ctx = await read_then_ctx(work, "m.py", b"def f():\n    return 1\n\nx = f()\n")
    result = await edit(ctx, {"path": "m.py", "old_string": "return 1", "new_string": "return 2"})
    assert (work / "m.py").read_bytes() == b"def f():\n    return 2\n\nx = f()\n"
    assert "replaced 1 occurrence" in text_of(result)
    assert "     2\t    return 2" in text_of(result)
    assert isinstance(result.display, FileChange)
    diff = result.display.diff
    assert "-    return 1\n+    return 2\n" in diff
    assert diff.startswith("--- a/m.py\n+++ b/m.py\n")
    assert result.brief == "Edited m.py (+1 -1)"


@pytest.mark.anyio
async def test_edit_requires_the_file_read_in_this_session(work: Path) -> None:
    (work / "a.txt").write_text("alpha\n")
    message = await edit_error(
        make_ctx(work), {"path": "a.txt", "old_string": "alpha", "new_string": "beta"}
    )
    assert "has not been read" in message
    assert (work / "a.txt").read_text() == "alpha\n"


@pytest.mark.anyio
async def test_edit_refuses_a_file_changed_on_disk_since_it_was_read(work: Path) -> None:
    ctx = await read_then_ctx(work, "a.txt", b"alpha\n")
    (work / "a.txt").write_bytes(b"alpha changed elsewhere\n")
    message = await edit_error(ctx, {"path": "a.txt", "old_string": "alpha", "new_string": "b"})
    assert "changed on disk" in message
    assert (work / "a.txt").read_bytes() == b"alpha changed elsewhere\n"


@pytest.mark.anyio
async def test_edit_allows_a_follow_up_edit_without_reading_again(work: Path) -> None:
    ctx = await read_then_ctx(work, "a.txt", b"one two\n")
    await edit(ctx, {"path": "a.txt", "old_string": "one", "new_string": "1"})
    await edit(ctx, {"path": "a.txt", "old_string": "two", "new_string": "2"})
    assert (work / "a.txt").read_bytes() == b"1 2\n"


@pytest.mark.anyio
async def test_edit_refuses_ambiguous_match_listing_count_and_lines(work: Path) -> None:
    ctx = await read_then_ctx(work, "a.py", b"x = 1\ny = 2\nx = 1\n\nx = 1\n")
    message = await edit_error(ctx, {"path": "a.py", "old_string": "x = 1", "new_string": "z"})
    assert "matches 3 times" in message
    assert "lines 1, 3, 5" in message
    assert "replace_all" in message
    assert "surrounding lines" in message
    assert (work / "a.py").read_bytes() == b"x = 1\ny = 2\nx = 1\n\nx = 1\n"


@pytest.mark.anyio
async def test_edit_counts_overlapping_matches_as_ambiguous(work: Path) -> None:
    ctx = await read_then_ctx(work, "a.txt", b"x\n}\n}\n}\n")
    message = await edit_error(ctx, {"path": "a.txt", "old_string": "}\n}", "new_string": "}"})
    assert "matches 2 times (starting at lines 2, 3)" in message


@pytest.mark.anyio
async def test_edit_replace_all_changes_every_occurrence(work: Path) -> None:
    ctx = await read_then_ctx(work, "a.py", b"x = 1\ny = 2\nx = 1\n")
    result = await edit(
        ctx, {"path": "a.py", "old_string": "x = 1", "new_string": "x = 9", "replace_all": True}
    )
    assert (work / "a.py").read_bytes() == b"x = 9\ny = 2\nx = 9\n"
    assert "replaced 2 occurrences" in text_of(result)
    assert "also changed at lines 3" in text_of(result)


@pytest.mark.anyio
async def test_edit_reports_no_match(work: Path) -> None:
    ctx = await read_then_ctx(work, "a.txt", b"alpha\n")
    message = await edit_error(ctx, {"path": "a.txt", "old_string": "gamma", "new_string": "d"})
    assert "not found" in message


@pytest.mark.anyio
async def test_edit_no_match_points_at_a_whitespace_only_difference(work: Path) -> None:
    ctx = await read_then_ctx(work, "a.py", b"a = 0\nif x:\n\treturn  y\n")
    message = await edit_error(
        ctx, {"path": "a.py", "old_string": "if x:\n    return y", "new_string": "pass"}
    )
    assert "not found" in message
    assert "apart from whitespace starts at line 2" in message


@pytest.mark.anyio
async def test_edit_no_match_spots_line_number_prefixes(work: Path) -> None:
    ctx = await read_then_ctx(work, "a.py", b"a = 0\nb = 1\n")
    message = await edit_error(
        ctx, {"path": "a.py", "old_string": "     1\ta = 0\n     2\tb = 1", "new_string": "c"}
    )
    assert "line-number prefixes" in message


@pytest.mark.anyio
async def test_edit_refuses_identical_old_and_new(work: Path) -> None:
    ctx = await read_then_ctx(work, "a.txt", b"alpha\n")
    message = await edit_error(ctx, {"path": "a.txt", "old_string": "al", "new_string": "al"})
    assert "identical" in message


@pytest.mark.anyio
async def test_edit_refuses_an_empty_find_string(work: Path) -> None:
    ctx = await read_then_ctx(work, "a.txt", b"alpha\n")
    message = await edit_error(ctx, {"path": "a.txt", "old_string": "", "new_string": "x"})
    assert "empty" in message
    assert "write" in message


@pytest.mark.anyio
async def test_edit_keeps_crlf_byte_for_byte_when_the_model_sends_lf(work: Path) -> None:
    original = b"first\r\nsecond\r\nthird\r\nlast line, no newline"
    ctx = await read_then_ctx(work, "w.txt", original)
    await edit(
        ctx,
        {"path": "w.txt", "old_string": "second\nthird", "new_string": "2nd\nand a half\n3rd"},
    )
    assert (work / "w.txt").read_bytes() == (
        b"first\r\n2nd\r\nand a half\r\n3rd\r\nlast line, no newline"
    )


@pytest.mark.anyio
async def test_edit_keeps_lf_when_the_model_sends_crlf(work: Path) -> None:
    ctx = await read_then_ctx(work, "u.txt", b"a\nb\nc\n")
    await edit(ctx, {"path": "u.txt", "old_string": "a\r\nb", "new_string": "A\r\nB"})
    assert (work / "u.txt").read_bytes() == b"A\nB\nc\n"


@pytest.mark.anyio
async def test_edit_keeps_a_utf8_bom(work: Path) -> None:
    ctx = await read_then_ctx(work, "b.cs", b"\xef\xbb\xbfclass A {}\r\n")
    await edit(ctx, {"path": "b.cs", "old_string": "class A", "new_string": "class Bé"})
    assert (work / "b.cs").read_bytes() == b"\xef\xbb\xbfclass B\xc3\xa9 {}\r\n"


@pytest.mark.anyio
async def test_edit_round_trips_a_non_utf8_file_without_corrupting_bytes(work: Path) -> None:
    original = "caf\u00e9 \u201cq\u201d\nkeep \u00ff\n".encode("cp1252")
    ctx = await read_then_ctx(work, "legacy.txt", original)
    await edit(ctx, {"path": "legacy.txt", "old_string": "caf\u00e9", "new_string": "th\u00e9"})
    assert (work / "legacy.txt").read_bytes() == original.replace(b"caf\xe9", b"th\xe9")


@pytest.mark.anyio
async def test_edit_falls_back_to_latin1_for_bytes_cp1252_cannot_map(work: Path) -> None:
    original = b"a\x81b\x8d\nname = x\n"
    ctx = await read_then_ctx(work, "raw.txt", original)
    await edit(ctx, {"path": "raw.txt", "old_string": "x", "new_string": "y\xe9"})
    assert (work / "raw.txt").read_bytes() == b"a\x81b\x8d\nname = y\xe9\n"


@pytest.mark.anyio
async def test_edit_refuses_text_the_file_encoding_cannot_hold(work: Path) -> None:
    original = "caf\u00e9\n".encode("cp1252")
    ctx = await read_then_ctx(work, "legacy.txt", original)
    message = await edit_error(
        ctx, {"path": "legacy.txt", "old_string": "caf", "new_string": "\u2192"}
    )
    assert "cp1252" in message
    assert (work / "legacy.txt").read_bytes() == original


@pytest.mark.anyio
async def test_edit_keeps_utf16_with_its_bom(work: Path) -> None:
    original = b"\xff\xfe" + "x = 1\r\n".encode("utf-16-le")
    ctx = await read_then_ctx(work, "u16.txt", original)
    await edit(ctx, {"path": "u16.txt", "old_string": "1", "new_string": "2"})
    assert (work / "u16.txt").read_bytes() == b"\xff\xfe" + "x = 2\r\n".encode("utf-16-le")


@pytest.mark.anyio
async def test_edit_of_a_missing_file_points_to_write(work: Path) -> None:
    message = await edit_error(
        make_ctx(work), {"path": "nope.txt", "old_string": "a", "new_string": "b"}
    )
    assert "no such file" in message
    assert "write" in message


@pytest.mark.anyio
@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
async def test_edit_through_a_symlink_changes_the_target_and_keeps_the_link(work: Path) -> None:
    (work / "real.txt").write_bytes(b"old\n")
    os.symlink(work / "real.txt", work / "link.txt")
    ctx = make_ctx(work)
    await read(ctx, "link.txt")
    await edit(ctx, {"path": "link.txt", "old_string": "old", "new_string": "new"})
    assert (work / "link.txt").is_symlink()
    assert (work / "real.txt").read_bytes() == b"new\n"


def test_edit_permission_is_an_edit_with_the_unified_diff(work: Path) -> None:
    (work / "p.txt").write_text("keep\nchange me\nkeep\n")
    ctx = make_ctx(work)
    request = TOOL.describe(
        TOOL.parse({"path": "p.txt", "old_string": "change me", "new_string": "changed"}), ctx
    )
    assert request.tool == "edit"
    assert request.kind == "edit"
    assert request.paths == (work / "p.txt",)
    assert "-change me\n+changed\n" in request.detail
    assert request.detail.startswith("--- a/p.txt\n+++ b/p.txt\n")


def test_edit_permission_still_describes_an_edit_that_cannot_apply(work: Path) -> None:
    ctx = make_ctx(work)
    request = TOOL.describe(
        TOOL.parse({"path": "absent.txt", "old_string": "a", "new_string": "b"}), ctx
    )
    assert request.kind == "edit"
    assert "-a\n+b\n" in request.detail


def test_edit_is_a_mutating_tool_with_a_described_schema() -> None:
    assert not TOOL.read_only
    assert TOOL.permission is not None
    properties = TOOL.input_schema["properties"]
    assert isinstance(properties, dict)
    assert set(properties) == {"path", "old_string", "new_string", "replace_all"}
    assert TOOL.input_schema["required"] == ["path", "old_string", "new_string"]
