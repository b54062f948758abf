"""Permission rules from the settings files and the command line.

::

    settings.json   {"permissions": {"defaultMode": "ask",
                                     "allow": [RULE, ...], "ask": [...], "deny": [...],
                                     "additionalDirectories": ["../shared", "~/notes"]}}
    RULE            "Tool" | "Tool(specifier)"
                    | {"rule": "Tool(specifier)", "match": [...], "not_match": [...]}

Rules from every scope are concatenated in the order user, project, local, cli: a later
scope adds rules and never removes one (a project's deny cannot be lifted by anyone). Only
``defaultMode`` is a scalar that a later scope overrides. A rule earshot cannot read, and a
rule whose examples disagree with it, is a ``SettingsError`` naming the file and the rule.

A checked-in file (``.earshot/settings.json``, or a ``settings.local.json`` that git tracks)
arrives with ``git clone``, so it can only narrow: its ``deny`` and ``ask`` rules count, and
``defaultMode`` ``plan`` or ``ask``. Its ``allow`` rules, any other ``defaultMode`` and
``additionalDirectories`` outside the project are ignored, each with a notice in
``RuleSet.notices`` naming the file and key (they are still checked, so a typo is an error).

Rule tools and the earshot tools they cover::

    Bash      bash, kill_shell          Bash(npm run *), Bash(npm run:*) (legacy), Bash
    Read      read, ls, glob, grep      Read(./.env), Read(~/.ssh/**), Read(*.pem)
    Edit      edit, multi_edit, write   Edit(src/**)  (Edit rules cover write too)
    Write     write                     Write(/abs/path/**)
    WebFetch  web_fetch                 WebFetch(domain:example.com), (domain:*.example.com)
    mcp__server__tool, mcp__server__*, mcp__server    tools of MCP servers

Path specifiers: ``/...`` (or ``//...``) is absolute, ``~/...`` is in the home directory; a
relative glob containing ``/`` (``./.env``, ``src/**``) is anchored at the project root of
the settings file, or at the working directory for user settings and command-line rules; a
glob with no ``/`` (``.env``, ``*.pem``) matches that name at any depth.
"""

from __future__ import annotations

import ipaddress
import os
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, get_args
from urllib.parse import urlsplit

import msgspec

from earshot._base.dirs import config_dir
from earshot.core.config.settings import Settings, SettingsError
from earshot.core.config.settings import git_tracked as _tracked
from earshot.core.permissions import match as m
from earshot.core.permissions.hosts import canonical_host, host_pattern
from earshot.providers.types import JSONValue

SHELL_STARTUP_FILES = frozenset(
    {
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".profile",
        ".zshrc",
        ".zshenv",
        ".zprofile",
        ".zlogin",
        ".zlogout",
        ".kshrc",
        ".cshrc",
        ".tcshrc",
        ".login",
        "config.fish",
    }
)
PROTECTED_NAMES = frozenset({".earshot", ".git"})
"""What no mode writes without asking (``decide``), and the OS sandbox keeps read-only."""

Mode = Literal["plan", "ask", "accept-edits", "auto", "yolo"]
MODES: tuple[Mode, ...] = get_args(Mode)
ACTIONS: tuple[m.Action, ...] = ("deny", "ask", "allow")

FAMILIES: dict[str, tuple[str, ...]] = {
    "Bash": ("bash", "kill_shell"),
    "Read": ("read", "ls", "glob", "grep"),
    "Edit": ("edit", "multi_edit", "write"),
    "Write": ("write",),
    "WebFetch": ("web_fetch",),
}
"""Which earshot tools each rule tool covers."""

MCP = "mcp"
_PERMISSION_KEYS = frozenset({"defaultMode", "allow", "ask", "deny", "additionalDirectories"})
_RULE = re.compile(r"([A-Za-z][A-Za-z0-9_*-]*)(?:\((.*)\))?", re.DOTALL)
_MCP_RULE = re.compile(r"mcp__[A-Za-z0-9_-]+?(?:__[A-Za-z0-9_*.-]+)?")
_GLOBBY = re.compile(r"[*?\[]")
_HOST = re.compile(r"(?:\*\.)?[A-Za-z0-9*_-]+(?:\.[A-Za-z0-9*_-]+)*\.?")


def parse_mode(value: str) -> Mode:
    for mode in MODES:
        if value == mode:
            return mode
    raise ValueError(f"unknown permission mode {value!r}; use one of {', '.join(MODES)}")


