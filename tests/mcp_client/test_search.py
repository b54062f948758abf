"""When MCP tools are offered through one search tool, and what a search finds."""

from __future__ import annotations

from pathlib import Path

import anyio

from earshot.core.tools.base import ProgressFn, ToolContext, ToolResult
from earshot.core.tools.state import ToolState
from earshot.mcp._tools import McpTool, make_tool
from earshot.mcp.search import SEARCH_TOOL, SearchPolicy, offered
from earshot.providers.types import JSONObject


async def _never(arguments: JSONObject, progress: ProgressFn) -> ToolResult:
    return ToolResult.error("not called in these tests")


def _tools(count: int, padding: int = 0) -> list[McpTool]:
    return [
        make_tool(
            "jira",
            f"issue_{i}",
            f"Create issue kind {i} in a project." + " detail" * padding,
            {"type": "object", "properties": {"title": {"type": "string"}}},
            _never,
        )
        for i in range(count)
    ]


def test_a_few_small_tools_are_offered_as_they_are() -> None:
    tools = _tools(10)
    assert [t.name for t in offered(tools, 200_000, SearchPolicy(), set())] == [
        t.name for t in tools
    ]


def test_more_than_40_tools_or_a_tenth_of_the_window_become_one_search_tool() -> None:
    many = offered(_tools(41), 1_000_000, SearchPolicy(), set())
    assert [t.name for t in many] == [SEARCH_TOOL]
    big = offered(_tools(5, padding=400), 20_000, SearchPolicy(), set())
    assert [t.name for t in big] == [SEARCH_TOOL]
    off = offered(_tools(41), 1_000_000, SearchPolicy(enabled=False), set())
    assert len(off) == 41


def test_a_search_finds_by_words_and_the_hits_become_offered() -> None:
    tools = _tools(50)
    found: set[str] = set()
    (search,) = offered(tools, 200_000, SearchPolicy(), found)
    ctx = ToolContext(cwd=Path("."), state=ToolState())
    result = anyio.run(search.prepare({"query": "issue kind 7", "limit": 2}, ctx).run)
    text = result.content[0]
    assert "mcp__jira__issue_7" in getattr(text, "text", "")
    assert "mcp__jira__issue_7" in found
    names = [t.name for t in offered(tools, 200_000, SearchPolicy(), found)]
    assert names[0] == SEARCH_TOOL and "mcp__jira__issue_7" in names
    assert len(names) == 1 + len(found)
