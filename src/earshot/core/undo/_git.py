"""Running git for undo: a scrubbed environment, the user's repository read without locks,
and a cross-process lock on our object store.

Every git process earshot starts for undo gets an environment with no inherited ``GIT_*``
variable (a hook or a parent tool may have set ``GIT_DIR`` or ``GIT_INDEX_FILE``), literal
pathspecs, no terminal prompts and no optional locks. Calls that point at the user's
repository only read it (``rev-parse``, ``ls-files``).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import msgspec


class GitError(Exception):
    """A git command failed; ``str()`` holds the command and git's message."""


def scrubbed_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_LITERAL_PATHSPECS="1",
        GIT_TERMINAL_PROMPT="0",
        GIT_OPTIONAL_LOCKS="0",
        GIT_AUTHOR_NAME="earshot",
        GIT_AUTHOR_EMAIL="undo@earshot.invalid",
        GIT_COMMITTER_NAME="earshot",
        GIT_COMMITTER_EMAIL="undo@earshot.invalid",
        LC_ALL="C",
    )
    if extra:
        env.update(extra)
    return env


def run_git(
    git: str,
    args: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdin: bytes | None = None,
    ok: tuple[int, ...] = (0,),
) -> bytes:
    """Run ``git args`` and return its stdout; ``GitError`` for an exit status not in
    ``ok``."""
    proc = subprocess.run(
        [git, *args],
        cwd=cwd,
        env=dict(env),
        input=stdin if stdin is not None else b"",
        capture_output=True,
        check=False,
    )
    return _checked(args, proc.returncode, proc.stdout, proc.stderr, ok)


def _checked(args: list[str], code: int, out: bytes, err: bytes, ok: tuple[int, ...]) -> bytes:
    if code not in ok:
        message = err.decode("utf-8", "replace").strip()
        raise GitError(f"git {' '.join(args[:3])} failed ({code}): {message}")
    return out


def start_git(
    git: str, args: list[str], *, cwd: Path, env: Mapping[str, str]
) -> Callable[[], bytes]:
    """Start ``git args`` (no stdin) and return a call that waits for it: its stdout, or
    ``GitError`` as ``run_git`` raises it. Lets two git processes run side by side."""
    proc = subprocess.Popen(
        [git, *args],
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )

    def wait() -> bytes:
        out, err = proc.communicate()
        return _checked(args, proc.returncode, out, err, (0,))

    return wait


class UserRepo(msgspec.Struct, frozen=True):
    """The user's repository around the working directory (read, never written)."""

    toplevel: Path
    common_dir: Path


def find_user_repo(git: str, cwd: Path) -> UserRepo | None:
    """The repository ``cwd`` is in, or None (not in one, or in a bare one)."""
    try:
        out = run_git(
            git,
            ["rev-parse", "--show-toplevel", "--git-common-dir"],
            cwd=cwd,
            env=scrubbed_env(),
        )
    except (GitError, OSError):
        return None
    lines = out.decode("utf-8", "surrogateescape").splitlines()
    if len(lines) != 2 or not lines[0]:
        return None
    common = Path(lines[1])
    return UserRepo(
        toplevel=Path(lines[0]), common_dir=common if common.is_absolute() else cwd / common
    )


@contextlib.contextmanager
def store_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created if missing), waiting for it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if sys.platform == "win32":
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_LOCK, 1)
        else:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


__all__ = [
    "GitError",
    "UserRepo",
    "find_user_repo",
    "run_git",
    "scrubbed_env",
    "start_git",
    "store_lock",
]
