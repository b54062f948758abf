"""Slash commands written as markdown files.

::

    discover(cwd) -> (commands, problems)   user then project; project wins a name
    expand(command, arguments, cwd, gate) -> str     the prompt the command sends

``~/.config/earshot/commands/**/*.md``, ``~/.claude/commands/``, then the project's
``.earshot/commands/`` and ``.claude/commands/``; ``frontend/component.md`` is
``/frontend:component``. Front matter: ``description``, ``argument-hint``, ``model`` (that
turn only), ``effort`` (that turn's reasoning effort), ``allowed-tools`` (narrows that
turn's tools and the ``!`cmd``` lines; it never grants: ``allowed.py``). The body takes
``$ARGUMENTS`` and ``$1``..``$9``; ``@path`` includes a file the gate lets the session
read; ``!`cmd``` inlines a command's output when the gate allows it outright (a command
that would need asking or is denied makes the command fail: it never gets past the gate).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from earshot._base.dirs import config_dir
from earshot._base.errors import UserError
from earshot.core.config.settings import project_root
from earshot.core.extend.frontmatter import FrontMatterError, parse, text_field
from earshot.core.extend.overrides import TurnOverrides, read_overrides
from earshot.core.tools.base import PermissionRequest

if TYPE_CHECKING:
    from earshot.core.loop.ports import Gate

SHELL_TIMEOUT = 30.0
MAX_INCLUDE = 100_000
_POSITIONAL = re.compile(r"\$([1-9])")
_INCLUDE = re.compile(r"(?<![\w`])@([\w./~-][\w./~-]*[\w/-])")
_BANG = re.compile(r"!`([^`\n]+)`")


class ExpandError(UserError):
    """A command's body could not be expanded (a refused ``!`cmd``` or ``@path``)."""


class MdCommand(msgspec.Struct, frozen=True):
    name: str
    about: str
    hint: str
    overrides: TurnOverrides
    """Its turn's ``model``, ``effort`` and ``allowed-tools``."""
    body: str
    path: Path
    source: str
    """"user" or "project"."""


def command_roots(cwd: Path, home: Path | None = None) -> list[tuple[str, Path]]:
    home = home if home is not None else Path.home()
    root = project_root(cwd)
    return [
        ("user", config_dir() / "commands"),
        ("user", home / ".claude" / "commands"),
        ("project", root / ".earshot" / "commands"),
        ("project", root / ".claude" / "commands"),
    ]


def load_command(path: Path, base: Path, source: str) -> MdCommand:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise FrontMatterError(f"{path}: cannot read: {exc}") from exc
    doc = parse(text, path)
    name = ":".join(path.relative_to(base).with_suffix("").parts)
    about = text_field(doc, "description", path).strip()
    if not about:
        first = next((line for line in doc.body.splitlines() if line.strip()), "")
        about = first.strip().lstrip("#").strip()[:80]
    return MdCommand(
        name=name,
        about=about,
        hint=text_field(doc, "argument-hint", path).strip(),
        overrides=read_overrides(doc, path, f"/{name}"),
        body=doc.body,
        path=path,
        source=source,
    )


def discover(cwd: Path, home: Path | None = None) -> tuple[list[MdCommand], list[str]]:
    """The commands found, sorted by name; one problem line per file skipped."""
    found: dict[str, MdCommand] = {}
    problems: list[str] = []
    seen: set[Path] = set()
    for source, root in command_roots(cwd, home):
        if not root.is_dir() or root.resolve() in seen:
            continue
        seen.add(root.resolve())
        for path in sorted(root.rglob("*.md")):
            try:
                command = load_command(path, root, source)
            except FrontMatterError as exc:
                problems.append(f"command skipped: {exc}")
                continue
            found[command.name] = command
    return [found[name] for name in sorted(found)], problems


def _include(match: re.Match[str], cwd: Path, gate: Gate) -> str:
    raw = match.group(1)
    path = Path(raw).expanduser()
    path = path if path.is_absolute() else cwd / path
    if not path.is_file():
        return match.group(0)
    request = PermissionRequest(tool="read", kind="read", paths=(path,), detail=str(path))
    decision = gate.check(request, read_only=True)
    if decision.outcome != "allow":
        raise ExpandError(f"@{raw}: reading it is not allowed here ({decision.reason})")
    try:
        text = path.read_text(encoding="utf-8", errors="replace")[:MAX_INCLUDE]
    except OSError as exc:
        raise ExpandError(f"@{raw}: cannot read: {exc}") from exc
    return f'\n<file path="{raw}">\n{text.rstrip()}\n</file>\n'


def _shell(match: re.Match[str], cwd: Path, gate: Gate) -> str:
    line = match.group(1).strip()
    request = PermissionRequest(tool="bash", kind="execute", command=line, detail=line)
    decision = gate.check(request, read_only=False)
    if decision.outcome != "allow":
        raise ExpandError(
            f"!`{line}`: the permission gate says {decision.outcome} ({decision.reason}); "
            "a command file's commands run only when an allow rule or the mode allows them"
        )
    from earshot.core.tools._shell import child_env  # the shell machinery, when first needed

    try:
        done = subprocess.run(
            ["bash", "-c", line],
            cwd=cwd,
            env=child_env(),
            capture_output=True,
            text=True,
            timeout=SHELL_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ExpandError(f"!`{line}`: {exc}") from exc
    return (done.stdout + done.stderr).rstrip()


def expand(command: MdCommand, arguments: str, cwd: Path, gate: Gate) -> str:
    """The prompt ``command`` sends for ``arguments``. Its ``!`cmd``` lines go through
    ``gate`` behind the command's ``allowed-tools``; its ``@path`` reads through ``gate``."""
    allowed = command.overrides.allowed
    narrowed = allowed.gate(gate, cwd) if allowed is not None else gate
    import shlex  # loaded when a command is first expanded

    try:
        words = shlex.split(arguments)
    except ValueError:
        words = arguments.split()
    body = command.body
    used = "$ARGUMENTS" in body or bool(_POSITIONAL.search(body))
    body = body.replace("$ARGUMENTS", arguments)
    body = _POSITIONAL.sub(
        lambda m: words[int(m.group(1)) - 1] if int(m.group(1)) <= len(words) else "", body
    )
    body = _BANG.sub(lambda m: _shell(m, cwd, narrowed), body)
    body = _INCLUDE.sub(lambda m: _include(m, cwd, gate), body)
    if arguments and not used:
        body = body.rstrip() + f"\n\nARGUMENTS: {arguments}"
    return body.strip()


__all__ = ["ExpandError", "MdCommand", "command_roots", "discover", "expand", "load_command"]
