"""The grep tool. Every search runs twice: with the Python search (``EARSHOT_NO_RG=1``)
and, when ripgrep is installed, with rg; both must print exactly the expected text."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import pytest

from earshot.core.tools import _grep_search, _rg
from earshot.core.tools import grep as grep_module
from earshot.core.tools.base import ToolContext, ToolError, ToolResult
from earshot.core.tools.grep import TOOL
from earshot.core.tools.ops import LocalProcessOps
from earshot.core.tools.state import ToolState
from earshot.providers.types import JSONObject, TextPart

if TYPE_CHECKING:
    from anyio.abc import Process

RG = _rg.find_rg({"PATH": os.environ.get("PATH", "")})
MODES = ("files_with_matches", "count", "content")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def write(root: Path, files: Mapping[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8"))


def age(root: Path, rel: str, seconds_ago: int) -> None:
    when = 1_700_000_000 - seconds_ago
    os.utime(root / rel, (when, when))


APP = (
    "import os\ndef main():\n    value = compute()\n    return value\n\n"
    "def compute():\n    return 42\n"
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=path, check=True)
    write(
        path,
        {
            ".gitignore": "*.log\n!keep.log\nbuild/\n",
            "src/app.py": APP,
            "src/util.py": "# helpers\ndef helper():\n    return 'Value'\n",
            "src/.gitignore": "gen_*.py\n!gen_keep.py\n",
            "src/gen_skip.py": "def generated(): pass\n",
            "src/gen_keep.py": "def kept(): pass\n",
            "docs/guide.md": "# Guide\nCall main() to start.\nThen compute.\n",
            "build/out.py": "def main(): pass\n",
            "debug.log": "def main in log\n",
            "keep.log": "def main kept log\n",
            "data.bin": b"def main\0binary\n",
        },
    )
    order = ["src/util.py", "src/app.py", "docs/guide.md", "keep.log", "src/gen_keep.py"]
    for index, rel in enumerate(order):
        age(path, rel, 10 * (index + 1))
    return path


def context(cwd: Path) -> ToolContext:
    return ToolContext(cwd=cwd, state=ToolState())


def text(result: ToolResult) -> str:
    part = result.content[0]
    assert isinstance(part, TextPart)
    return part.text


async def run(ctx: ToolContext, args: JSONObject) -> str:
    try:
        return text(await TOOL.execute(TOOL.parse(args), ctx))
    except ToolError as exc:
        return f"ToolError: {exc.message}"


async def grep(ctx: ToolContext, args: JSONObject, monkeypatch: pytest.MonkeyPatch) -> str:
    """The Python search's output, once rg (if installed) printed the same."""
    monkeypatch.setenv(_rg.DISABLE_ENV, "1")
    python = await run(ctx, args)
    monkeypatch.delenv(_rg.DISABLE_ENV)
    if RG is not None:
        assert await run(ctx, args) == python
    return python


