"""Shell commands under the OS sandbox: real bubblewrap, real bash, real processes.

These run on Linux, where CI installs bubblewrap (``.ci/run``); the policy, the settings and
the Seatbelt profile are also checked as data on every OS in ``test_sandbox_policy.py``.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import pytest

from earshot.core.approvals import Approval, ApprovalRequest, sandbox_escalation
from earshot.core.permissions import PermissionGate, RuleSet
from earshot.core.sandbox import Backend, SandboxConfig, find_backend, open_sandbox
from earshot.core.tools import bash_output
from earshot.core.tools._shell import close_all
from earshot.core.tools.base import ToolContext, ToolError, ToolResult
from earshot.core.tools.bash import TOOL
from earshot.core.tools.state import ToolState
from earshot.providers.types import TextPart


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def bwrap() -> Backend:
    backend = find_backend()
    assert backend is not None and backend.kind == "bwrap", (
        "these tests need bubblewrap on PATH (apt-get install bubblewrap; .ci/run installs it)"
    )
    return backend


@pytest.fixture
def outside_dir() -> Iterator[Path]:
    """A directory outside the project and outside /tmp (which the sandbox replaces with a
    private one), writable without the sandbox."""
    path = Path(tempfile.mkdtemp(prefix="earshot-sandbox-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "project"
    work.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    return work


@pytest.fixture
async def ctx(project: Path, bwrap: Backend) -> AsyncIterator[ToolContext]:
    state = ToolState()
    state.sandbox = open_sandbox(project, SandboxConfig(), backend=bwrap)
    context = ToolContext(cwd=project, state=state)
    yield context
    await close_all(state)


def text_of(result: ToolResult) -> str:
    return "".join(p.text for p in result.content if isinstance(p, TextPart))


async def run(ctx: ToolContext, command: str, **extra: object) -> ToolResult:
    args = TOOL.input_type(command=command, **extra)  # type: ignore[arg-type]  # kwargs of a Struct
    return await TOOL.execute(args, ctx)


@pytest.mark.anyio
async def test_commands_write_inside_the_project(ctx: ToolContext, project: Path) -> None:
    result = await run(
        ctx, "echo made > inside.txt && mkdir -p sub && echo ok > sub/x && cat sub/x"
    )
    assert "exit code: 0" in text_of(result)
    assert (project / "inside.txt").read_text() == "made\n"
    assert (project / "sub" / "x").read_text() == "ok\n"


@pytest.mark.anyio
async def test_a_write_outside_the_project_fails(ctx: ToolContext, outside_dir: Path) -> None:
    outside = outside_dir / "outside.txt"
    result = await run(ctx, f"echo nope > {outside}")
    text = text_of(result)
    assert not outside.exists()
    assert "Read-only file system" in text
    assert "stopped by the OS sandbox" in text
    assert "nobody can approve" in text


@pytest.mark.anyio
async def test_a_blocked_step_in_a_command_that_goes_on_is_still_named(
    ctx: ToolContext, outside_dir: Path
) -> None:
    result = await run(ctx, f"echo x > {outside_dir / 'x'}; echo after")
    text = text_of(result)
    assert "after" in text
    assert "exit code: 0" in text
    assert "part of this command seems to have been stopped by the OS sandbox" in text


@pytest.mark.anyio
async def test_git_internals_that_run_code_cannot_be_written(
    ctx: ToolContext, project: Path
) -> None:
    config = project / ".git" / "config"
    before = config.read_text()
    result = await run(
        ctx,
        "git config core.hooksPath /tmp/evil; echo 'echo pwned' > .git/hooks/pre-commit; "
        "echo '[core]' >> .git/config",
    )
    assert config.read_text() == before
    assert not (project / ".git" / "hooks" / "pre-commit").exists()
    assert "Read-only file system" in text_of(result)


@pytest.mark.anyio
async def test_git_can_still_commit_inside_the_sandbox(ctx: ToolContext, project: Path) -> None:
    result = await run(
        ctx,
        "echo a > a.txt && git add a.txt && "
        "git -c user.name=t -c user.email=t@example.com commit -qm first && git log --oneline",
    )
    assert "first" in text_of(result), text_of(result)


@pytest.mark.anyio
async def test_earshot_settings_cannot_be_created_and_leave_no_trace(
    ctx: ToolContext, project: Path
) -> None:
    result = await run(
        ctx,
        'mkdir -p .earshot && echo \'{"permissions":{"defaultMode":"yolo"}}\' '
        "> .earshot/settings.local.json",
    )
    assert "exit code: 0" not in text_of(result)
    assert not (project / ".earshot" / "settings.local.json").exists()
    assert not (project / ".earshot").exists()


@pytest.mark.anyio
async def test_the_network_is_unreachable(ctx: ToolContext) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        probe = f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected"
        confined = await run(ctx, probe)
        assert "connected" not in text_of(confined)
        unconfined = await anyio.run_process(["bash", "-c", probe], check=False)
        assert b"connected" in unconfined.stdout


@pytest.mark.anyio
async def test_tmp_is_private(ctx: ToolContext, tmp_path: Path) -> None:
    marker = Path("/tmp") / f"earshot-sandbox-test-{tmp_path.name}"
    marker.write_text("host")
    try:
        result = await run(
            ctx, f"cat {marker}; echo inside > /tmp/made-inside && cat /tmp/made-inside"
        )
        text = text_of(result)
        assert "host" not in text
        assert "inside" in text
        assert not await anyio.Path("/tmp/made-inside").exists()
    finally:
        marker.unlink()


@pytest.mark.anyio
async def test_background_shells_are_confined(ctx: ToolContext, outside_dir: Path) -> None:
    outside = outside_dir / "bg-outside.txt"
    started = await run(ctx, f"echo bg > {outside}; echo done-bg", run_in_background=True)
    assert "bash_1" in text_of(started)
    with anyio.fail_after(10):
        while True:
            out = await bash_output.TOOL.execute(
                bash_output.TOOL.input_type(shell_id="bash_1"), ctx
            )
            if "done-bg" in text_of(out):
                break
            await anyio.sleep(0.05)
    assert not outside.exists()


@pytest.mark.anyio
async def test_mode_off_runs_as_today(project: Path, tmp_path: Path) -> None:
    state = ToolState()
    state.sandbox = open_sandbox(project, SandboxConfig(mode="off"))
    outside = tmp_path / "free.txt"
    result = await TOOL.execute(
        TOOL.input_type(command=f"echo free > {outside}"), ToolContext(cwd=project, state=state)
    )
    assert "exit code: 0" in text_of(result)
    assert outside.read_text() == "free\n"


@pytest.mark.anyio
async def test_required_refuses_without_a_sandbox(project: Path, tmp_path: Path) -> None:
    state = ToolState()
    state.sandbox = open_sandbox(project, SandboxConfig(mode="required"), platform="win32")
    marker = tmp_path / "ran.txt"
    with pytest.raises(ToolError, match="was not run: this OS has no sandbox") as refused:
        await TOOL.execute(
            TOOL.input_type(command=f"echo ran > {marker}"), ToolContext(cwd=project, state=state)
        )
    assert refused.value.brief == "sandbox required"
    assert not marker.exists()


class Approver:
    def __init__(self, decision: str) -> None:
        self.decision = decision
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Approval:
        self.asked.append(request)
        return Approval(decision=self.decision)  # type: ignore[arg-type]  # test picks a literal


def _gate(project: Path, mode: str) -> PermissionGate:
    return PermissionGate(RuleSet(), mode, project)  # type: ignore[arg-type]  # a mode literal


@pytest.mark.anyio
@pytest.mark.parametrize("decision", ["allow_once", "deny"])
async def test_escalation_asks_to_rerun_the_exact_command_outside(
    ctx: ToolContext, outside_dir: Path, project: Path, decision: str
) -> None:
    approver = Approver(decision)
    ctx.escalate = sandbox_escalation(approver, _gate(project, "ask"), ctx.abort)
    outside = outside_dir / "escalated.txt"
    command = f"echo out > {outside}"
    result = await run(ctx, command)
    assert len(approver.asked) == 1
    asked = approver.asked[0]
    assert asked.request.command == command
    assert "outside the sandbox" in asked.title
    if decision == "allow_once":
        assert outside.read_text() == "out\n"
        assert "second, unconfined run" in text_of(result)
        assert "exit code: 0" in text_of(result)
    else:
        assert not outside.exists()
        assert "the user denied running it outside the sandbox" in text_of(result)


@pytest.mark.anyio
async def test_yolo_mode_stays_confined_and_offers_no_escalation(
    ctx: ToolContext, outside_dir: Path, project: Path
) -> None:
    approver = Approver("allow_once")
    ctx.escalate = sandbox_escalation(approver, _gate(project, "yolo"), ctx.abort)
    outside = outside_dir / "yolo.txt"
    await run(ctx, f"echo out > {outside}")
    assert approver.asked == []
    assert not outside.exists()


def test_a_missing_bwrap_is_said_with_the_install_command(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    sandbox = open_sandbox(project, SandboxConfig(), platform="linux")
    assert not sandbox.active
    assert "bubblewrap (bwrap) is not on PATH" in sandbox.notice
    assert "install" in sandbox.notice


def test_escalation_is_not_offered_headless(project: Path) -> None:
    assert sandbox_escalation(None, _gate(project, "ask"), anyio.Event()) is None
