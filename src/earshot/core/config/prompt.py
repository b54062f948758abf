"""The system prompt: short and specific. What the model needs to act well here and
nothing it would do anyway."""

from __future__ import annotations

import datetime as _dt
import os
import subprocess
import sys
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


def git_summary(cwd: Path, *, timeout: float = 2.0) -> str | None:
    """One line on the repository state, or None outside a git work tree."""
    try:
        done = subprocess.run(
            ["git", "status", "--porcelain=v1", "--branch"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    lines = done.stdout.splitlines()
    branch = lines[0].removeprefix("## ") if lines and lines[0].startswith("## ") else "?"
    changed = len(lines) - (1 if lines and lines[0].startswith("## ") else 0)
    return f"git: {branch}; {changed} changed file(s)" if changed else f"git: {branch}; clean"


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


__all__ = ["estimate_tokens", "git_summary", "system_prompt"]
