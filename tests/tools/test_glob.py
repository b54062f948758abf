"""The glob tool: gitignore-aware path matching, newest first, relative paths, capped."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from earshot.core.tools import glob as glob_module
from earshot.core.tools.base import ToolContext, ToolError, ToolResult
from earshot.core.tools.glob import TOOL
from earshot.core.tools.state import ToolState
from earshot.providers.types import JSONObject, TextPart


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def age(root: Path, rel: str, seconds_ago: int) -> None:
    when = 1_700_000_000 - seconds_ago
    os.utime(root / rel, (when, when))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=path, check=True)
    write(
        path,
        {
            ".gitignore": "build/\n*.log\n",
            "setup.py": "",
            "src/app.py": "",
            "src/util.py": "",
            "src/pkg/core.py": "",
            "src/pkg/core.pyi": "",
            "src/web/page.ts": "",
            "src/web/page.tsx": "",
            "src/.gitignore": "gen_*.py\n!gen_keep.py\n",
            "src/gen_a.py": "",
            "src/gen_keep.py": "",
            "build/out.py": "",
            "run.log": "",
            "docs/guide.md": "",
        },
    )
    for index, rel in enumerate(
        [
            "src/pkg/core.py",
            "src/app.py",
            "setup.py",
            "src/util.py",
            "src/gen_keep.py",
            "src/pkg/core.pyi",
            "src/web/page.ts",
            "src/web/page.tsx",
            "docs/guide.md",
            ".gitignore",
            "src/.gitignore",
        ]
    ):
        age(path, rel, 100 * (index + 1))
    return path


def context(cwd: Path) -> ToolContext:
    return ToolContext(cwd=cwd, state=ToolState())


async def glob(ctx: ToolContext, args: JSONObject) -> ToolResult:
    return await TOOL.execute(TOOL.parse(args), ctx)


def text(result: ToolResult) -> str:
    part = result.content[0]
    assert isinstance(part, TextPart)
    return part.text


@pytest.mark.anyio
async def test_lists_matches_newest_first_as_relative_paths(repo: Path) -> None:
    result = await glob(context(repo), {"pattern": "**/*.py"})
    assert text(result).splitlines() == [
        "src/pkg/core.py",
        "src/app.py",
        "setup.py",
        "src/util.py",
        "src/gen_keep.py",
    ]
    assert not result.is_error
    assert result.brief == "5 files match **/*.py"


@pytest.mark.anyio
async def test_equal_times_fall_back_to_path_order(tmp_path: Path) -> None:
    write(tmp_path / "w", {"b.txt": "", "a/z.txt": "", "a.txt": ""})
    for rel in ("b.txt", "a/z.txt", "a.txt"):
        age(tmp_path / "w", rel, 5)
    result = await glob(context(tmp_path / "w"), {"pattern": "**/*.txt"})
    assert text(result).splitlines() == ["a/z.txt", "a.txt", "b.txt"]


@pytest.mark.anyio
async def test_gitignored_files_are_left_out_and_negation_reincludes(repo: Path) -> None:
    result = await glob(context(repo), {"pattern": "**/*"})
    listed = set(text(result).splitlines())
    assert "build/out.py" not in listed
    assert "run.log" not in listed
    assert "src/gen_a.py" not in listed
    assert "src/gen_keep.py" in listed
    assert not any(line.startswith(".git/") for line in listed)


@pytest.mark.anyio
async def test_star_stays_in_one_directory(repo: Path) -> None:
    result = await glob(context(repo), {"pattern": "*.py"})
    assert text(result) == "setup.py"
    result = await glob(context(repo), {"pattern": "src/*.py"})
    assert text(result).splitlines() == ["src/app.py", "src/util.py", "src/gen_keep.py"]


@pytest.mark.anyio
async def test_braces_and_classes(repo: Path) -> None:
    result = await glob(context(repo), {"pattern": "src/**/*.{ts,tsx}"})
    assert text(result).splitlines() == ["src/web/page.ts", "src/web/page.tsx"]
    result = await glob(context(repo), {"pattern": "src/pkg/core.py[i]"})
    assert text(result) == "src/pkg/core.pyi"


@pytest.mark.anyio
async def test_a_trailing_slash_lists_everything_below(repo: Path) -> None:
    result = await glob(context(repo), {"pattern": "src/web/"})
    assert text(result).splitlines() == ["src/web/page.ts", "src/web/page.tsx"]


@pytest.mark.anyio
async def test_path_narrows_the_search_and_paths_stay_relative_to_cwd(repo: Path) -> None:
    result = await glob(context(repo), {"pattern": "*.py", "path": "src/pkg"})
    assert text(result) == "src/pkg/core.py"


@pytest.mark.anyio
async def test_outside_the_working_directory_paths_are_absolute(repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = await glob(context(elsewhere), {"pattern": "**/*.md", "path": str(repo)})
    assert text(result) == str((repo / "docs" / "guide.md").resolve())


@pytest.mark.anyio
async def test_absolute_pattern(repo: Path, tmp_path: Path) -> None:
    pattern = (repo / "src" / "web").resolve().as_posix() + "/*.tsx"
    result = await glob(context(tmp_path), {"pattern": pattern})
    assert text(result) == "repo/src/web/page.tsx"


@pytest.mark.anyio
async def test_naming_an_ignored_directory_outright_searches_it(repo: Path) -> None:
    result = await glob(context(repo), {"pattern": "build/*.py"})
    assert text(result) == "build/out.py"


@pytest.mark.anyio
async def test_no_match_says_so_and_suggests_recursive_pattern(repo: Path) -> None:
    result = await glob(context(repo), {"pattern": "*.md"})
    assert not result.is_error
    assert "No files match '*.md'" in text(result)
    assert "try **/*.md" in text(result)


@pytest.mark.anyio
async def test_results_are_capped_with_a_count_of_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(glob_module, "MAX_RESULTS", 3)
    root = tmp_path / "many"
    write(root, {f"f{i}.txt": "" for i in range(5)})
    for i in range(5):
        age(root, f"f{i}.txt", i)
    lines = text(await glob(context(root), {"pattern": "*.txt"})).splitlines()
    assert lines[:3] == ["f0.txt", "f1.txt", "f2.txt"]
    assert lines[3].startswith("[... 2 more files not shown")
    assert "narrow the pattern" in lines[3]


@pytest.mark.anyio
async def test_a_file_or_missing_path_is_an_error(repo: Path) -> None:
    with pytest.raises(ToolError, match="is a file, not a directory"):
        await glob(context(repo), {"pattern": "*", "path": "setup.py"})
    with pytest.raises(ToolError, match="no such directory"):
        await glob(context(repo), {"pattern": "*", "path": "nope"})


@pytest.mark.anyio
async def test_unclosed_bracket_is_an_error(repo: Path) -> None:
    with pytest.raises(ToolError, match=r"\[ without its closing \]"):
        await glob(context(repo), {"pattern": "src/[ab.py"})


@pytest.mark.anyio
async def test_abort_interrupts(repo: Path) -> None:
    ctx = context(repo)
    ctx.abort.set()
    with pytest.raises(ToolError, match="interrupted"):
        await glob(ctx, {"pattern": "**/*"})


def test_glob_is_read_only_with_pattern_and_path_fields() -> None:
    assert TOOL.read_only
    assert TOOL.permission is not None  # it hands the gate the directory it walks
    properties = TOOL.input_schema["properties"]
    assert isinstance(properties, dict)
    assert set(properties) == {"pattern", "path"}
    assert TOOL.input_schema["required"] == ["pattern"]