@dataclass(frozen=True)
class RuleSet:
    """Every rule in force, in scope order, with the settings that come with them.

    ``protected_directories`` are earshot's own user settings, hooks and skills: writes
    there prompt in every mode but yolo, as do ``.earshot/`` and ``.git/`` anywhere.
    """

    rules: tuple[m.Rule, ...] = ()
    default_mode: Mode = "ask"
    default_mode_source: str | None = None
    additional_directories: tuple[Path, ...] = ()
    protected_directories: tuple[Path, ...] = ()
    notices: tuple[str, ...] = ()
    """What was ignored and why: settings a checked-in file may not choose."""
    _index: dict[tuple[str, str], tuple[m.Rule, ...]] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        index: dict[tuple[str, str], list[m.Rule]] = {}
        for rule in self.rules:
            for tool in FAMILIES.get(rule.tool, (rule.tool,)):
                index.setdefault((rule.action, tool), []).append(rule)
        object.__setattr__(self, "_index", {key: tuple(rules) for key, rules in index.items()})

    def select(self, action: m.Action, tool: str) -> tuple[m.Rule, ...]:
        """The ``action`` rules that cover earshot tool ``tool`` (``mcp`` for MCP tools)."""
        return self._index.get((action, tool), ())

    def with_rules(self, extra: Sequence[m.Rule]) -> RuleSet:
        return replace(self, rules=(*self.rules, *extra))


def parse_rule(
    text: str, action: m.Action, *, scope: str, source: str, base: Path | None
) -> m.Rule:
    """One rule; ``ValueError`` saying what is wrong and how to write it instead.

    ``base`` anchors relative path globs (a project root); None anchors them at the working
    directory when they are matched.
    """
    found = _RULE.fullmatch(text.strip())
    if found is None:
        raise ValueError('write a rule as Tool or Tool(specifier), for example "Bash(git log *)"')
    tool, spec = found.group(1), found.group(2)
    make = _RuleMaker(text.strip(), action, scope, source)
    if tool.startswith("mcp__"):
        if spec is not None or _MCP_RULE.fullmatch(tool) is None:
            raise ValueError(
                "an MCP rule is mcp__server, mcp__server__tool or mcp__server__* with no specifier"
            )
        server_wide = tool.count("__") == 1
        return make(MCP, "mcp", pattern=tool + "__*" if server_wide else tool)
    if tool not in FAMILIES:
        known = ", ".join([*FAMILIES, "mcp__server__tool"])
        raise ValueError(f"unknown tool {tool!r}; rules name one of {known}")
    if spec is None:
        return make(tool, "tool")
    if not spec.strip():
        raise ValueError(f"empty specifier; write {tool} alone to cover every use of it")
    if tool == "Bash":
        return _bash_rule(make, spec)
    if tool == "WebFetch":
        if not spec.startswith("domain:"):
            raise ValueError("a WebFetch rule is WebFetch(domain:example.com)")
        host = spec[len("domain:") :].strip()
        canonical = host_pattern(host) if host else ""
        if _HOST.fullmatch(canonical) is None and not _is_ipv6(canonical):
            raise ValueError(f"{host!r} is not a host name such as example.com or *.example.com")
        return make(tool, "domain", pattern=canonical)
    return _path_rule(make, tool, spec.strip(), base)


class _RuleMaker(msgspec.Struct, frozen=True):
    text: str
    action: m.Action
    scope: str
    source: str

    def __call__(
        self,
        tool: str,
        kind: m.RuleKind,
        *,
        pattern: str = "",
        globs: tuple[str, ...] = (),
        rel: str = "",
    ) -> m.Rule:
        pieces, bare = m.split_pattern(pattern) if kind == "command" else ((), ())
        return m.Rule(
            self.text,
            self.action,
            tool,
            kind,
            self.scope,
            self.source,
            pattern=pattern,
            pieces=pieces,
            bare=bare,
            globs=globs,
            relative=rel,
        )


def _bash_rule(make: _RuleMaker, spec: str) -> m.Rule:
    spec = spec.strip()
    if spec == "*":
        return make("Bash", "tool")
    if spec.endswith(":*"):
        spec = spec[:-2].rstrip() + " *"
    if ":*" in spec:
        raise ValueError("the legacy ':*' may only end a pattern, as in Bash(npm run:*)")
    from earshot.core.permissions.shell import canonical_pattern  # the parser: Bash rules only

    return make("Bash", "command", pattern=canonical_pattern(spec))


