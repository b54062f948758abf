"""What a confined command may do, and reading a failure it met.

::

    Policy               what a command may write (the project, additional directories,
                         sandbox.writable, a private /tmp) and what stays read-only inside
                         that (.git/config, .git/hooks, .earshot/, shell start-up files,
                         earshot's own settings); network on or off
    build_policy(..)     a session's policy
    sandbox_failure(..)  why a failed command's output looks like the sandbox stopped it
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

import msgspec

from earshot.core.permissions.rules import SHELL_STARTUP_FILES
from earshot.core.sandbox._config import SandboxConfig, under


class Policy(msgspec.Struct, frozen=True):
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
        if any(under(real, root) for root in writable):
            read_only.append(real)
    return Policy(
        cwd=real_cwd,
        writable=writable,
        read_only=tuple(dict.fromkeys(read_only)),
        network=config.network,
    )


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
    if any(under(path, p) for p in policy.read_only):
        return True
    return not any(under(path, root) for root in policy.writable) and not under(path, Path("/tmp"))


__all__ = ["Policy", "build_policy", "sandbox_failure"]
