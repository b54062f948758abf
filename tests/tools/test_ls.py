"""The ls tool: one directory, sorted, directories marked, ignore globs, capped."""

from __future__ import annotations

from pathlib import Path

import pytest

from earshot.core.tools import ls as ls_module
from earshot.core.tools.base import ToolContext, ToolError, ToolResult
from earshot.core.tools.ls import TOOL
from earshot.core.tools.state import ToolState
from earshot.providers.types import JSONObject, TextPart


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    for name in ("b.py", "a.txt", "C.md", "z.pyc"):
        (path / name).write_text("x")
    for name in ("src", "node_modules", ".git"):
        (path / name).mkdir()
    return path


async def ls(ctx: ToolContext, args: JSONObject) -> ToolResult:
    return await TOOL.execute(TOOL.parse(args), ctx)


def entries(result: ToolResult) -> list[str]:
    part = result.content[0]
    assert isinstance(part, TextPart)
    return part.text.splitlines()[1:]


def make_ctx(cwd: Path) -> ToolContext:
    return ToolContext(cwd=cwd, state=ToolState())


@pytest.mark.anyio
async def test_ls_lists_the_working_directory_dirs_first_with_slashes(work: Path) -> None:
    result = await ls(make_ctx(work), {})
    assert entries(result) == [".git/", "node_modules/", "src/", "C.md", "a.txt", "b.py", "z.pyc"]
    part = result.content[0]
    assert isinstance(part, TextPart)
    assert part.text.splitlines()[0].endswith("(3 dirs, 4 files)")


@pytest.mark.anyio
async def test_ls_lists_a_given_directory(work: Path) -> None:
    (work / "src" / "main.py").write_text("")
    assert entries(await ls(make_ctx(work), {"path": "src"})) == ["main.py"]


@pytest.mark.anyio
async def test_ls_leaves_out_ignored_names_and_dir_only_patterns(work: Path) -> None:
    (work / "build").write_text("a file named like a dir pattern")
    result = await ls(make_ctx(work), {"ignore": ["*.pyc", "node_modules/", ".*", "build/"]})
    assert entries(result) == ["src/", "C.md", "a.txt", "b.py", "build"]
    part = result.content[0]
    assert isinstance(part, TextPart)
    assert "3 ignored" in part.text.splitlines()[0]


@pytest.mark.anyio
async def test_ls_caps_long_listings_with_a_marker(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ls_module, "MAX_ENTRIES", 3)
    listed = entries(await ls(make_ctx(work), {}))
    assert listed[:3] == [".git/", "node_modules/", "src/"]
    assert listed[3].startswith("[... 4 more entries cut;")
    assert len(listed) == 4


@pytest.mark.anyio
async def test_ls_says_an_empty_directory_is_empty(work: Path) -> None:
    result = await ls(make_ctx(work), {"path": "src"})
    part = result.content[0]
    assert isinstance(part, TextPart)
    assert part.text.endswith("is empty")


@pytest.mark.anyio
async def test_ls_of_a_file_suggests_read(work: Path) -> None:
    with pytest.raises(ToolError, match="use read"):
        await ls(make_ctx(work), {"path": "a.txt"})


@pytest.mark.anyio
async def test_ls_of_a_missing_directory_suggests_near_names(work: Path) -> None:
    with pytest.raises(ToolError, match=r"no such directory.*src"):
        await ls(make_ctx(work), {"path": "srcs"})


def test_ls_is_read_only() -> None:
    assert TOOL.read_only
    assert TOOL.describe(TOOL.parse({}), make_ctx(Path.cwd())).kind == "read"