def _path_rule(make: _RuleMaker, tool: str, glob: str, base: Path | None) -> m.Rule:
    if glob.startswith("!"):
        raise ValueError("negated paths are not supported; put the path in another list")
    if glob.startswith("~") and not (glob == "~" or glob.startswith("~/")):
        raise ValueError("only ~/ (your own home directory) is supported")
    if glob.startswith("~"):
        glob = Path.home().as_posix() + glob[1:]
    elif glob.startswith("//"):
        glob = glob[1:]
    glob = glob.rstrip("/") or "/"
    if glob.startswith("/"):
        return make(tool, "path", globs=_spellings(posixpath.normpath(glob)))
    if "/" not in glob:
        return make(tool, "path", globs=(glob,))
    if base is None:
        return make(tool, "path", rel=posixpath.normpath(glob))
    anchored = posixpath.normpath(posixpath.join(base.as_posix(), glob))
    return make(tool, "path", globs=_spellings(anchored))


def _is_ipv6(text: str) -> bool:
    try:
        return isinstance(ipaddress.ip_address(text), ipaddress.IPv6Address)
    except ValueError:
        return False


def _spellings(glob: str) -> tuple[str, ...]:
    """``glob`` and, when the directories it starts with lead through a symlink, the same
    glob from the resolved directory (``/tmp/x`` and ``/private/tmp/x`` on macOS)."""
    segments = glob.split("/")
    fixed = 0
    while fixed < len(segments) and not _GLOBBY.search(segments[fixed]):
        fixed += 1
    prefix = "/".join(segments[:fixed]) or "/"
    real = Path(os.path.realpath(prefix)).as_posix()
    if real == prefix:
        return (glob,)
    return (glob, posixpath.normpath("/".join([real, *segments[fixed:]])))


def load_rules(
    settings: Settings,
    *,
    allow: Sequence[str] = (),
    ask: Sequence[str] = (),
    deny: Sequence[str] = (),
) -> RuleSet:
    """The rules of every settings file in ``settings`` followed by the command-line ones
    (scope ``cli``); ``SettingsError`` naming the file (or flag) and rule at fault."""
    rules: list[m.Rule] = []
    default_mode: Mode = "ask"
    mode_source: str | None = None
    directories: list[Path] = []
    notices: list[str] = []
    for source in settings.files:
        perms = source.data.get("permissions")
        if perms is None:
            continue
        where = f"{source.path}: permissions"
        if not isinstance(perms, dict):
            raise SettingsError(f"{where}: must be an object with allow, ask and deny lists")
        unknown = sorted(set(perms) - _PERMISSION_KEYS)
        if unknown:
            known = ", ".join(sorted(_PERMISSION_KEYS))
            raise SettingsError(f"{where}.{unknown[0]}: unknown field; the fields are {known}")
        base = source.path.parent.parent if source.scope in ("project", "local") else None
        checked_in = source.scope == "project" or (
            source.scope == "local" and _tracked(source.path)
        )
        for action in ACTIONS:
            entries = perms.get(action, [])
            if not isinstance(entries, list):
                raise SettingsError(f"{where}.{action}: must be a list of rules")
            parsed = [
                _entry_rule(
                    entry, action, source.scope, str(source.path), base, f"{where}.{action}[{i}]"
                )
                for i, entry in enumerate(entries)
            ]
            if checked_in and action == "allow" and parsed:
                notices.append(_ignored(where, "allow", source.scope, _ALLOW_WHY))
                continue
            rules.extend(parsed)
        if "defaultMode" in perms:
            mode = _default_mode(perms["defaultMode"], where)
            if checked_in and mode not in CHECKED_IN_MODES:
                why = f"it cannot choose {mode}, only {' or '.join(CHECKED_IN_MODES)}"
                notices.append(_ignored(where, "defaultMode", source.scope, why))
            else:
                default_mode = mode
                mode_source = str(source.path)
        found = _directories(
            perms.get("additionalDirectories", []), base, f"{where}.additionalDirectories"
        )
        if checked_in and base is not None:
            root = Path(os.path.realpath(base))
            outside = [d for d in found if d != root and root not in d.parents]
            if outside:
                why = f"it cannot open {', '.join(str(d) for d in outside)} outside the project"
                notices.append(_ignored(where, "additionalDirectories", source.scope, why))
                found = [d for d in found if d not in outside]
        directories.extend(found)
    for action, texts in (("deny", deny), ("ask", ask), ("allow", allow)):
        for text in texts:
            label = f"--{action} {text!r}"
            try:
                rules.append(parse_rule(text, action, scope="cli", source=f"--{action}", base=None))
            except ValueError as exc:
                raise SettingsError(f"{label}: {exc}") from exc
    return RuleSet(
        rules=tuple(rules),
        default_mode=default_mode,
        default_mode_source=mode_source,
        additional_directories=tuple(directories),
        notices=tuple(notices),
        protected_directories=tuple(
            dict.fromkeys((config_dir(), Path(os.path.realpath(config_dir()))))
        ),
    )


