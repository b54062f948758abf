"""The MCP configuration as people write it: .mcp.json and mcpServers in the settings
files, ${VAR} expansion, errors naming file, server and field, and project trust."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earshot.mcp import trust as project_trust
from earshot.mcp.config import ExpansionError, McpConfigError, load_servers
from earshot.mcp.session import open_servers


@pytest.fixture
def root(tmp_path: Path) -> Path:
    work = tmp_path / "proj"
    (work / ".git").mkdir(parents=True)
    return work


def _write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_a_claude_code_mcp_json_reads_unchanged(root: Path) -> None:
    _write(
        root / ".mcp.json",
        {
            "mcpServers": {
                "fs": {
                    "type": "stdio",
                    "command": "npx",
                    "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
                    "env": {"DEBUG": "${DEBUG:-false}"},
                },
                "api": {
                    "type": "http",
                    "url": "${API_BASE_URL:-https://api.example.com}/mcp",
                    "headers": {"Authorization": "Bearer ${API_KEY}"},
                },
                "old": {"type": "sse", "url": "https://example.com/sse", "headers": {}},
            }
        },
    )
    servers = {s.name: s for s in load_servers(root)}
    assert [servers[n].transport for n in ("fs", "api", "old")] == ["stdio", "http", "sse"]
    assert all(s.scope == "project" and s.needs_trust for s in servers.values())
    fs = servers["fs"].expanded({})
    assert fs.env == {"DEBUG": "false"}
    api = servers["api"].expanded({"API_KEY": "k-123"})
    assert api.url == "https://api.example.com/mcp"
    assert api.headers == {"Authorization": "Bearer k-123"}


def test_an_unset_variable_names_file_server_and_field(root: Path) -> None:
    _write(root / ".mcp.json", {"mcpServers": {"api": {"type": "http", "url": "${HOST}/mcp"}}})
    (server,) = load_servers(root)
    with pytest.raises(ExpansionError) as caught:
        server.expanded({})
    message = str(caught.value)
    assert ".mcp.json" in message and "mcpServers.api.url" in message and "${HOST}" in message


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ({"args": ["x"]}, "mcpServers.bad.command"),
        ({"command": "x", "args": "not-a-list"}, "mcpServers.bad.args"),
        ({"command": "x", "env": {"A": 1}}, "mcpServers.bad.env"),
        ({"type": "http"}, "mcpServers.bad.url"),
        ({"type": "websocket", "url": "ws://x"}, "mcpServers.bad.type"),
        ({"command": "x", "url": "http://x"}, "mcpServers.bad.url"),
    ],
)
def test_a_wrong_shape_names_file_server_and_field(
    root: Path, entry: dict[str, object], field: str
) -> None:
    _write(root / ".earshot" / "settings.local.json", {"mcpServers": {"bad": entry}})
    with pytest.raises(McpConfigError) as caught:
        load_servers(root)
    assert "settings.local.json" in str(caught.value)
    assert field in str(caught.value)


def test_local_replaces_project_replaces_user(root: Path, hermetic_env: Path) -> None:
    user = hermetic_env / ".config" / "earshot" / "settings.json"
    _write(user, {"mcpServers": {"a": {"command": "user-a"}, "b": {"command": "user-b"}}})
    _write(root / ".mcp.json", {"mcpServers": {"b": {"command": "project-b"}}})
    _write(root / ".earshot" / "settings.local.json", {"mcpServers": {"a": {"command": "l"}}})
    servers = {s.name: (s.scope, s.command) for s in load_servers(root)}
    assert servers == {"a": ("local", "l"), "b": ("project", "project-b")}


def test_trust_covers_exactly_the_definitions_it_saw(root: Path) -> None:
    _write(root / ".mcp.json", {"mcpServers": {"py": {"command": "python3", "args": ["s.py"]}}})
    assert not project_trust.state(root).trusted
    project_trust.grant(root)
    assert project_trust.state(root).trusted
    _write(root / ".mcp.json", {"mcpServers": {"py": {"command": "python3", "args": ["t.py"]}}})
    changed = project_trust.state(root)
    assert not changed.trusted and changed.changed
    project_trust.grant(root)
    assert project_trust.revoke(root)
    assert not project_trust.state(root).trusted


def test_no_servers_means_no_source_and_untrusted_ones_are_held(root: Path) -> None:
    assert open_servers(root) is None
    _write(root / ".mcp.json", {"mcpServers": {"py": {"command": "python3"}}})
    _write(root / ".earshot" / "settings.local.json", {"mcpServers": {"mine": {"command": "x"}}})
    servers = open_servers(root)
    assert servers is not None
    assert {n: s.status for n, s in servers.servers.items()} == {
        "py": "untrusted",
        "mine": "pending",
    }


def _ask_once(cwd: Path, answer: str) -> str:
    """The question the TUI asks before its first start, answered with ``answer``."""
    import os
    import subprocess
    import sys

    probe = "import sys; from pathlib import Path; from earshot.cli.trust_cmd import ask_once; "
    probe += "ask_once(Path(sys.argv[1]))"
    done = subprocess.run(
        [sys.executable, "-c", probe, str(cwd)],
        input=answer,
        capture_output=True,
        text=True,
        env=dict(os.environ),
        check=True,
        timeout=60,
    )
    return done.stdout


def test_the_tui_asks_once_showing_what_would_run(root: Path) -> None:
    _write(root / ".mcp.json", {"mcpServers": {"py": {"command": "python3", "args": ["s.py"]}}})
    asked = _ask_once(root, "n\n")
    assert "MCP server py (.mcp.json): python3 s.py" in asked
    assert "not trusted" in asked
    assert _ask_once(root, "y\n") == ""  # a no is remembered: not asked again
    assert not project_trust.state(root).trusted
    _write(root / ".mcp.json", {"mcpServers": {"py": {"command": "python3", "args": ["t.py"]}}})
    assert "python3 t.py" in _ask_once(root, "y\n")  # changed: asked again
    assert project_trust.state(root).trusted
