"""The system prompt: short and specific. What the model needs to act well here and
nothing it would do anyway."""

from __future__ import annotations

import datetime as _dt
import os
import subprocess
import sys
import time
from pathlib import Path

_CONVENTIONS = """\
You are earshot, a coding agent working in the user's repository through tools.
- Read a file before you edit it; make the smallest change that does the job, in the \
style of the surrounding code.
- Prefer the dedicated tools (read, edit, grep, glob, ls) over shell equivalents; use bash \
to build, test and run.
- Verify your work with the project's own tests or checks before you say it is done; if \
you could not verify, say so.
- Do what was asked, no more; ask when a request is ambiguous and you can ask.
- Be brief: report what you changed and what you found, with file paths."""


def os_name() -> str:
    """The OS and its release, without importing ``platform`` (10 ms)."""
    if sys.platform == "win32":
        version = sys.getwindowsversion()
        return f"Windows {version.major}.{version.minor}.{version.build}"
    uname = os.uname()
    return f"{'macOS' if uname.sysname == 'Darwin' else uname.sysname} {uname.release}"


class GitSummary:
    """``git status`` started now and read later (``result``), so the session goes on
    opening while git walks the tree: one line on the repository state, or None outside a
    git work tree (or when git is missing, fails or takes longer than ``timeout``)."""

    def __init__(self, cwd: Path, *, timeout: float = 2.0) -> None:
        self._deadline = time.monotonic() + timeout
        try:
            self._process: subprocess.Popen[str] | None = subprocess.Popen(
                ["git", "status", "--porcelain=v1", "--branch"],
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
        except (OSError, subprocess.SubprocessError):
            self._process = None

    def result(self) -> str | None:
        process, self._process = self._process, None
        if process is None:
            return None
        try:
            out, _ = process.communicate(timeout=max(0.0, self._deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _stop(process)
            return None
        if process.returncode != 0:
            return None
        lines = out.splitlines()
        branch = lines[0].removeprefix("## ") if lines and lines[0].startswith("## ") else "?"
        changed = len(lines) - (1 if lines and lines[0].startswith("## ") else 0)
        return f"git: {branch}; {changed} changed file(s)" if changed else f"git: {branch}; clean"

    def cancel(self) -> None:
        """Stop git if its answer is no longer wanted (the session failed to open)."""
        process, self._process = self._process, None
        if process is not None:
            _stop(process)


def _stop(process: subprocess.Popen[str]) -> None:
    process.kill()
    process.communicate()


_started: dict[Path, GitSummary] = {}


def start_git_summary(cwd: Path) -> None:
    """Start ``git status`` for a session about to open in ``cwd`` (resolved), before the
    modules that open it are even loaded; ``take_git_summary`` hands it to the opening."""
    if cwd not in _started:
        _started[cwd] = GitSummary(cwd)


def take_git_summary(cwd: Path) -> GitSummary:
    """The ``git status`` started for ``cwd`` (resolved), or one started now."""
    return _started.pop(cwd, None) or GitSummary(cwd)


def git_summary(cwd: Path, *, timeout: float = 2.0) -> str | None:
    """One line on the repository state, or None outside a git work tree."""
    return GitSummary(cwd, timeout=timeout).result()


def system_prompt(
    *,
    cwd: Path,
    today: _dt.date | None = None,
    git: str | None = None,
    memory: str = "",
    skills: str = "",
    append: str = "",
) -> str:
    date = (today or _dt.date.today()).isoformat()
    env = [
        f"Working directory: {cwd}",
        f"OS: {os_name()}",
        f"Date: {date}",
    ]
    if git:
        env.append(git)
    sections = [_CONVENTIONS, "\n".join(env)]
    if memory.strip():
        sections.append(memory.strip())
    if skills.strip():
        sections.append(skills.strip())
    if append.strip():
        sections.append(append.strip())
    return "\n\n".join(sections) + "\n"


def estimate_tokens(text: str) -> int:
    """A rough token count (about four characters a token)."""
    return (len(text) + 3) // 4


__all__ = [
    "GitSummary",
    "estimate_tokens",
    "git_summary",
    "start_git_summary",
    "system_prompt",
    "take_git_summary",
]