def _entry_rule(
    entry: JSONValue, action: m.Action, scope: str, source: str, base: Path | None, label: str
) -> m.Rule:
    examples: dict[str, list[str]] = {"match": [], "not_match": []}
    if isinstance(entry, dict):
        text = entry.get("rule")
        extra = sorted(set(entry) - {"rule", "match", "not_match"})
        if not isinstance(text, str) or extra:
            raise SettingsError(
                f'{label}: write a rule as a string or {{"rule": "...", "match": [...], '
                f'"not_match": [...]}}'
            )
        for key in examples:
            listed = entry.get(key, [])
            if not isinstance(listed, list) or not all(isinstance(x, str) for x in listed):
                raise SettingsError(f"{label}.{key}: must be a list of strings")
            examples[key] = [x for x in listed if isinstance(x, str)]
    elif isinstance(entry, str):
        text = entry
    else:
        raise SettingsError(f'{label}: must be a rule string such as "Bash(git log *)"')
    try:
        rule = parse_rule(text, action, scope=scope, source=source, base=base)
    except ValueError as exc:
        raise SettingsError(f"{label}: {text!r}: {exc}") from exc
    for key, expected in (("match", True), ("not_match", False)):
        for example in examples[key]:
            if example_matches(rule, example, base) != expected:
                says = "does not match it" if expected else "matches it"
                raise SettingsError(
                    f'{label}: {text!r}: example {example!r} is listed under "{key}" but the '
                    f"rule {says}; fix the rule or the example"
                )
    return rule


def example_matches(rule: m.Rule, example: str, base: Path | None) -> bool:
    """Whether ``rule`` alone decides ``example`` the way its list says: an allow rule
    matches a command line when it matches every command in it; an ask or deny rule when it
    matches any. Path examples are relative to ``base`` (or to any one working directory)."""
    if rule.tool == "Bash":
        from earshot.core.permissions.shell import parse_line

        parsed = parse_line(example)
        hits = [
            m.matches_command(
                rule, (c.text, *c.also) if rule.action != "allow" else (c.text,), not c.opaque
            )
            for c in parsed.commands
        ]
        if rule.action == "allow":
            readable = not parsed.problems and all(not c.opaque for c in parsed.commands)
            return bool(hits) and all(hits) and readable
        return any(hits)
    if rule.tool == "WebFetch":
        host = urlsplit(example).hostname if "://" in example else example
        return m.matches_domain(rule, canonical_host(host) if host else None)
    if rule.tool == MCP:
        return m.matches_tool(rule, example, example)
    cwd = (base or Path("/cwd")).as_posix()
    path = Path(example).expanduser()
    absolute = posixpath.normpath(posixpath.join(cwd, path.as_posix()))
    return m.matches_path(rule, absolute, cwd, cwd)


def _default_mode(value: JSONValue, where: str) -> Mode:
    if not isinstance(value, str):
        raise SettingsError(f"{where}.defaultMode: must be one of {', '.join(MODES)}")
    try:
        return parse_mode(value)
    except ValueError as exc:
        raise SettingsError(f"{where}.defaultMode: {exc}") from exc


CHECKED_IN_MODES: tuple[Mode, ...] = ("plan", "ask")
"""The modes a checked-in settings file may choose: they only narrow."""
_ALLOW_WHY = "allow rules widen what runs without asking"


def _ignored(where: str, key: str, scope: str, why: str) -> str:
    what = "a checked-in project file" if scope == "project" else "a settings file git tracks"
    return (
        f"{where}.{key} ignored: {what} arrives with git clone and may only narrow what you "
        f"set; {why}. Put it in your user settings, an untracked "
        ".earshot/settings.local.json, or pass it as a flag"
    )


def _directories(value: JSONValue, base: Path | None, where: str) -> list[Path]:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise SettingsError(f"{where}: must be a list of directory paths")
    found: list[Path] = []
    for item in value:
        if not isinstance(item, str):
            continue
        path = Path(item).expanduser()
        if not path.is_absolute():
            if base is None:
                raise SettingsError(f"{where}: {item!r} must be absolute or start with ~/")
            path = base / path
        found.append(Path(os.path.realpath(path)))
    return found


__all__ = [
    "FAMILIES",
    "MCP",
    "MODES",
    "Mode",
    "RuleSet",
    "example_matches",
    "load_rules",
    "parse_mode",
    "parse_rule",
]
