"""MCP tool names as providers accept them: mcp__server__tool when it fits; a long or
unusual name is cut with a hash of the whole name, so two tools never share a name and each
keeps its own from one session to the next. Server names that would blur the line between
servers are refused, naming the file and the server."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from earshot.mcp._tools import MAX_NAME, tool_name
from earshot.mcp.config import McpConfigError, load_servers
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic
from tests.mcp_client.support import (
    earshot,
    run_prompt,
    stdio_server,
    tool_names,
    tool_results,
    write_local,
)

VALID = re.compile(r"[A-Za-z0-9_-]{1,64}")
LONG = "summarize_the_quarterly_financial_report_for_the_board_of_directors_meeting"


def test_a_name_that_fits_is_left_as_it_is() -> None:
    assert tool_name("jira", "create_issue") == "mcp__jira__create_issue"
    assert tool_name("my-db", "run-query") == "mcp__my-db__run-query"


def test_long_names_sharing_their_first_64_characters_stay_apart_and_stable() -> None:
    draft, final = tool_name("docs", f"{LONG}_draft"), tool_name("docs", f"{LONG}_final")
    assert draft != final
    assert all(VALID.fullmatch(n) for n in (draft, final))
    assert len(draft) == len(final) == MAX_NAME
    assert draft.startswith("mcp__docs__summarize_the_quarterly")
    assert tool_name("docs", f"{LONG}_draft") == draft  # the same next session


def test_characters_a_provider_refuses_never_make_two_names_one() -> None:
    dotted, underscored = tool_name("db", "schema.read"), tool_name("db", "schema_read")
    assert underscored == "mcp__db__schema_read"
    assert dotted != underscored and VALID.fullmatch(dotted)
    assert dotted.startswith("mcp__db__schema_read_")


def test_a_name_already_taken_gets_another() -> None:
    first = tool_name("db", "q")
    assert tool_name("db", "q", {first}) not in (first, "")
    assert VALID.fullmatch(tool_name("db", "q", {first}))


@pytest.mark.parametrize("name", ["jira__cloud", "jira_", "my server", "db.prod", "ü"])
def test_a_server_name_that_could_blur_servers_is_refused_naming_file_and_server(
    tmp_path: Path, name: str
) -> None:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {name: {"command": "x"}}}))
    with pytest.raises(McpConfigError) as caught:
        load_servers(root)
    message = str(caught.value)
    assert ".mcp.json" in message and f"mcpServers.{name}" in message


def test_mcp_add_refuses_a_server_name_with_a_double_underscore(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    done = earshot(fake_provider, repo, "mcp", "add", "jira__cloud", "--", "jira-mcp")
    assert done.returncode != 0
    assert "jira__cloud" in done.stderr and "__" in done.stderr
    assert not (repo / ".earshot" / "settings.local.json").exists()


def test_two_long_tools_of_a_real_server_are_offered_and_called_apart(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    server = stdio_server(tmp_path)
    server["env"] = {"LONG_NAMES": "1"}
    write_local(repo, {"docs": server})
    final = tool_name("docs", f"{LONG}_final")
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("c1", final, {})]),
        anthropic.text_turn("summarised"),
    )
    run_prompt(fake_provider, repo, "--allow", "mcp__docs")
    offered = [n for n in tool_names(fake_provider.requests[0].json()) if "summarize" in n]
    assert sorted(offered) == sorted([tool_name("docs", f"{LONG}_draft"), final])
    (result,) = tool_results(fake_provider.requests[-1].json())
    assert result["content"][0]["text"] == "the final summary"
