"""Where commands are confined, and how: the backend of this machine and its argv.

::

    find_backend()       bwrap on PATH (Linux), sandbox-exec (macOS), or None
    install_hint(..)     the command that installs bubblewrap on this distribution
    bwrap_argv(...)      ``argv`` confined by bubblewrap under a ``Policy``
    seatbelt_profile(..) the same policy as a Seatbelt profile for ``sandbox-exec``
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from earshot._base.which import which
from earshot.core.sandbox._policy import Policy

BackendKind = Literal["bwrap", "seatbelt"]


@dataclass(frozen=True)
class Backend:
    kind: BackendKind
    path: str


def find_backend(
    platform: str = sys.platform, which: Callable[[str], str | None] = which
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
    # Every command looks again (a protected file may have appeared since the last one),
    # with one system call a path where it can: this runs before every command.
    for root in policy.writable:
        if os.path.exists(root):
            args += ["--bind", str(root), str(root)]
    created: list[Path] = []
    for path in policy.read_only:
        text = str(path)
        try:
            mode = os.lstat(text).st_mode
        except OSError:
            if path.name in _ALWAYS_PROTECTED_DIRS and os.path.isdir(os.path.dirname(text)):
                args += ["--tmpfs", text, "--remount-ro", text]
                created.append(path)
            continue
        # The policy's paths are real but for their last part, which may be a link.
        real = os.path.realpath(text) if stat.S_ISLNK(mode) else text
        if real == text or os.path.exists(real):
            args += ["--ro-bind", real, text]
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


__all__ = [
    "Backend",
    "BackendKind",
    "bwrap_argv",
    "find_backend",
    "install_hint",
    "linux_install_hint",
    "seatbelt_argv",
    "seatbelt_profile",
]