@pytest.mark.anyio
async def test_ripgrep_and_python_give_identical_output(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = context(repo)
    expected = {
        "files_with_matches": "Found 4 files\nsrc/util.py\nsrc/app.py\nkeep.log\nsrc/gen_keep.py",
        "count": (
            "Found 8 matching lines in 4 files\n"
            "keep.log:1\nsrc/app.py:4\nsrc/gen_keep.py:1\nsrc/util.py:2"
        ),
        "content": (
            "keep.log\n1:def main kept log\n\n"
            "src/app.py\n2:def main():\n4:    return value\n6:def compute():\n7:    return 42\n\n"
            "src/gen_keep.py\n1:def kept(): pass\n\n"
            "src/util.py\n2:def helper():\n3:    return 'Value'"
        ),
    }
    for mode, output in expected.items():
        assert await grep(ctx, {"pattern": "def|return", "output_mode": mode}, monkeypatch) == (
            output
        )


@pytest.mark.anyio
async def test_files_mode_is_the_default_and_lists_newest_first(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    age(repo, "src/gen_keep.py", 0)
    out = await grep(context(repo), {"pattern": "def "}, monkeypatch)
    assert out == "Found 4 files\nsrc/gen_keep.py\nsrc/util.py\nsrc/app.py\nkeep.log"


@pytest.mark.anyio
async def test_content_shows_line_numbers_and_context_before(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args: JSONObject = {"pattern": "return", "output_mode": "content", "-B": 1}
    assert await grep(context(repo), args, monkeypatch) == (
        "src/app.py\n3-    value = compute()\n4:    return value\n--\n"
        "6-def compute():\n7:    return 42\n\n"
        "src/util.py\n2-def helper():\n3:    return 'Value'"
    )


@pytest.mark.anyio
async def test_context_after_stops_at_the_end_of_the_file(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args: JSONObject = {"pattern": "compute", "output_mode": "content", "-A": 1}
    assert await grep(context(repo), args, monkeypatch) == (
        "docs/guide.md\n3:Then compute.\n\n"
        "src/app.py\n3:    value = compute()\n4-    return value\n--\n"
        "6:def compute():\n7-    return 42"
    )


@pytest.mark.anyio
async def test_overlapping_context_merges_into_one_group(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args: JSONObject = {"pattern": "compute", "path": "src", "output_mode": "content", "-C": 2}
    assert await grep(context(repo), args, monkeypatch) == (
        "src/app.py\n1-import os\n2-def main():\n3:    value = compute()\n4-    return value\n"
        "5-\n6:def compute():\n7-    return 42"
    )


@pytest.mark.anyio
async def test_before_and_after_override_context(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args: JSONObject = {
        "pattern": "42",
        "output_mode": "content",
        "-C": 3,
        "-A": 0,
        "-B": 1,
    }
    assert await grep(context(repo), args, monkeypatch) == (
        "src/app.py\n6-def compute():\n7:    return 42"
    )


@pytest.mark.anyio
async def test_count_mode_counts_matching_lines_not_matches(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args: JSONObject = {"pattern": "e", "output_mode": "count", "path": "src/util.py"}
    assert await grep(context(repo), args, monkeypatch) == (
        "Found 3 matching lines in 1 file\nsrc/util.py:3"
    )


@pytest.mark.anyio
async def test_case_insensitive(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = context(repo)
    sensitive: JSONObject = {"pattern": "value", "output_mode": "count"}
    assert await grep(ctx, sensitive, monkeypatch) == (
        "Found 2 matching lines in 1 file\nsrc/app.py:2"
    )
    insensitive: JSONObject = {**sensitive, "case_insensitive": True}
    assert await grep(ctx, insensitive, monkeypatch) == (
        "Found 3 matching lines in 2 files\nsrc/app.py:2\nsrc/util.py:1"
    )


@pytest.mark.anyio
async def test_multiline_matches_span_lines(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = context(repo)
    args: JSONObject = {
        "pattern": r"def main\(\):\n\s+value",
        "output_mode": "content",
        "multiline": True,
    }
    assert await grep(ctx, args, monkeypatch) == (
        "src/app.py\n2:def main():\n3:    value = compute()"
    )
    dotall: JSONObject = {"pattern": "helper.*Value", "multiline": True, "output_mode": "count"}
    assert await grep(ctx, dotall, monkeypatch) == (
        "Found 3 matching lines in 1 file\nsrc/util.py:3"
    )


@pytest.mark.anyio
async def test_newline_without_multiline_is_refused(repo: Path) -> None:
    out = await run(context(repo), {"pattern": "main\\(\\):\\n"})
    assert out.startswith("ToolError: the pattern contains a newline")
    assert "multiline: true" in out


@pytest.mark.anyio
async def test_glob_filters_by_name_path_and_exclusion(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = context(repo)
    by_name: JSONObject = {"pattern": "main", "glob": "*.{md,log}"}
    assert await grep(ctx, by_name, monkeypatch) == "Found 2 files\ndocs/guide.md\nkeep.log"
    by_path: JSONObject = {"pattern": "def", "glob": "src/*.py", "output_mode": "count"}
    assert await grep(ctx, by_path, monkeypatch) == (
        "Found 4 matching lines in 3 files\nsrc/app.py:2\nsrc/gen_keep.py:1\nsrc/util.py:1"
    )
    excluded: JSONObject = {"pattern": "def", "glob": "!*.py"}
    assert await grep(ctx, excluded, monkeypatch) == "Found 1 file\nkeep.log"


@pytest.mark.anyio
async def test_type_filter_and_its_errors(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = context(repo)
    assert await grep(ctx, {"pattern": "main", "type": "markdown"}, monkeypatch) == (
        "Found 1 file\ndocs/guide.md"
    )
    both: JSONObject = {"pattern": "def", "type": "py", "glob": "*util*"}
    assert await grep(ctx, both, monkeypatch) == "Found 1 file\nsrc/util.py"
    out = await run(ctx, {"pattern": "x", "type": "cobol"})
    assert out.startswith("ToolError: unknown type 'cobol'; known types: c, cpp,")


@pytest.mark.anyio
async def test_gitignored_and_binary_files_are_not_searched(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = await grep(context(repo), {"pattern": "main", "output_mode": "count"}, monkeypatch)
    assert out == ("Found 3 matching lines in 3 files\ndocs/guide.md:1\nkeep.log:1\nsrc/app.py:1")


@pytest.mark.anyio
async def test_a_nul_byte_late_in_a_large_file_still_makes_it_binary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "w"
    big = b"needle\n" + b"x" * 80_000 + b"\n\0 needle\n"
    write(root, {"late.txt": big, "ok.txt": "needle\n"})
    ctx = context(root)
    for mode in ("files_with_matches", "count", "content"):
        out = await grep(ctx, {"pattern": "needle", "output_mode": mode}, monkeypatch)
        assert "late.txt" not in out
        assert "ok.txt" in out


@pytest.mark.anyio
async def test_encodings_line_endings_and_long_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "w"
    write(
        root,
        {
            "a_utf16.txt": "\ufeffnothing\nthe needle here\n".encode("utf-16-le"),
            "b_bom.txt": "\ufeffneedle first\n".encode(),
            "c_latin1.txt": b"caf\xe9 needle\n",
            "d_crlf.txt": b"one\r\nneedle two\r\n",
            "e_long.txt": ("needle" + "y" * 994 + "\n").encode(),
        },
    )
    out = await grep(context(root), {"pattern": "needle", "output_mode": "content"}, monkeypatch)
    assert out == (
        "a_utf16.txt\n2:the needle here\n\n"
        "b_bom.txt\n1:needle first\n\n"
        "c_latin1.txt\n1:caf\ufffd needle\n\n"
        "d_crlf.txt\n2:needle two\n\n"
        f"e_long.txt\n1:needle{'y' * 494} [... 500 chars cut]"
    )


@pytest.mark.anyio
async def test_head_limit_and_offset_page_through_files(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = context(repo)
    first = await grep(ctx, {"pattern": "def", "head_limit": 2}, monkeypatch)
    assert first == (
        "Found 4 files (showing files 1-2)\nsrc/util.py\nsrc/app.py\n"
        "[... 2 more files not shown; narrow the pattern, path, glob or type, "
        "or pass offset=2 to see the next ones ...]"
    )
    rest = await grep(ctx, {"pattern": "def", "head_limit": 2, "offset": 2}, monkeypatch)
    assert rest == "Found 4 files (showing files 3-4)\nkeep.log\nsrc/gen_keep.py"


@pytest.mark.anyio
async def test_head_limit_cuts_content_lines_and_counts_the_rest(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = context(repo)
    args: JSONObject = {"pattern": "def|return", "output_mode": "content", "head_limit": 3}
    assert await grep(ctx, args, monkeypatch) == (
        "keep.log\n1:def main kept log\n\nsrc/app.py\n2:def main():\n4:    return value\n"
        "[... 5 more lines not shown; narrow the pattern, path, glob or type, "
        "or pass offset=3 to see the next ones ...]"
    )
    page: JSONObject = {**args, "offset": 3}
    assert await grep(ctx, page, monkeypatch) == (
        "src/app.py\n6:def compute():\n7:    return 42\n\n"
        "src/gen_keep.py\n1:def kept(): pass\n"
        "[... 2 more lines not shown; narrow the pattern, path, glob or type, "
        "or pass offset=6 to see the next ones ...]"
    )


@pytest.mark.anyio
async def test_search_stops_counting_far_past_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_grep_search, "OVERFLOW_LINES", 5)
    root = tmp_path / "w"
    write(root, {f"f{i}.txt": "hit\n" * 4 for i in range(6)})
    args: JSONObject = {"pattern": "hit", "output_mode": "content", "head_limit": 2}
    out = await grep(context(root), args, monkeypatch)
    assert out == (
        "f0.txt\n1:hit\n2:hit\n"
        "[... more than 6 lines not shown; narrow the pattern, path, glob or type, "
        "or pass offset=2 to see the next ones ...]"
    )


@pytest.mark.anyio
async def test_count_mode_pages_by_file(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    args: JSONObject = {"pattern": "def", "output_mode": "count", "head_limit": 1, "offset": 1}
    assert await grep(context(repo), args, monkeypatch) == (
        "Found 5 matching lines in 4 files (showing files 2-2)\nsrc/app.py:2\n"
        "[... 2 more files not shown; narrow the pattern, path, glob or type, "
        "or pass offset=2 to see the next ones ...]"
    )


@pytest.mark.anyio
async def test_no_match_is_not_an_error(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = await grep(context(repo), {"pattern": "zzz", "type": "py"}, monkeypatch)
    assert out.startswith("No matches for 'zzz' in the working directory type='py'.")
    result = await TOOL.execute(TOOL.parse({"pattern": "zzz"}), context(repo))
    assert not result.is_error


@pytest.mark.anyio
async def test_invalid_regex_names_the_problem(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = await grep(context(repo), {"pattern": "foo("}, monkeypatch)
    assert out == (
        "ToolError: invalid regex 'foo(': missing ), unterminated subpattern at position 3; "
        "fix the syntax, or escape characters meant literally with a backslash "
        "(\\( \\[ \\{ \\. \\* \\+ \\?)"
    )


@pytest.mark.anyio
async def test_syntax_rg_refuses_but_python_accepts_still_works(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args: JSONObject = {"pattern": r"return (?=42)", "output_mode": "content"}
    assert await grep(context(repo), args, monkeypatch) == "src/app.py\n7:    return 42"


@pytest.mark.anyio
async def test_single_file_path(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = context(repo)
    args: JSONObject = {"pattern": "return", "path": "src/app.py", "output_mode": "content"}
    assert await grep(ctx, args, monkeypatch) == "src/app.py\n4:    return value\n7:    return 42"
    ignored: JSONObject = {"pattern": "main", "path": "debug.log"}
    assert await grep(ctx, ignored, monkeypatch) == "Found 1 file\ndebug.log"
    binary = await run(ctx, {"pattern": "main", "path": "data.bin"})
    assert binary.startswith("ToolError: ") and "is a binary file" in binary
    missing = await run(ctx, {"pattern": "x", "path": "src/*.py"})
    assert missing.startswith("ToolError: no such file or directory")
    assert "glob" in missing


@pytest.mark.anyio
async def test_outside_the_working_directory_paths_are_absolute(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    args: JSONObject = {"pattern": "helper", "path": str(repo / "src")}
    out = await grep(context(elsewhere), args, monkeypatch)
    assert out == f"Found 1 file\n{(repo / 'src' / 'util.py').resolve()}"


@pytest.mark.anyio
async def test_output_is_capped_in_characters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(grep_module, "MAX_OUTPUT_CHARS", 300)
    root = tmp_path / "w"
    write(root, {"a.txt": "".join(f"match number {i}\n" for i in range(100))})
    args: JSONObject = {"pattern": "match", "output_mode": "content"}
    out = await grep(context(root), args, monkeypatch)
    assert len(out) < 450
    assert out.startswith("a.txt\n1:match number 0\n")
    assert "chars) cut; narrow the search, lower head_limit, or page with offset ...]" in out


@pytest.mark.anyio
async def test_abort_interrupts_both_engines(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = context(repo)
    ctx.abort.set()
    assert await grep(ctx, {"pattern": "def"}, monkeypatch) == (
        "ToolError: grep was interrupted before it finished"
    )


def real(path: Path) -> str:
    return str(path.resolve())


class RecordingProcs(LocalProcessOps):
    def __init__(self) -> None:
        super().__init__()
        self.spawned: list[list[str]] = []

    async def spawn(
        self, argv: list[str], *, cwd: Path, env: Mapping[str, str] | None = None
    ) -> Process:
        self.spawned.append(argv)
        return await super().spawn(argv, cwd=cwd, env=env)


@pytest.mark.anyio
async def test_ripgrep_runs_through_the_process_operations_when_found(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    procs = RecordingProcs()
    ctx = ToolContext(cwd=repo, state=ToolState(), procs=procs)
    await TOOL.execute(TOOL.parse({"pattern": "def", "output_mode": "content"}), ctx)
    if RG is None:
        assert procs.spawned == []
    else:
        assert len(procs.spawned) == 1
        argv = procs.spawned[0]
        assert argv[0] == RG
        assert "--json" in argv
        assert argv[-2:] == ["--", real(repo)]
    monkeypatch.setenv(_rg.DISABLE_ENV, "1")
    procs.spawned.clear()
    await TOOL.execute(TOOL.parse({"pattern": "def"}), ctx)
    assert procs.spawned == []


def test_find_rg_honours_the_switches(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / ("rg.exe" if sys.platform == "win32" else "rg")
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    path = str(bin_dir)
    assert _rg.find_rg({"PATH": path}) == str(fake)
    assert _rg.find_rg({"PATH": path, "EARSHOT_NO_RG": "1"}) is None
    assert _rg.find_rg({"PATH": path, "EARSHOT_NO_RG": "0"}) == str(fake)
    named = tmp_path / "custom-rg"
    named.write_text("#!/bin/sh\n")
    named.chmod(0o755)
    assert _rg.find_rg({"PATH": "", "EARSHOT_RG": str(named)}) == str(named)
    assert _rg.find_rg({"PATH": "", "EARSHOT_RG": str(tmp_path / "missing")}) is None
    assert _rg.find_rg({"PATH": str(tmp_path / "empty")}) is None


def stand_in_rg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str) -> None:
    """Make grep run a shell script as its rg."""
    fake = tmp_path / "fake-rg"
    fake.write_text(f"#!/bin/sh\n{script}\n")
    fake.chmod(0o755)
    monkeypatch.setenv(_rg.BINARY_ENV, str(fake))
    assert _rg.find_rg() == str(fake)


async def python_output(ctx: ToolContext, args: JSONObject, monkeypatch: pytest.MonkeyPatch) -> str:
    with monkeypatch.context() as patch:
        patch.setenv(_rg.DISABLE_ENV, "1")
        return await run(ctx, args)


@pytest.mark.skipif(sys.platform == "win32", reason="the stand-in rg is a shell script")
@pytest.mark.anyio
async def test_an_rg_that_fails_leaves_the_search_to_python(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = context(repo)
    stand_in_rg(tmp_path, monkeypatch, "echo 'error: unknown flag' >&2; exit 2")
    for mode in MODES:
        args: JSONObject = {"pattern": "def|return", "output_mode": mode}
        assert await run(ctx, args) == await python_output(ctx, args, monkeypatch)


@pytest.mark.skipif(sys.platform == "win32", reason="the stand-in rg is a shell script")
@pytest.mark.anyio
async def test_json_this_reader_does_not_know_leaves_the_search_to_python(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = context(repo)
    stand_in_rg(tmp_path, monkeypatch, """echo '{"type":"novel"}'; exit 0""")
    args: JSONObject = {"pattern": "def|return", "output_mode": "content"}
    assert await run(ctx, args) == await python_output(ctx, args, monkeypatch)


@pytest.mark.skipif(sys.platform == "win32", reason="the stand-in rg is a shell script")
@pytest.mark.anyio
async def test_paths_outside_the_searched_directory_are_dropped(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand_in_rg(tmp_path, monkeypatch, "printf '/elsewhere/x.txt\\0'; exit 0")
    out = await run(context(repo), {"pattern": "def"})
    assert out.startswith("No matches for 'def'")


def test_line_splitter_joins_lines_longer_than_a_chunk() -> None:
    splitter = _rg.LineSplitter()
    assert splitter.feed(b"ab") == []
    assert splitter.feed(b"cd") == []
    assert splitter.feed(b"e\nf\ng") == [b"abcde", b"f"]
    assert splitter.feed(b"\n") == [b"g"]
    assert splitter.feed(b"tail") == []
    assert splitter.finish() == [b"tail"]
    assert splitter.finish() == []


def python_argv(code: str) -> list[str]:
    return [sys.executable, "-c", code]


@pytest.mark.anyio
async def test_run_rg_stops_a_process_when_the_reader_has_enough(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    chunks: list[bytes] = []

    def on_output(chunk: bytes) -> bool:
        chunks.append(chunk)
        return False

    code = "import sys\nwhile True: sys.stdout.write('x' * 65536); sys.stdout.flush()"
    with anyio.fail_after(20):
        run = await _rg.run_rg(ctx, python_argv(code), cwd=tmp_path, on_output=on_output)
    assert run.stopped
    assert run.returncode is None
    assert len(chunks) == 1
    assert not run.failed


@pytest.mark.anyio
async def test_run_rg_reports_failure_from_stderr_and_exit_status(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    code = "import sys; sys.stderr.write('regex parse error'); sys.exit(2)"
    run = await _rg.run_rg(ctx, python_argv(code), cwd=tmp_path, on_output=lambda _: True)
    assert run.failed
    assert run.stderr == "regex parse error"
    quiet = await _rg.run_rg(
        ctx, python_argv("import sys; sys.exit(2)"), cwd=tmp_path, on_output=lambda _: True
    )
    assert not quiet.failed


@pytest.mark.anyio
async def test_run_rg_is_interrupted_by_abort(tmp_path: Path) -> None:
    ctx = context(tmp_path)

    async def abort_soon() -> None:
        await anyio.sleep(0.2)
        ctx.abort.set()

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            tg.start_soon(abort_soon)
            with pytest.raises(ToolError, match="interrupted"):
                await _rg.run_rg(
                    ctx,
                    python_argv("import time; time.sleep(60)"),
                    cwd=tmp_path,
                    on_output=lambda _: True,
                )


def test_grep_is_read_only_and_its_schema_names_each_option() -> None:
    assert TOOL.read_only
    assert TOOL.permission is not None  # it hands the gate the directory it walks
    properties = TOOL.input_schema["properties"]
    assert isinstance(properties, dict)
    assert set(properties) == {
        "pattern",
        "path",
        "glob",
        "type",
        "output_mode",
        "-A",
        "-B",
        "-C",
        "case_insensitive",
        "multiline",
        "head_limit",
        "offset",
    }
    assert TOOL.input_schema["required"] == ["pattern"]
    mode = properties["output_mode"]
    assert isinstance(mode, dict)
    assert mode["default"] == "files_with_matches"
