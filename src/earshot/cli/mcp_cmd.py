"""``earshot mcp``: the MCP servers of this directory.

::

    earshot mcp list [--json]                  name, scope, transport, trusted, status, tools
    earshot mcp add [--scope user|project|local] [-e KEY=VALUE]... NAME -- COMMAND [ARGS...]
    earshot mcp add --transport http|sse [--scope ...] NAME URL [--header "K: V"]...
    earshot mcp remove [--scope ...] NAME
    earshot mcp tools NAME [--json]            connect and list the tools with their schemas

``add`` writes ``.earshot/settings.local.json`` by default (``--scope local``), the user
settings for ``user`` and ``.mcp.json`` for ``project``. ``list`` and ``tools`` connect to
the servers (never to an untrusted project's).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from earshot._base.dirs import config_dir
from earshot._base.jsonfile import write_json_atomic
from earshot.cli._errors import UsageError

if TYPE_CHECKING:
    from earshot.mcp.servers import McpServers

USAGE = """Usage:
  earshot mcp list [--json]
  earshot mcp add [--scope user|project|local] [-e KEY=VALUE]... NAME -- COMMAND [ARGS...]
  earshot mcp add --transport http|sse [--scope user|project|local] NAME URL [--header "K: V"]...
  earshot mcp remove [--scope user|project|local] NAME
  earshot mcp tools NAME [--json]
