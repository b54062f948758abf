"""Subagent definitions: the built-in general-purpose agent plus markdown files.

Looked up in ``<config>/agents/*.md`` (user), then ``<project>/.claude/agents/*.md`` and
``<project>/.earshot/agents/*.md`` (a later file with the same name wins). Front matter::

    ---
    name: reviewer                     the name ``task(agent=...)`` uses (else the file name)
    description: Reviews a diff        shown to the model in the task tool's description
    tools: read, grep, glob            only narrows the parent's tools (omitted: all of them)
    disallowedTools: grep              takes tools away from that set
    model: groq/llama-3.3-70b-versatile    any provider's model (omitted: the parent's)
    effort: high                       its reasoning effort (omitted: the parent's)
    ---
    The body is the child's system prompt.

A file that cannot be read is skipped with a warning naming the file, line and field.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from earshot._base.dirs import config_dir
from earshot.core.config.settings import project_root
from earshot.providers.effort import EffortLevel, parse_effort

GENERAL_PURPOSE = "general-purpose"
GENERAL_PROMPT = """\
You are a subagent: another agent delegated one task to you. Work on it with the tools you
have, then reply with a concise report of what you found or did: the facts the other agent
needs, with file paths and line numbers. Your reply is all it sees of your work."""


@dataclass(frozen=True)
class AgentSpec:
    name: str
    description: str
    system: str
    tools: tuple[str, ...] | None = None
    model: str | None = None
    source: str = "built-in"
    effort: EffortLevel | None = None
    disallowed: tuple[str, ...] = ()
    """Tools taken away from the child (``disallowedTools``); names are ours or Claude
    Code's, as in ``tools``."""


BUILTIN_AGENT = AgentSpec(
    name=GENERAL_PURPOSE,
    description="Research and multi-step tasks, with all your tools.",
    system=GENERAL_PROMPT,
)


class AgentFileError(ValueError):
    pass


def _list(text: str) -> tuple[str, ...]:
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    return tuple(item.strip().strip("\"'") for item in text.split(",") if item.strip())


COSMETIC = frozenset({"color"})
"""Front-matter fields of Claude Code's agent files that change nothing a child may do, so a
file brought over unchanged loads; any other unknown field (``permissionMode``: it would
change what the child may do) is refused, never ignored."""
FIELDS = ("name", "description", "tools", "disallowedTools", "model", "effort")
LISTS = ("tools", "disallowedTools")


def parse_agent(text: str, path: Path) -> AgentSpec:
    """One agent file; ``AgentFileError`` names the file, line and field at fault."""
    lines = text.splitlines()
    fields: dict[str, str] = {}
    items: dict[str, list[str]] = {}
    effort: EffortLevel | None = None
    body = text
    if lines and lines[0].strip() == "---":
        key = ""
        for number, line in enumerate(lines[1:], start=2):
            if line.strip() == "---":
                body = "\n".join(lines[number:])
                break
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            if stripped.startswith("- ") and key:
                items.setdefault(key, []).append(stripped[2:].strip().strip("\"'"))
                continue
            if ":" not in stripped:
                raise AgentFileError(f"{path}:{number}: expected 'field: value', got {stripped!r}")
            key, _, value = stripped.partition(":")
            key = key.strip()
            if key in COSMETIC:
                continue
            if key not in FIELDS:
                raise AgentFileError(f"{path}:{number}: field {key!r}: unknown field")
            fields[key] = value.strip().strip("\"'") if key not in LISTS else value.strip()
            if key == "effort" and fields[key]:
                try:
                    effort = parse_effort(fields[key], where=f"{path}:{number}: field 'effort'")
                except ValueError as exc:
                    raise AgentFileError(str(exc)) from exc
        else:
            raise AgentFileError(f"{path}:1: the front matter has no closing '---'")
    tools: tuple[str, ...] | None = None
    if "tools" in fields:
        tools = _list(fields["tools"]) + tuple(items.get("tools", []))
    disallowed = _list(fields.get("disallowedTools", "")) + tuple(items.get("disallowedTools", []))
    name = fields.get("name") or path.stem
    return AgentSpec(
        name=name,
        description=fields.get("description", "") or f"the {name} agent",
        system=body.strip() or GENERAL_PROMPT,
        tools=tools,
        model=fields.get("model") or None,
        source=str(path),
        effort=effort,
        disallowed=disallowed,
    )


def agent_dirs(cwd: Path) -> list[Path]:
    root = project_root(cwd)
    return [config_dir() / "agents", root / ".claude" / "agents", root / ".earshot" / "agents"]


def load_agents(cwd: Path) -> tuple[list[AgentSpec], list[str]]:
    """The agents this session offers (the built-in one first), and warnings for files
    that could not be read."""
    found: dict[str, AgentSpec] = {BUILTIN_AGENT.name: BUILTIN_AGENT}
    warnings: list[str] = []
    for directory in agent_dirs(cwd):
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.md")):
            try:
                spec = parse_agent(path.read_text(encoding="utf-8"), path)
            except (OSError, UnicodeDecodeError, AgentFileError) as exc:
                warnings.append(f"agent file skipped: {exc}")
                continue
            found[spec.name] = spec
    return list(found.values()), warnings


__all__ = [
    "BUILTIN_AGENT",
    "GENERAL_PURPOSE",
    "AgentFileError",
    "AgentSpec",
    "agent_dirs",
    "load_agents",
    "parse_agent",
]
