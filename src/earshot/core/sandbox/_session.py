"""A session's sandbox: ``open_sandbox`` finds the backend (or says once why there is
none), ``Sandbox.wrap`` confines each command, ``blocked_by`` reads a failure."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from earshot.core.sandbox._backends import (
    Backend,
    bwrap_argv,
    find_backend,
    linux_install_hint,
    seatbelt_argv,
)
from earshot.core.sandbox._config import SandboxConfig
from earshot.core.sandbox._policy import Policy, build_policy, sandbox_failure
from earshot.core.tools.base import ToolError
from earshot.core.tools.state import ShellSandbox

_KEPT_OR_GONE = (errno.ENOENT, errno.ENOTDIR, errno.ENOTEMPTY, errno.EEXIST)
"""Why ``rmdir`` leaves a mount point alone that is not ours to remove any more: gone, a
link or a file now, or filled by a command's own work."""


class SandboxUnavailable(ToolError):
    """``sandbox.mode`` is ``required`` and this machine has no sandbox to run commands in."""


@dataclass
class Sandbox:
    """The sandbox of one session. ``backend`` is None when commands run unconfined (mode
    off, or no sandbox on this machine in mode auto: ``notice`` then says so once)."""

    config: SandboxConfig
    policy: Policy
    backend: Backend | None
    notice: str = ""
    _created: set[Path] = field(default_factory=set)

    _probed: bool = False
    _pending: str = ""

    def take_note(self) -> str:
        """What the model should be told once about the sandbox (it could not start)."""
        note, self._pending = self._pending, ""
        return note

    @property
    def active(self) -> bool:
        return self.backend is not None

    def _probe(self) -> None:
        """Once per session, before the first command: check that the backend can start
        at all (a container may forbid the namespaces bwrap needs). A backend that cannot is
        dropped, and ``notice`` says why."""
        if self._probed or self.backend is None or self.backend.kind != "bwrap":
            self._probed = True
            return
        self._probed = True
        probe = [self.backend.path, "--ro-bind", "/", "/", "--unshare-net", "--", "true"]
        try:
            done = subprocess.run(probe, capture_output=True, text=True, timeout=10, check=False)
            failure = (
                "" if done.returncode == 0 else done.stderr.strip() or f"exit {done.returncode}"
            )
        except (OSError, subprocess.SubprocessError) as exc:
            failure = str(exc)
        if failure:
            self.backend = None
            self._pending = self.notice = (
                f"bubblewrap is installed but cannot start here ({failure[:200]}), so shell "
                "commands run without the OS sandbox"
                if self.config.mode != "required"
                else f"bubblewrap is installed but cannot start here ({failure[:200]}), and "
                'sandbox.mode is "required", so shell commands are refused'
            )

    def confines(self) -> bool:
        self._probe()
        return self.active

    def wrap(self, argv: Sequence[str], tmpdir: Path | None = None) -> list[str]:
        """``argv`` confined (or as it is when the sandbox is off); raises
        ``SandboxUnavailable`` in mode required without a sandbox."""
        self._probe()
        backend = self.backend
        if backend is None:
            if self.config.mode == "required":
                why = self.notice or "no sandbox is available on this machine"
                raise SandboxUnavailable(
                    f"this command was not run: {why}. Use the file tools (read, edit, "
                    "grep, glob, ls) instead, or ask the user to install the sandbox",
                    "sandbox required",
                )
            return list(argv)
        match backend.kind:
            case "bwrap":
                wrapped, created = bwrap_argv(backend.path, self.policy, argv)
                self._created.update(created)
                return wrapped
            case "seatbelt":
                temp = tmpdir if tmpdir is not None else Path(os.environ.get("TMPDIR", "/tmp"))
                return seatbelt_argv(backend.path, self.policy, argv, temp)

    def tidy(self) -> None:
        """Remove the empty mount points bwrap left on the host for protected directories
        that did not exist; one a command's own work filled is kept."""
        for path in list(self._created):
            try:
                os.rmdir(path)  # only an empty directory is removed, never through a link
            except OSError as exc:
                if exc.errno not in _KEPT_OR_GONE:
                    continue  # could not tell: looked at again after the next command
            self._created.discard(path)

    def blocked_by(self, output: str) -> str | None:
        """Why a failed command looks stopped by the sandbox (None when not confined)."""
        return sandbox_failure(output, self.policy) if self.active else None


def open_sandbox(
    cwd: Path,
    config: SandboxConfig,
    *,
    additional: Sequence[Path] = (),
    protected: Sequence[Path] = (),
    backend: Backend | None = None,
    platform: str = sys.platform,
) -> Sandbox:
    """The sandbox of a session in ``cwd`` (``backend`` found on this machine unless
    given). Looks nothing up when the mode is off."""
    policy = build_policy(cwd, additional=additional, protected=protected, config=config)
    if config.mode == "off":
        return Sandbox(config, policy, None)
    found = backend if backend is not None else find_backend(platform)
    if found is not None:
        return Sandbox(config, policy, found)
    if platform.startswith("linux"):
        missing = "bubblewrap (bwrap) is not on PATH"
        fix = f"; to confine them: {linux_install_hint()}"
    elif platform == "darwin":
        missing, fix = "sandbox-exec was not found", ""
    else:
        missing, fix = "this OS has no sandbox earshot can use", ""
    if config.mode == "required":
        why = f'{missing}, and sandbox.mode is "required", so shell commands are refused{fix}'
    else:
        why = (
            f"{missing}, so shell commands run without the OS sandbox (the permission gate "
            f"still checks them){fix}"
        )
    return Sandbox(config, policy, None, notice=why)


if TYPE_CHECKING:
    _conforms: type[ShellSandbox] = Sandbox


__all__ = ["Sandbox", "SandboxUnavailable", "open_sandbox"]
