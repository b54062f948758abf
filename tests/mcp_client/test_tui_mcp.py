"""MCP servers in the interactive UI: /mcp shows them and reconnects one, a server prompt
is a slash command, and a tool call is asked for before it runs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic
from tests.mcp_client.support import stdio_server, tool_results, write_local
from tests.tui.terminal import MODEL, Terminal, earshot_env


def test_mcp_status_reconnect_prompt_and_a_call_in_the_tui(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    write_local(repo, {"py": stdio_server(tmp_path)})
    fake_provider.script(
        anthropic.text_turn("reviewed"),
        anthropic.tool_calls_turn([ToolCallSpec("c1", "mcp__py__add", {"a": 1, "b": 2})]),
        anthropic.text_turn("three"),
    )
    with Terminal(["--model", MODEL], cwd=repo, env=earshot_env(fake_provider.base_url)) as term:
        term.wait_ready()
        term.type_line("/mcp reconnect py")
        term.wait_for("py: connected")
        term.type_line("/mcp")
        term.wait_for("[local, stdio] connected")
        term.type_line("/mcp__py__review the parser")
        term.wait_for("reviewed")
        term.wait_for(term.idle, "the turn to end")
        term.type_line("add them")
        term.wait_for(lambda: "allow mcp__py__add?" in term.text() and "[y]" in term.display())
        term.send("y")
        term.wait_for("three")
        term.wait_for(term.idle, "the turn to end")
        assert term.exit() == 0
    first = json.dumps(fake_provider.requests[0].json()["messages"])
    assert "Please review the parser carefully." in first
    (result,) = tool_results(fake_provider.requests[-1].json())
    assert result["content"][0]["text"] == "3"


def test_a_servers_progress_shows_on_the_activity_line_while_the_call_runs(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    write_local(repo, {"py": stdio_server(tmp_path)})
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("c1", "mcp__py__steps", {"count": 2})]),
        anthropic.text_turn("both steps done"),
    )
    with Terminal(["--model", MODEL], cwd=repo, env=earshot_env(fake_provider.base_url)) as term:
        term.wait_ready()
        term.type_line("work in steps")
        term.wait_for(lambda: "allow mcp__py__steps?" in term.text() and "[y]" in term.display())
        term.send("y")
        # the server waits for go-N until the report is on screen
        term.wait_for(lambda: "mcp__py__steps · step 1 of 2 (1/2)" in term.display())
        (tmp_path / "go-1").write_text("go")
        term.wait_for(lambda: "mcp__py__steps · step 2 of 2 (2/2)" in term.display())
        (tmp_path / "go-2").write_text("go")
        term.wait_for("both steps done")
        term.wait_for(term.idle, "the turn to end")
        assert "step 2 of 2" not in term.display()  # gone with the call
        assert term.exit() == 0
    (result,) = tool_results(fake_provider.requests[-1].json())
    assert result["content"][0]["text"] == "2 steps done"
