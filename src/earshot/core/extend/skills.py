"""Skills in the Agent Skills format: a folder with a ``SKILL.md`` whose front matter has
``name`` and ``description``.

::

    discover(cwd) -> (skills, problems)   user then project folders; project wins a name
    prompt_section(skills) -> str         name and description of each, for the system prompt
    skill_tool(skills) -> Tool            returns a skill's body and its folder's other files

Folders searched (user, then project; a later one replaces an earlier skill of that name):
``~/.config/earshot/skills``, ``~/.claude/skills``, ``~/.agents/skills``, and in the
project ``.earshot/skills``, ``.claude/skills``, ``.agents/skills``. A skill with a bad
front matter is reported (path and field) and skipped. A skill grants nothing: the model
runs its scripts with ``bash``, through the gate.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import msgspec

from earshot._base.dirs import config_dir
from earshot.core.config.settings import project_root
from earshot.core.extend.frontmatter import FrontMatterError, Value, parse, text_field
from earshot.core.extend.overrides import TurnOverrides, read_overrides
from earshot.core.tools.base import AnyTool, ToolContext, ToolError, ToolResult, define_tool

NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_FILES = 200
COMPAT = (".claude", ".agents")


class Skill(msgspec.Struct, frozen=True):
    name: str
    description: str
    path: Path
    """The SKILL.md file."""
    body: str
    source: str
    """"user" or "project"."""
    fields: dict[str, Value]
    overrides: TurnOverrides = msgspec.field(default_factory=TurnOverrides)
    """``model``, ``effort``, ``allowed-tools``: for a turn started with ``/<name>``."""

    @property
    def folder(self) -> Path:
        return self.path.parent

    def files(self) -> list[str]:
        """The folder's other files, relative to it (at most ``MAX_FILES``)."""
        found = sorted(
            p.relative_to(self.folder).as_posix()
            for p in self.folder.rglob("*")
            if p.is_file() and p != self.path
        )
        return found[:MAX_FILES]


def skill_roots(cwd: Path, home: Path | None = None) -> list[tuple[str, Path]]:
    home = home if home is not None else Path.home()
    root = project_root(cwd)
    return [
        ("user", config_dir() / "skills"),
        *(("user", home / d / "skills") for d in COMPAT),
        ("project", root / ".earshot" / "skills"),
        *(("project", root / d / "skills") for d in COMPAT),
    ]


def load_skill(path: Path, source: str) -> Skill:
    """One SKILL.md; ``FrontMatterError`` names the path and the field at fault."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise FrontMatterError(f"{path}: cannot read: {exc}") from exc
    doc = parse(text, path)
    name = text_field(doc, "name", path).strip()
    description = text_field(doc, "description", path).strip()
    if not name:
        raise FrontMatterError(f"{path}: front matter field 'name' is required")
    if len(name) > MAX_NAME or not NAME.match(name):
        raise FrontMatterError(
            f"{path}: front matter field 'name' must be lowercase letters, digits and "
            f"hyphens (at most {MAX_NAME}), got {name!r}"
        )
    if not description:
        raise FrontMatterError(f"{path}: front matter field 'description' is required")
    if len(description) > MAX_DESCRIPTION:
        raise FrontMatterError(
            f"{path}: front matter field 'description' is longer than {MAX_DESCRIPTION}"
        )
    # a turn started with /<name> keeps the skill tool: the model loads the skill with it
    overrides = read_overrides(doc, path, f"/{name}", implied=("skill",))
    return Skill(name, description, path, doc.body, source, doc.fields, overrides)


def discover(cwd: Path, home: Path | None = None) -> tuple[list[Skill], list[str]]:
    """The skills found, sorted by name, and one problem line per skipped skill."""
    found: dict[str, Skill] = {}
    problems: list[str] = []
    seen: set[Path] = set()
    for source, root in skill_roots(cwd, home):
        if not root.is_dir() or root.resolve() in seen:
            continue
        seen.add(root.resolve())
        for path in sorted(root.glob("*/SKILL.md")):
            try:
                skill = load_skill(path, source)
            except FrontMatterError as exc:
                problems.append(f"skill skipped: {exc}")
                continue
            found[skill.name] = skill
    return [found[name] for name in sorted(found)], problems


def prompt_section(skills: list[Skill]) -> str:
    """What the system prompt says of the skills: names and descriptions only."""
    if not skills:
        return ""
    rows = "\n".join(f"- {s.name}: {s.description}" for s in skills)
    return (
        "Skills (call the `skill` tool with a name to get its instructions when a task "
        f"matches its description):\n{rows}"
    )


class SkillInput(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    name: Annotated[str, msgspec.Meta(description="The skill's name, as listed")]


def skill_tool(skills: list[Skill]) -> AnyTool:
    by_name = {s.name: s for s in skills}

    async def execute(args: SkillInput, ctx: ToolContext) -> ToolResult:
        skill = by_name.get(args.name.strip())
        if skill is None:
            raise ToolError(
                f"no skill {args.name!r}; the skills are: {', '.join(by_name)}",
                f"no skill {args.name}",
            )
        files = skill.files()
        listing = "\n".join(f"- {skill.folder / f}" for f in files) if files else "(none)"
        text = (
            f"Skill {skill.name} (folder {skill.folder})\n\n{skill.body.rstrip()}\n\n"
            f"Other files in the skill's folder (read them with `read`, run scripts with "
            f"`bash`):\n{listing}"
        )
        return ToolResult.text(text, brief=f"skill {skill.name}")

    return define_tool(
        name="skill",
        description=(
            "Load a skill's instructions by name (the skills are listed in the system "
            "prompt). Returns the instructions and the paths of the skill's other files."
        ),
        input_type=SkillInput,
        execute=execute,
        read_only=True,
        # It reads only the SKILL.md files found at start (the user's own extensions, like
        # AGENTS.md), never a path the model names; the folder's other files are listed,
        # not read: the model reads them with `read`, through the gate.
        touches_files=False,
    )


__all__ = ["Skill", "discover", "load_skill", "prompt_section", "skill_roots", "skill_tool"]