"""


def _root() -> Path:
    from earshot.core.config.settings import project_root

    return project_root(Path.cwd().resolve())


def _scope_file(scope: str, root: Path) -> Path:
    match scope:
        case "user":
            return config_dir() / "settings.json"
        case "project":
            return root / ".mcp.json"
        case "local":
            return root / ".earshot" / "settings.local.json"
    raise UsageError(f"--scope {scope!r}: use user, project or local")


def _take(args: list[str], flag: str) -> str:
    index = args.index(flag)
    if index + 1 >= len(args):
        raise UsageError(f"{flag} needs a value\n{USAGE}")
    value = args[index + 1]
    del args[index : index + 2]
    return value


def _take_all(args: list[str], *flags: str) -> list[str]:
    values: list[str] = []
    while any(f in args for f in flags):
        flag = next(f for f in flags if f in args)
        values.append(_take(args, flag))
    return values


def add(args: list[str]) -> int:
    from earshot.mcp.config import parse_server, read_file

    rest: list[str] = []
    if "--" in args:
        cut = args.index("--")
        args, rest = args[:cut], args[cut + 1 :]
    scope = _take(args, "--scope") if "--scope" in args else "local"
    transport = _take(args, "--transport") if "--transport" in args else "stdio"
    headers = _take_all(args, "--header", "-H")
    envs = _take_all(args, "--env", "-e")
    flags = [a for a in args if a.startswith("-")]
    if flags:
        raise UsageError(f"unknown option {flags[0]}\n{USAGE}")
    entry: dict[str, object]
    if transport == "stdio":
        if len(args) != 1 or not rest:
            raise UsageError(f"give the name, then -- and the command\n{USAGE}")
        name = args[0]
        env = {}
        for item in envs:
            key, eq, value = item.partition("=")
            if not eq or not key:
                raise UsageError(f"-e {item!r}: write KEY=VALUE")
            env[key] = value
        entry = {"command": rest[0], "args": rest[1:], **({"env": env} if env else {})}
    elif transport in ("http", "sse"):
        if len(args) != 2 or rest:
            raise UsageError(f"give the name and the URL\n{USAGE}")
        name, url = args
        header_map = {}
        for item in headers:
            key, colon, value = item.partition(":")
            if not colon or not key.strip():
                raise UsageError(f'--header {item!r}: write "Name: value"')
            header_map[key.strip()] = value.strip()
        entry = {"type": transport, "url": url, **({"headers": header_map} if header_map else {})}
    else:
        raise UsageError(f"--transport {transport!r}: use stdio, http or sse")
    root = _root()
    path = _scope_file(scope, root)
    data = read_file(path) or {}
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise UsageError(f"{path}: mcpServers: must be an object keyed by server name")
    raw = json.loads(json.dumps(entry))
    parse_server(name, raw, "local", path)  # the same checks a session makes
    servers[name] = raw
    write_json_atomic(path, {**data, "mcpServers": servers})
    print(f"added MCP server {name} to {path} ({scope})")
    if scope == "project":
        print("project servers start once the project is trusted: run `earshot trust`")
    return 0


def remove(args: list[str]) -> int:
    from earshot.mcp.config import read_file

    scope = _take(args, "--scope") if "--scope" in args else None
    if len(args) != 1:
        raise UsageError(f"give the name of the server to remove\n{USAGE}")
    name = args[0]
    root = _root()
    scopes = [scope] if scope else ["local", "project", "user"]
    removed = []
    for each in scopes:
        path = _scope_file(each, root)
        data = read_file(path)
        servers = data.get("mcpServers") if data is not None else None
        if data is not None and isinstance(servers, dict) and name in servers:
            del servers[name]
            write_json_atomic(path, {**data, "mcpServers": servers})
            removed.append(str(path))
    if not removed:
        sys.stderr.write(f"earshot: no MCP server {name!r} in the {'/'.join(scopes)} config\n")
        return 1
    print(f"removed MCP server {name} from {', '.join(removed)}")
    return 0


def _connect(only: str | None) -> McpServers | None:
    """The servers after one connection attempt each (bounded by mcpStartupTimeoutMs),
    closed again; ``only``: just that one."""
    import anyio

    from earshot.mcp.session import open_servers

    servers = open_servers(Path.cwd())
    if servers is None:
        return None
    if only is not None:
        if only not in servers.servers:
            raise UsageError(f"no MCP server {only!r} (servers: {', '.join(servers.servers)})")
        kept = servers.servers[only]
        servers.servers = {only: kept}

    async def connect() -> McpServers:
        try:
            await servers.ready()
        finally:
            await servers.aclose()
        return servers

    return anyio.run(connect)


def list_servers(args: list[str]) -> int:
    from earshot.mcp.config import load_servers

    as_json = "--json" in args
    connected = _connect(None)
    configs = load_servers(_root())
    rows = []
    for config in configs:
        server = connected.servers.get(config.name) if connected is not None else None
        status = server.status if server is not None else "pending"
        if status == "stopped":
            status = "connected"  # it answered; the listing closed it again
        rows.append(
            {
                "name": config.name,
                "scope": config.scope,
                "transport": config.transport,
                "trusted": server is not None and server.status != "untrusted",
                "status": status,
                "tools": len(server.tools) if server is not None else 0,
                "error": server.error if server is not None else "",
                "source": str(config.source),
            }
        )
    if as_json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("no MCP servers configured (earshot mcp add NAME -- COMMAND ARGS...)")
        return 0
    for row in rows:
        error = f"  {row['error']}" if row["error"] else ""
        print(
            f"{row['name']}  {row['scope']}  {row['transport']}  "
            f"{'trusted' if row['trusted'] else 'untrusted'}  {row['status']}  "
            f"{row['tools']} tools{error}"
        )
    return 0


def tools(args: list[str]) -> int:
    as_json = "--json" in args
    names = [a for a in args if not a.startswith("-")]
    if len(names) != 1:
        raise UsageError(f"give the name of one server\n{USAGE}")
    connected = _connect(names[0])
    if connected is None:
        raise UsageError(f"no MCP server {names[0]!r}: none is configured here")
    server = connected.servers[names[0]]
    if server.status == "untrusted":
        sys.stderr.write(
            f"earshot: {names[0]} is a project server and the project is not "
            "trusted: run `earshot trust`\n"
        )
        return 1
    if server.error or (not server.tools and server.status == "failed"):
        sys.stderr.write(f"earshot: {names[0]}: {server.error or server.status}\n")
        return 1
    listed = [
        {"name": t.name, "description": t.description, "input_schema": t.input_schema}
        for t in server.tools
    ]
    if as_json:
        print(json.dumps(listed, indent=2))
        return 0
    for tool in listed:
        print(f"{tool['name']}\n  {tool['description']}\n  {json.dumps(tool['input_schema'])}")
    return 0


def main(args: list[str]) -> int:
    if not args or args[0] in ("--help", "-h"):
        sys.stdout.write(USAGE)
        return 0
    verb, rest = args[0], list(args[1:])
    match verb:
        case "list":
            return list_servers(rest)
        case "add":
            return add(rest)
        case "remove":
            return remove(rest)
        case "tools":
            return tools(rest)
    raise UsageError(f"unknown mcp command {verb!r}\n{USAGE}")


__all__ = ["main"]
