"""The OS sandbox every shell command runs in, where the OS has one.

::

    SandboxConfig        mode (auto | required | off), network, extra writable paths, from
                         the ``sandbox`` key of the settings files (load_sandbox_config)
    find_backend()       bwrap on PATH (Linux), sandbox-exec (macOS), or None
    Policy               what a command may write (the project, additional directories,
                         sandbox.writable, a private /tmp) and what stays read-only inside
                         that (.git/config, .git/hooks, .earshot/, shell start-up files,
                         earshot's own settings); network on or off
    bwrap_argv(...)      ``argv`` confined by bubblewrap
    seatbelt_profile(..) the same policy as a Seatbelt profile for ``sandbox-exec``
    Sandbox              a session's sandbox: ``wrap(argv)`` and ``blocked_by(output)``
    sandbox_failure(..)  why a failed command's output looks like the sandbox stopped it

The gate reads command lines; the sandbox confines what the programs they start do. It never
widens the gate: a command is checked by the gate first and confined second. ``mode: off``
(or ``--sandbox off``) is the only way to run commands unconfined; ``required`` refuses to run
them when no sandbox is available; ``auto`` confines where it can and says once where it
cannot. A checked-in project settings file may only tighten: it can require the sandbox, but
not turn it off, open the network or add writable paths.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from earshot.core.config.settings import SettingsError, SettingsFile
from earshot.core.permissions.rules import SHELL_STARTUP_FILES
from earshot.core.tools.base import ToolError
from earshot.core.tools.state import ShellSandbox
from earshot.providers.types import JSONValue

SandboxMode = Literal["auto", "required", "off"]
SANDBOX_MODES: tuple[SandboxMode, ...] = ("auto", "required", "off")
BackendKind = Literal["bwrap", "seatbelt"]


class SandboxUnavailable(ToolError):
    """``sandbox.mode`` is ``required`` and this machine has no sandbox to run commands in."""


@dataclass(frozen=True)
class SandboxConfig:
    """``ignored`` holds one message per setting a checked-in file may not make."""

    mode: SandboxMode = "auto"
    network: bool = False
    writable: tuple[Path, ...] = ()
    ignored: tuple[str, ...] = ()


def parse_mode(text: str) -> SandboxMode:
    for mode in SANDBOX_MODES:
        if text == mode:
            return mode
    raise ValueError(f"unknown sandbox mode {text!r}; use one of: {', '.join(SANDBOX_MODES)}")


def _fail(path: Path, where: str, message: str) -> SettingsError:
    return SettingsError(f"{path}: {where}: {message}")


def _under(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def load_sandbox_config(
    files: Iterable[SettingsFile], project: Path, *, mode: SandboxMode | None = None
) -> SandboxConfig:
    """The ``sandbox`` settings of ``files`` (in scope order, later wins), then ``mode`` (the
    ``--sandbox`` flag) over them. The project scope may only tighten: what it may not set is
    left out and named in ``ignored``."""
    config_mode: SandboxMode = "auto"
    network = False
    writable: list[Path] = []
    ignored: list[str] = []
    for source in files:
        raw: JSONValue = source.data.get("sandbox")
        if raw is None:
            continue
        path = source.path
        if not isinstance(raw, dict):
            raise _fail(path, '"sandbox"', 'must be an object such as {"mode": "auto"}')
        checked_in = source.scope == "project"
        for key in raw:
            if key not in ("mode", "network", "writable"):
                raise _fail(
                    path, f'"sandbox.{key}"', "is not a sandbox setting (mode, network, writable)"
                )
        if "mode" in raw:
            value = raw["mode"]
            if not isinstance(value, str) or value not in SANDBOX_MODES:
                raise _fail(path, '"sandbox.mode"', 'must be "auto", "required" or "off"')
            chosen = parse_mode(value)
            if checked_in and chosen == "off":
                ignored.append(
                    f'{path}: "sandbox.mode": "off" ignored: a checked-in file cannot turn the '
                    "sandbox off (use your user or local settings, or --sandbox off)"
                )
            else:
                config_mode = chosen
        if "network" in raw:
            value = raw["network"]
            if not isinstance(value, bool):
                raise _fail(
                    path,
                    '"sandbox.network"',
                    "must be true or false (earshot cannot limit the network to some hosts)",
                )
            if checked_in and value:
                ignored.append(
                    f'{path}: "sandbox.network": true ignored: a checked-in file cannot open '
                    "the network to commands"
                )
            else:
                network = value
        if "writable" in raw:
            value = raw["writable"]
            if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value):
                raise _fail(
                    path, '"sandbox.writable"', 'must be a list of paths, e.g. ["~/.cache"]'
                )
            base = project if source.scope != "user" else Path.home()
            for item in value:
                assert isinstance(item, str)
                extra = Path(os.path.expanduser(item))
                extra = extra if extra.is_absolute() else base / extra
                extra = Path(os.path.realpath(extra))
                if checked_in and not _under(extra, Path(os.path.realpath(project))):
                    ignored.append(
                        f'{path}: "sandbox.writable": {item!r} ignored: a checked-in file cannot '
                        "make paths outside the project writable"
                    )
                    continue
                writable.append(extra)
    return SandboxConfig(
        mode=mode if mode is not None else config_mode,
        network=network,
        writable=tuple(dict.fromkeys(writable)),
        ignored=tuple(ignored),
    )


# --- the backend -----------------------------------------------------------------------


@dataclass(frozen=True)
class Backend:
    kind: BackendKind
    path: str


def find_backend(
    platform: str = sys.platform, which: Callable[[str], str | None] = shutil.which
) -> Backend | None:
    """``bwrap`` found on PATH on Linux (so a user may provide their own build),
    ``sandbox-exec`` on macOS; None elsewhere (Windows has no sandbox)."""
    if platform.startswith("linux"):
        found = which("bwrap")
        return Backend("bwrap", found) if found else None
    if platform == "darwin":
        found = which("sandbox-exec") or (
            "/usr/bin/sandbox-exec" if os.path.exists("/usr/bin/sandbox-exec") else None
        )
        return Backend("seatbelt", found) if found else None
    return None


_INSTALL = {
    "debian": "sudo apt install bubblewrap",
    "ubuntu": "sudo apt install bubblewrap",
    "fedora": "sudo dnf install bubblewrap",
    "rhel": "sudo dnf install bubblewrap",
    "centos": "sudo dnf install bubblewrap",
    "arch": "sudo pacman -S bubblewrap",
    "opensuse": "sudo zypper install bubblewrap",
    "suse": "sudo zypper install bubblewrap",
    "alpine": "sudo apk add bubblewrap",
    "gentoo": "sudo emerge sys-apps/bubblewrap",
    "nixos": "nix-env -iA nixpkgs.bubblewrap",
}


def install_hint(os_release: str) -> str:
    """The command that installs bubblewrap on the distribution ``/etc/os-release`` names
    (its ``ID``, then each ``ID_LIKE``); a generic pointer when it is not known."""
    ids: list[str] = []
    for line in os_release.splitlines():
        key, _, value = line.partition("=")
        if key in ("ID", "ID_LIKE"):
            ids.extend(value.strip().strip('"').split())
    for found in ids:
        for name, command in _INSTALL.items():
            if found == name or found.startswith(name):
                return command
    return "install bubblewrap (bwrap) with your distribution's package manager"


def linux_install_hint() -> str:
    try:
        text = Path("/etc/os-release").read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    return install_hint(text)


# --- the policy ------------------------------------------------------------------------


@dataclass(frozen=True)
class Policy:
    """``writable`` are real paths; ``read_only`` are paths inside them that stay read-only
    (each may not exist yet); ``cwd`` is where the command starts."""

    cwd: Path
    writable: tuple[Path, ...]
    read_only: tuple[Path, ...]
    network: bool


def _git_dirs(start: Path) -> tuple[Path, ...]:
    """The git directories of the repository holding ``start``: its ``.git`` directory, or
    for a linked worktree its private directory and the common one."""
    for directory in (start, *start.parents):
        dot = directory / ".git"
        if dot.is_dir():
            return (dot,)
        if dot.is_file():
            try:
                text = dot.read_text(encoding="utf-8", errors="replace")
            except OSError:
                return ()
            match = re.match(r"gitdir:\s*(.+)", text.strip())
            if not match:
                return ()
            private = Path(os.path.realpath(directory / match.group(1).strip()))
            found = [private]
            common_file = private / "commondir"
            if common_file.is_file():
                common = common_file.read_text(encoding="utf-8").strip()
                found.append(Path(os.path.realpath(private / common)))
            return tuple(found)
    return ()


def build_policy(
    cwd: Path,
    *,
    additional: Sequence[Path] = (),
    protected: Sequence[Path] = (),
    config: SandboxConfig,
) -> Policy:
    """The policy of a session in ``cwd``: the cwd, the repository's git directory (so git
    can commit), the additional directories and ``sandbox.writable`` are writable; inside
    them ``.git/config``, ``.git/hooks``, ``.earshot/``, shell start-up files and
    ``protected`` (earshot's own settings) stay read-only."""
    real_cwd = Path(os.path.realpath(cwd))
    git = _git_dirs(real_cwd)
    roots = [real_cwd, *git]
    roots += [Path(os.path.realpath(p)) for p in (*additional, *config.writable)]
    writable = tuple(dict.fromkeys(roots))
    read_only: list[Path] = []
    for git_dir in git:
        read_only += [git_dir / "config", git_dir / "config.worktree", git_dir / "hooks"]
    for root in writable:
        if root in git:
            continue
        read_only.append(root / ".earshot")
        read_only += [root / name for name in sorted(SHELL_STARTUP_FILES)]
    for path in protected:
        real = Path(os.path.realpath(path))
        if any(_under(real, root) for root in writable):
            read_only.append(real)
    return Policy(
        cwd=real_cwd,
        writable=writable,
        read_only=tuple(dict.fromkeys(read_only)),
        network=config.network,
    )


_ALWAYS_PROTECTED_DIRS = (".earshot", "hooks")
"""Protected paths that must stay unwritable even before they exist (creating them would
change what earshot trusts or runs); other protected paths are protected when they exist."""


def bwrap_argv(bwrap: str, policy: Policy, argv: Sequence[str]) -> tuple[list[str], list[Path]]:
    """``argv`` run by bubblewrap under ``policy``, and the mount points bwrap will create
    on the host for protected directories that do not exist yet (empty directories; remove
    them after the command with ``tidy``).

    The whole file system is mounted read-only, then ``/dev``, ``/proc`` and a private
    ``/tmp`` are fresh, then each writable root is bound read-write over that, then each
    protected path read-only over its root. The command gets its own PID namespace (it
    cannot signal earshot or other processes of the user), no network unless the policy
    allows it, and dies with earshot."""
    args = [
        bwrap,
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--die-with-parent",
        "--unshare-pid",
    ]
    if not policy.network:
        args.append("--unshare-net")
    for root in policy.writable:
        if root.exists():
            args += ["--bind", str(root), str(root)]
    created: list[Path] = []
    for path in policy.read_only:
        if path.exists() or path.is_symlink():
            real = Path(os.path.realpath(path))
            if real.exists():
                args += ["--ro-bind", str(real), str(path)]
        elif path.name in _ALWAYS_PROTECTED_DIRS and path.parent.is_dir():
            args += ["--tmpfs", str(path), "--remount-ro", str(path)]
            created.append(path)
    args += ["--chdir", str(policy.cwd), "--", *argv]
    return args, created


def _sbpl(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def seatbelt_profile(policy: Policy, tmpdir: Path) -> str:
    """The policy as a Seatbelt profile for ``sandbox-exec -p``. Later rules win in
    Seatbelt, so the order is: allow everything, deny writes, allow writes under the
    writable roots (and ``tmpdir``, the command's private temporary directory, and the
    null and terminal devices), deny writes to the protected paths, deny the network."""
    lines = ["(version 1)", "(allow default)", "(deny file-write*)"]
    allowed = [f"(subpath {_sbpl(str(root))})" for root in (*policy.writable, tmpdir)]
    allowed += [
        '(literal "/dev/null")',
        '(literal "/dev/zero")',
        '(literal "/dev/stdout")',
        '(literal "/dev/stderr")',
        '(regex #"^/dev/tty")',
        '(regex #"^/dev/fd/")',
    ]
    lines.append("(allow file-write* " + " ".join(allowed) + ")")
    protected = [
        f"(subpath {_sbpl(str(path))})" if path.suffix == "" else f"(literal {_sbpl(str(path))})"
        for path in policy.read_only
    ]
    if protected:
        lines.append("(deny file-write* " + " ".join(protected) + ")")
    if not policy.network:
        lines.append("(deny network*)")
        lines.append('(allow network* (remote unix-socket (path-regex #"^/private/var/run/")))')
    return "\n".join(lines) + "\n"


def seatbelt_argv(
    sandbox_exec: str, policy: Policy, argv: Sequence[str], tmpdir: Path
) -> list[str]:
    return [sandbox_exec, "-p", seatbelt_profile(policy, tmpdir), *argv]


# --- reading a failure -----------------------------------------------------------------

_NETWORK_SIGNS = (
    "temporary failure in name resolution",
    "could not resolve host",
    "name or service not known",
    "network is unreachable",
    "nodename nor servname provided",
    "getaddrinfo enotfound",
    "getaddrinfo eai_again",
    "failed to establish a new connection",
    "could not resolve hostname",
)
_PATH_IN_LINE = re.compile(r"""(?:^|[\s'"`‘(])(/[^\s'"`‘’:]+)""")


def sandbox_failure(output: str, policy: Policy) -> str | None:
    """Why ``output`` of a failed command looks like the sandbox stopped it, or None: a
    read-only file system (EROFS), permission denied on a path the policy keeps read-only,
    or a name lookup or connection failing with the network off."""
    lowered = output.lower()
    if "read-only file system" in lowered:
        return "it tried to write where the sandbox allows no writes (read-only file system)"
    for line in output.splitlines():
        if "permission denied" not in line.lower():
            continue
        for found in _PATH_IN_LINE.findall(line):
            path = Path(found.rstrip(".,;:)"))
            if _blocked_path(path, policy):
                return f"it tried to write {path}, which the sandbox keeps read-only"
    if not policy.network:
        for sign in _NETWORK_SIGNS:
            if sign in lowered:
                return "it tried to reach the network, which the sandbox turns off"
    return None


def _blocked_path(path: Path, policy: Policy) -> bool:
    if any(_under(path, p) for p in policy.read_only):
        return True
    return not any(_under(path, root) for root in policy.writable) and not _under(
        path, Path("/tmp")
    )


# --- a session's sandbox ---------------------------------------------------------------


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
                if path.is_dir() and not path.is_symlink() and not any(path.iterdir()):
                    path.rmdir()
            except OSError:
                continue
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

__all__ = [
    "SANDBOX_MODES",
    "Backend",
    "Policy",
    "Sandbox",
    "SandboxConfig",
    "SandboxMode",
    "SandboxUnavailable",
    "build_policy",
    "bwrap_argv",
    "find_backend",
    "install_hint",
    "load_sandbox_config",
    "open_sandbox",
    "parse_mode",
    "sandbox_failure",
    "seatbelt_profile",
]
