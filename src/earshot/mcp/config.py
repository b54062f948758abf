"""Which MCP servers a directory has, read from the files people already write.

::

    user     mcpServers in $XDG_CONFIG_HOME/earshot/settings.json    trusted
    project  <project>/.mcp.json {"mcpServers": {...}}                checked in: needs trust
             mcpServers in <project>/.earshot/settings.json           checked in: needs trust
    local    mcpServers in <project>/.earshot/settings.local.json    trusted

A later scope replaces a server of the same name (local > project > user). A server is
``{"command", "args", "env", "cwd"}`` (stdio; ``"type": "stdio"`` optional) or
``{"type": "http" | "sse", "url", "headers"}``. ``${VAR}`` and ``${VAR:-default}`` expand
in command, args, env, cwd, url and headers when the server is started; an unset variable
without a default makes that one server fail (reported, skipped). A server's name is
letters, digits, ``_`` and ``-``, with no ``__`` in it and no ``_`` at its end: its tools
are ``mcp__<name>__<tool>``, and a rule naming one server must never reach another's. A
wrong shape is a ``McpConfigError`` naming the file, the server and the field.

Nothing here imports the ``mcp`` package: reading the configuration is cheap.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from earshot._base.dirs import config_dir
from earshot._base.errors import UserError
from earshot._base.json import JSONObject, JSONValue
from earshot._base.jsonfile import JSONFileError, load_json_object

Scope = Literal["user", "project", "local"]
Transport = Literal["stdio", "http", "sse"]
SCOPES: tuple[Scope, ...] = ("user", "project", "local")
_NAME = re.compile(r"[A-Za-z0-9_-]+")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_STDIO_KEYS = frozenset({"type", "command", "args", "env", "cwd"})
_REMOTE_KEYS = frozenset({"type", "url", "headers"})


class McpConfigError(UserError):
    """An MCP server definition earshot cannot use; names the file, server and field."""


class ExpansionError(Exception):
    """A ``${VAR}`` with no value and no default (the message names file, server, field)."""


@dataclass(frozen=True, kw_only=True)
class ServerConfig:
    """One server as written (``raw``, unexpanded) and where it was written."""

    name: str
    scope: Scope
    source: Path
    transport: Transport
    raw: JSONObject
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def needs_trust(self) -> bool:
        """Defined in a checked-in file: it never starts until the user trusts it."""
        return self.scope == "project"

    def expanded(self, environ: Mapping[str, str] | None = None) -> ServerConfig:
        """The same server with ``${VAR}`` expanded; ``ExpansionError`` for an unset one."""
        env = os.environ if environ is None else environ

        def x(value: str, where: str) -> str:
            def sub(found: re.Match[str]) -> str:
                name, default = found.group(1), found.group(2)
                if name in env:
                    return env[name]
                if default is not None:
                    return default
                raise ExpansionError(
                    f"{self.source}: mcpServers.{self.name}.{where}: ${{{name}}} is not set "
                    f"(set it, or write ${{{name}:-default}})"
                )

            return _VAR.sub(sub, value)

        return ServerConfig(
            name=self.name,
            scope=self.scope,
            source=self.source,
            transport=self.transport,
            raw=self.raw,
            command=x(self.command, "command"),
            args=tuple(x(a, f"args[{i}]") for i, a in enumerate(self.args)),
            env={k: x(v, f"env.{k}") for k, v in self.env.items()},
            cwd=x(self.cwd, "cwd") if self.cwd is not None else None,
            url=x(self.url, "url"),
            headers={k: x(v, f"headers.{k}") for k, v in self.headers.items()},
        )

    def summary(self) -> str:
        """What would run, as a person reads it (unexpanded)."""
        if self.transport == "stdio":
            return " ".join([self.command, *self.args])
        return f"{self.transport} {self.url}"


def project_files(root: Path) -> list[Path]:
    """The checked-in files that can define servers and hooks."""
    from earshot.core.extend import trust

    return trust.project_files(root)


def config_files(root: Path) -> list[tuple[Scope, Path]]:
    return [
        ("user", config_dir() / "settings.json"),
        ("project", root / ".earshot" / "settings.json"),
        ("project", root / ".mcp.json"),
        ("local", root / ".earshot" / "settings.local.json"),
    ]


def _strings(value: JSONValue, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise McpConfigError(f"{where}: must be a list of strings")
    return tuple(v for v in value if isinstance(v, str))


def _str_map(value: JSONValue, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise McpConfigError(f"{where}: must be an object of strings")
    return {k: v for k, v in value.items() if isinstance(v, str)}


def parse_server(name: str, raw: JSONValue, scope: Scope, source: Path) -> ServerConfig:
    """One entry of ``mcpServers``; ``McpConfigError`` naming file, server and field."""
    where = f"{source}: mcpServers.{name}"
    if not _NAME.fullmatch(name):
        raise McpConfigError(f"{where}: a server name uses letters, digits, _ and - only")
    if "__" in name or name.endswith("_"):
        raise McpConfigError(
            f"{where}: a server name must not contain __ or end with _ (its tools are "
            f"mcp__{name}__TOOL, which a rule for another server could match); rename it"
        )
    if not isinstance(raw, dict):
        raise McpConfigError(f'{where}: must be an object such as {{"command": "..."}}')
    kind = raw.get("type", "stdio" if "command" in raw or "url" not in raw else "http")
    if kind == "streamable-http":
        kind = "http"
    if kind not in ("stdio", "http", "sse"):
        raise McpConfigError(f'{where}.type: must be "stdio", "http" or "sse", not {kind!r}')
    allowed = _STDIO_KEYS if kind == "stdio" else _REMOTE_KEYS
    for key in raw:
        if key not in allowed:
            raise McpConfigError(
                f"{where}.{key}: not a field of a {kind} server (use {', '.join(sorted(allowed))})"
            )
    if kind == "stdio":
        command = raw.get("command")
        if not isinstance(command, str) or not command.strip():
            raise McpConfigError(f"{where}.command: must be the program to run, a string")
        cwd = raw.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            raise McpConfigError(f"{where}.cwd: must be a string path")
        return ServerConfig(
            name=name,
            scope=scope,
            source=source,
            transport="stdio",
            raw=raw,
            command=command,
            args=_strings(raw.get("args", []), f"{where}.args"),
            env=_str_map(raw.get("env", {}), f"{where}.env"),
            cwd=cwd,
        )
    url = raw.get("url")
    if not isinstance(url, str) or not url.strip():
        raise McpConfigError(f"{where}.url: must be the server's URL, a string")
    return ServerConfig(
        name=name,
        scope=scope,
        source=source,
        transport="http" if kind == "http" else "sse",
        raw=raw,
        url=url,
        headers=_str_map(raw.get("headers", {}), f"{where}.headers"),
    )


def servers_in(data: JSONObject, scope: Scope, source: Path) -> list[ServerConfig]:
    block = data.get("mcpServers")
    if block is None:
        return []
    if not isinstance(block, dict):
        raise McpConfigError(f"{source}: mcpServers: must be an object keyed by server name")
    return [parse_server(name, raw, scope, source) for name, raw in block.items()]


def read_file(path: Path) -> JSONObject | None:
    try:
        return load_json_object(path)
    except JSONFileError as exc:
        raise McpConfigError(str(exc)) from exc


def load_servers(root: Path) -> list[ServerConfig]:
    """Every server for the project at ``root``, a later scope replacing a name."""
    found: dict[str, ServerConfig] = {}
    for scope, path in config_files(root):
        data = read_file(path)
        if data is not None:
            for server in servers_in(data, scope, path):
                found.pop(server.name, None)
                found[server.name] = server
    return list(found.values())


def project_definitions(root: Path) -> JSONObject:
    """What the project's checked-in files define that runs code (servers and hooks):
    what trust covers. The session checks the same definitions (``core.extend.trust``)."""
    from earshot.core.extend import trust

    try:
        return trust.definitions(root)
    except JSONFileError as exc:
        raise McpConfigError(str(exc)) from exc


__all__ = [
    "SCOPES",
    "ExpansionError",
    "McpConfigError",
    "Scope",
    "ServerConfig",
    "Transport",
    "config_files",
    "load_servers",
    "parse_server",
    "project_definitions",
    "project_files",
    "read_file",
    "servers_in",
]
