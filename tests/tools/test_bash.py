"""The bash tool and its background shells, over real bash and real processes."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import pytest

from earshot.core.tools import bash_output, kill_shell
from earshot.core.tools._shell import UnreadBuffer, close_all, find_bash, get_shell
from earshot.core.tools.base import PermissionRequest, ToolContext, ToolError, ToolResult
from earshot.core.tools.bash import MAX_OUTPUT_CHARS, TOOL
from earshot.core.tools.display import ShellExit
from earshot.core.tools.ops import LocalProcessOps
from earshot.core.tools.state import ToolState
from earshot.providers.types import JSONObject, TextPart

if TYPE_CHECKING:
    from anyio.abc import Process


def _have_bash() -> bool:
    try:
        find_bash()
    except ToolError:
        return False
    return True


pytestmark = pytest.mark.skipif(not _have_bash(), reason="no bash (Git Bash) on this machine")
posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups and pids")

GRANDCHILD = 'sleep 100 & echo "pid=$!"; wait'


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def ctx(tmp_path: Path) -> AsyncIterator[ToolContext]:
    work = tmp_path / "work"
    work.mkdir()
    context = ToolContext(cwd=work, state=ToolState())
    yield context
    await close_all(context.state)


def text_of(result: ToolResult) -> str:
    part = result.content[0]
    assert isinstance(part, TextPart)
    return part.text


async def bash(ctx: ToolContext, args: JSONObject) -> ToolResult:
    return await TOOL.execute(TOOL.parse(args), ctx)


async def output_of(ctx: ToolContext, shell_id: str, filter: str | None = None) -> str:
    args: JSONObject = {"shell_id": shell_id}
    if filter is not None:
        args["filter"] = filter
    tool = bash_output.TOOL
    return text_of(await tool.execute(tool.parse(args), ctx))


async def poll_until(ctx: ToolContext, shell_id: str, expected: str) -> str:
    """bash_output, called until what it returned (together) contains ``expected``."""
    seen = ""
    with anyio.fail_after(10):
        while expected not in seen:
            seen += await output_of(ctx, shell_id) + "\n"
            await anyio.sleep(0.05)
    return seen


def pid_in(text: str) -> int:
    match = re.search(r"pid=(\d+)", text)
    assert match is not None, text
    return int(match.group(1))


def _alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = Path(f"/proc/{pid}/stat")
    if stat.parent.exists():
        try:
            return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except (OSError, IndexError):
            return False
    ps = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True)
    state = ps.stdout.strip()
    return bool(state) and not state.startswith("Z")


async def assert_gone(pid: int) -> None:
    for _ in range(100):
        if not _alive(pid):
            return
        await anyio.sleep(0.05)
    pytest.fail(f"process {pid} is still running")


def number_lines(text: str) -> list[int]:
    return [int(line) for line in text.splitlines() if line]


def check_capped_seq(text: str, last: int) -> None:
    """``seq 1 last`` output, capped: a head 1..k, one marker, a tail m..last, and the
    marker counting exactly the lines and chars between them."""
    output, exit_line = text.rsplit("\n", 1)
    assert exit_line == "exit code: 0"
    head, marker, tail = re.split(r"^(\[\.\.\. .* cut; .*\.\.\.\])$", output, flags=re.M)
    match = re.match(r"\[\.\.\. ([\d,]+) lines \(([\d,]+) chars\) cut", marker)
    assert match is not None, marker
    heads, tails = number_lines(head), number_lines(tail)
    assert heads == list(range(1, len(heads) + 1))
    assert tails == list(range(last - len(tails) + 1, last + 1))
    cut = range(len(heads) + 1, last - len(tails) + 1)
    assert int(match.group(1).replace(",", "")) == len(cut)
    assert int(match.group(2).replace(",", "")) == sum(len(f"{n}\n") for n in cut)
    assert len(head) + len(tail) <= MAX_OUTPUT_CHARS + 2


# --- foreground ----------------------------------------------------------------------


@pytest.mark.anyio
async def test_bash_returns_output_and_exit_code(ctx: ToolContext) -> None:
    result = await bash(ctx, {"command": "echo hello; echo world"})
    assert text_of(result) == "hello\nworld\nexit code: 0"
    assert not result.is_error
    assert isinstance(result.display, ShellExit)
    assert result.display.exit_code == 0


@pytest.mark.anyio
async def test_nonzero_exit_is_reported_not_an_error(ctx: ToolContext) -> None:
    result = await bash(ctx, {"command": "echo partial; exit 3", "description": "fail on purpose"})
    assert text_of(result) == "partial\nexit code: 3"
    assert not result.is_error
    assert result.brief == "fail on purpose (exit 3)"


@pytest.mark.anyio
@posix_only
async def test_exit_by_signal_names_the_signal(ctx: ToolContext) -> None:
    result = await bash(ctx, {"command": "echo bye; kill -9 $$"})
    assert text_of(result) == "bye\nexit code: -9 (killed by SIGKILL)"
    assert not result.is_error


@pytest.mark.anyio
@posix_only
async def test_process_left_running_does_not_hold_the_call_open(ctx: ToolContext) -> None:
    started = time.monotonic()
    result = await bash(ctx, {"command": 'sleep 100 & echo "group=$$"'})
    text = text_of(result)
    try:
        assert time.monotonic() - started < 5
        assert "still holds its output open" in text
        assert text.endswith("exit code: 0")
    finally:
        group = re.search(r"group=(\d+)", text)
        if group is not None and sys.platform != "win32":
            with contextlib.suppress(ProcessLookupError):
                os.killpg(int(group.group(1)), signal.SIGKILL)


@pytest.mark.anyio
async def test_stderr_is_merged_in_arrival_order(ctx: ToolContext) -> None:
    command = "echo one; sleep 0.2; echo two >&2; sleep 0.2; echo three"
    assert text_of(await bash(ctx, {"command": command})) == "one\ntwo\nthree\nexit code: 0"


@pytest.mark.anyio
async def test_command_without_output_says_so(ctx: ToolContext) -> None:
    assert text_of(await bash(ctx, {"command": "true"})) == "(no output)\nexit code: 0"


@pytest.mark.anyio
async def test_runs_in_the_session_cwd(ctx: ToolContext) -> None:
    (ctx.cwd / "marker.txt").write_text("here\n")
    result = await bash(ctx, {"command": "pwd -P; cat marker.txt"})
    cwd, content, _ = text_of(result).split("\n")
    if sys.platform != "win32":
        assert Path(cwd) == ctx.cwd.resolve()
    assert content == "here"


@pytest.mark.anyio
async def test_child_sees_earshot_variable_and_closed_stdin(ctx: ToolContext) -> None:
    with anyio.fail_after(10):
        result = await bash(ctx, {"command": 'echo "EARSHOT=$EARSHOT"; cat; read -r x; echo $?'})
    assert text_of(result) == "EARSHOT=1\n1\nexit code: 0"


@pytest.mark.anyio
@posix_only
async def test_timeout_kills_the_process_group_including_grandchildren(
    ctx: ToolContext,
) -> None:
    started = time.monotonic()
    result = await bash(ctx, {"command": GRANDCHILD, "timeout": 500})
    assert time.monotonic() - started < 5
    text = text_of(result)
    assert result.is_error
    assert "timed out after 500 ms" in text
    assert "exit code" not in text
    await assert_gone(pid_in(text))


@pytest.mark.anyio
@posix_only
async def test_abort_kills_the_command_and_its_children(ctx: ToolContext) -> None:
    async def interrupt() -> None:
        await anyio.sleep(0.5)
        ctx.abort.set()

    started = time.monotonic()
    async with anyio.create_task_group() as tg:
        tg.start_soon(interrupt)
        result = await bash(ctx, {"command": GRANDCHILD})
    assert time.monotonic() - started < 5
    assert result.is_error
    assert "interrupted by the user" in text_of(result)
    assert result.brief.endswith("(interrupted)")
    await assert_gone(pid_in(text_of(result)))


@pytest.mark.anyio
async def test_abort_set_before_the_call_runs_nothing(ctx: ToolContext) -> None:
    ctx.abort.set()
    with pytest.raises(ToolError, match="interrupted"):
        await bash(ctx, {"command": "touch ran"})
    assert not (ctx.cwd / "ran").exists()


@pytest.mark.anyio
async def test_long_output_keeps_head_and_tail_with_exact_marker(ctx: ToolContext) -> None:
    check_capped_seq(text_of(await bash(ctx, {"command": "seq 1 5000"})), 5000)


@pytest.mark.anyio
async def test_flood_of_output_keeps_head_and_tail_with_exact_marker(ctx: ToolContext) -> None:
    check_capped_seq(text_of(await bash(ctx, {"command": "seq 1 300000"})), 300000)


@pytest.mark.anyio
async def test_timeout_over_the_maximum_is_clamped_and_said(ctx: ToolContext) -> None:
    text = text_of(await bash(ctx, {"command": "echo hi", "timeout": 900_000}))
    assert text.startswith("hi\nnote: timeout 900000 ms is over the maximum")
    assert "clamped to 600000 ms (10 min)" in text
    assert text.endswith("exit code: 0")


@pytest.mark.anyio
async def test_timeout_must_be_positive(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="timeout"):
        TOOL.parse({"command": "true", "timeout": 0})


@pytest.mark.anyio
async def test_missing_working_directory_is_an_error(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path / "gone", state=ToolState())
    with pytest.raises(ToolError, match="does not exist"):
        await bash(ctx, {"command": "true"})


class RefusingProcs(LocalProcessOps):
    async def spawn(
        self, argv: list[str], *, cwd: Path, env: Mapping[str, str] | None = None
    ) -> Process:
        raise PermissionError(13, "Permission denied", argv[0])


@pytest.mark.anyio
async def test_command_that_cannot_start_is_an_error(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path, state=ToolState(), procs=RefusingProcs())
    with pytest.raises(ToolError, match="could not start"):
        await bash(ctx, {"command": "true"})


@pytest.mark.anyio
@posix_only
async def test_without_bash_on_path_it_runs_with_sh_and_says_so(
    ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    text = text_of(await bash(ctx, {"command": "echo via-sh"}))
    assert text.startswith("via-sh\nnote: bash was not found on PATH, so this ran with /bin/sh")
    assert text.endswith("exit code: 0")


@pytest.mark.anyio
async def test_permission_request_names_the_command(ctx: ToolContext) -> None:
    request = TOOL.describe(TOOL.parse({"command": "rm -rf build && make"}), ctx)
    assert request == PermissionRequest(
        tool="bash", kind="execute", command="rm -rf build && make", detail="rm -rf build && make"
    )
    assert not TOOL.read_only


# --- background shells -----------------------------------------------------------------


@pytest.mark.anyio
async def test_background_shell_returns_at_once_and_reports_new_output_only(
    ctx: ToolContext,
) -> None:
    command = "echo first; while [ ! -f go ]; do sleep 0.05; done; echo second; sleep 100"
    started = time.monotonic()
    result = await bash(ctx, {"command": command, "run_in_background": True})
    assert time.monotonic() - started < 2
    assert text_of(result).startswith("started bash_1 in the background")
    assert not result.is_error

    first = await poll_until(ctx, "bash_1", "first")
    assert "status: running" in first
    (ctx.cwd / "go").touch()
    second = await poll_until(ctx, "bash_1", "second")
    assert "first" not in second
    assert (await output_of(ctx, "bash_1")) == "(no new output)\nstatus: running"


@pytest.mark.anyio
async def test_background_shell_exit_code_and_remaining_output(ctx: ToolContext) -> None:
    await bash(ctx, {"command": "echo done; exit 4", "run_in_background": True})
    with anyio.fail_after(10):
        await get_shell(ctx.state, "bash_1").wait()
    assert await output_of(ctx, "bash_1") == "done\nstatus: exited with code 4"


@pytest.mark.anyio
async def test_background_shells_are_numbered(ctx: ToolContext) -> None:
    for n in (1, 2):
        result = await bash(ctx, {"command": "true", "run_in_background": True})
        assert text_of(result).startswith(f"started bash_{n} ")
    assert sorted(ctx.state.shells) == ["bash_1", "bash_2"]


@pytest.mark.anyio
async def test_bash_output_filter_keeps_matching_lines(ctx: ToolContext) -> None:
    command = "printf 'apple\\nbanana\\napricot\\n'"
    await bash(ctx, {"command": command, "run_in_background": True})
    with anyio.fail_after(10):
        await get_shell(ctx.state, "bash_1").wait()
    text = await output_of(ctx, "bash_1", filter="^ap")
    assert text == "(filter kept 2 of 3 new lines)\napple\napricot\nstatus: exited with code 0"
    assert await output_of(ctx, "bash_1") == "(no new output)\nstatus: exited with code 0"


@pytest.mark.anyio
async def test_bash_output_refuses_a_bad_filter(ctx: ToolContext) -> None:
    await bash(ctx, {"command": "true", "run_in_background": True})
    with pytest.raises(ToolError, match="not a valid regular expression"):
        await output_of(ctx, "bash_1", filter="(")


@pytest.mark.anyio
async def test_unknown_shell_id_names_the_known_shells(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="no background shells have been started"):
        await output_of(ctx, "bash_7")
    await bash(ctx, {"command": "sleep 100", "run_in_background": True})
    with pytest.raises(ToolError, match=r"bash_1 \(running\): sleep 100"):
        await output_of(ctx, "bash_7")


@pytest.mark.anyio
@posix_only
async def test_kill_shell_kills_the_group_and_status_says_killed(ctx: ToolContext) -> None:
    await bash(ctx, {"command": GRANDCHILD, "run_in_background": True})
    grandchild = pid_in(await poll_until(ctx, "bash_1", "pid="))
    shell_pid = get_shell(ctx.state, "bash_1").pid

    tool = kill_shell.TOOL
    result = await tool.execute(tool.parse({"shell_id": "bash_1"}), ctx)
    assert text_of(result).startswith("killed bash_1")
    assert "status: killed" in text_of(result)
    await assert_gone(grandchild)
    await assert_gone(shell_pid)
    assert await output_of(ctx, "bash_1") == "(no new output)\nstatus: killed"

    again = await tool.execute(tool.parse({"shell_id": "bash_1"}), ctx)
    assert text_of(again) == "bash_1 was not running (killed); nothing to kill"


@pytest.mark.anyio
async def test_kill_shell_permission_names_the_shell_and_its_command(ctx: ToolContext) -> None:
    await bash(ctx, {"command": "sleep 100", "run_in_background": True})
    tool = kill_shell.TOOL
    request = tool.describe(tool.parse({"shell_id": "bash_1"}), ctx)
    assert request.kind == "execute"
    assert request.detail == "kill background shell bash_1: sleep 100"
    assert not tool.read_only
    assert bash_output.TOOL.read_only


@pytest.mark.anyio
@posix_only
async def test_close_all_kills_surviving_shells(ctx: ToolContext) -> None:
    pids: list[int] = []
    for shell_id in ("bash_1", "bash_2"):
        await bash(ctx, {"command": GRANDCHILD, "run_in_background": True})
        pids.append(pid_in(await poll_until(ctx, shell_id, "pid=")))
        pids.append(get_shell(ctx.state, shell_id).pid)
    await close_all(ctx.state)
    assert ctx.state.shells == {}
    for pid in pids:
        await assert_gone(pid)


def test_unread_buffer_drops_the_oldest_and_counts_it() -> None:
    buffer = UnreadBuffer(limit=10)
    for _ in range(5):
        buffer.append("abc\n")
    assert buffer.take() == ("c\nabc\nabc\n", 10, 2)
    assert buffer.take() == ("", 0, 0)
