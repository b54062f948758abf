"""The protocol surface of ``earshot acp`` as a client sees it on the wire: the declared
capabilities (locked), JSON-RPC errors for anything malformed, refused client MCP servers."""

from __future__ import annotations

import json
from pathlib import Path

import acp
import pytest

from earshot import __version__
from tests.acp.client import MODEL, start_raw
from tests.fake_provider import FakeProvider, anthropic

pytestmark = pytest.mark.anyio

# The promise of compatibility.txt: changing this is a question of "is this a v2?".
CAPABILITIES = {
    "loadSession": True,
    "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
    "mcpCapabilities": {"http": False, "sse": False},
    "sessionCapabilities": {"list": {}, "resume": {}, "close": {}},
}


def request(ident: int, method: str, params: dict[str, object]) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}


async def test_initialize_reports_the_library_protocol_version_and_locked_capabilities(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    async with start_raw(fake_provider, repo, "--model", MODEL, log=log) as peer:
        await peer.send(request(1, "initialize", {"protocolVersion": 1}))
        reply = await peer.reply(1)
    result = reply["result"]
    assert isinstance(result, dict)
    assert result["protocolVersion"] == acp.PROTOCOL_VERSION == 1
    assert result["agentCapabilities"] == CAPABILITIES
    assert result["authMethods"] == []
    assert result["agentInfo"] == {"name": "earshot", "title": "earshot", "version": __version__}


async def test_a_newer_client_version_is_answered_with_v1(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    async with start_raw(fake_provider, repo, log=log) as peer:
        await peer.send(request(1, "initialize", {"protocolVersion": 2}))
        result = (await peer.reply(1))["result"]
    assert isinstance(result, dict)
    assert result["protocolVersion"] == 1


async def test_garbage_gets_json_rpc_errors_and_the_session_survives(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    fake_provider.script(anthropic.text_turn("still here"))
    async with start_raw(fake_provider, repo, "--model", MODEL, log=log) as peer:
        await peer.send(request(1, "initialize", {"protocolVersion": 1}))
        await peer.reply(1)
        await peer.send(request(2, "session/new", {"cwd": str(repo), "mcpServers": []}))
        new = (await peer.reply(2))["result"]
        assert isinstance(new, dict)
        session_id = new["sessionId"]
        await peer.send(b"this is not json\n")
        await peer.send(b"[1, 2, 3]\n")
        await peer.send(b'{"jsonrpc": "2.0", "id": 7, "method": 42}\n')
        await peer.send(request(8, "session/unknown", {}))
        await peer.send(request(9, "session/prompt", {"sessionId": session_id}))
        await peer.send(request(10, "session/prompt", {"sessionId": "no-such", "prompt": []}))
        await peer.send(
            request(
                11,
                "session/prompt",
                {"sessionId": session_id, "prompt": [{"type": "text", "text": "hello?"}]},
            )
        )
        assert (await peer.reply(7))["error"] == {
            "code": -32600,
            "message": "Invalid request",
            "data": {"details": "method must be a string"},
        }
        assert _code(await peer.reply(8)) == -32601
        assert _code(await peer.reply(9)) == -32602
        assert _code(await peer.reply(10)) == -32002
        answered = await peer.reply(11)
    assert answered["result"] == {"stopReason": "end_turn"}
    anonymous = [m for m in peer.seen if m.get("id") is None and "error" in m]
    assert [_code(m) for m in anonymous] == [-32700, -32600]
    chunks = [
        m["params"]
        for m in peer.seen
        if m.get("method") == "session/update"
        and json.dumps(m["params"]).find("agent_message_chunk") >= 0
    ]
    assert (
        "".join(p["update"]["content"]["text"] for p in chunks if isinstance(p, dict))
        == "still here"
    )


def _code(message: dict[str, object]) -> object:
    error = message.get("error")
    assert isinstance(error, dict), message
    return error["code"]


async def test_client_mcp_servers_are_refused_with_a_pointer_to_earshot_mcp_add(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    server = {"name": "files", "command": "mcp-files", "args": [], "env": []}
    async with start_raw(fake_provider, repo, "--model", MODEL, log=log) as peer:
        await peer.send(request(1, "initialize", {"protocolVersion": 1}))
        await peer.reply(1)
        await peer.send(request(2, "session/new", {"cwd": str(repo), "mcpServers": [server]}))
        refused = await peer.reply(2)
        await peer.send(
            request(
                3,
                "session/load",
                {"cwd": str(repo), "sessionId": "x", "mcpServers": [server]},
            )
        )
        refused_load = await peer.reply(3)
    for reply in (refused, refused_load):
        error = reply["error"]
        assert isinstance(error, dict)
        assert error["code"] == -32602
        assert "earshot mcp add" in str(error["message"])
        assert "files" in str(error["message"])
    sessions = list((repo.parent / "home").rglob("*.jsonl"))
    assert sessions == []
