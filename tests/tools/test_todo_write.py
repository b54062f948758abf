"""The todo_write tool: replaces the session's list, one item in progress, summary and
display for front-ends, read-only."""

from __future__ import annotations

from pathlib import Path

import pytest

from earshot.core.tools.base import ToolContext, ToolError, ToolResult
from earshot.core.tools.display import TodoList
from earshot.core.tools.state import Todo, ToolState
from earshot.core.tools.todo_write import TOOL
from earshot.providers.types import JSONObject, TextPart


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def make_ctx(cwd: Path) -> ToolContext:
    return ToolContext(cwd=cwd, state=ToolState())


async def write(ctx: ToolContext, args: JSONObject) -> ToolResult:
    return await TOOL.execute(TOOL.parse(args), ctx)


def text_of(result: ToolResult) -> str:
    part = result.content[0]
    assert isinstance(part, TextPart)
    return part.text


PLAN: JSONObject = {
    "todos": [
        {"content": "Read the parser", "status": "completed"},
        {"content": "Fix the off-by-one", "status": "in_progress"},
        {"content": "Add a regression test", "status": "pending"},
    ]
}


@pytest.mark.anyio
async def test_todo_write_stores_the_list_in_session_state(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    await write(ctx, PLAN)
    assert ctx.state.todos == [
        Todo(content="Read the parser", status="completed", id="1"),
        Todo(content="Fix the off-by-one", status="in_progress", id="2"),
        Todo(content="Add a regression test", status="pending", id="3"),
    ]


@pytest.mark.anyio
async def test_todo_write_replaces_the_previous_list(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    await write(ctx, PLAN)
    await write(ctx, {"todos": [{"content": "Ship it", "status": "in_progress"}]})
    assert ctx.state.todos == [Todo(content="Ship it", status="in_progress", id="1")]


@pytest.mark.anyio
async def test_todo_write_summarises_counts_and_lists_items_with_markers(tmp_path: Path) -> None:
    result = await write(make_ctx(tmp_path), PLAN)
    assert text_of(result) == (
        "Todo list updated: 3 items (1 completed, 1 in progress, 1 pending)\n"
        "[x] Read the parser\n"
        "[>] Fix the off-by-one\n"
        "[ ] Add a regression test"
    )
    assert result.brief == "Todos: 1/3 done"
    assert not result.is_error


@pytest.mark.anyio
async def test_todo_write_gives_front_ends_the_list_as_display(tmp_path: Path) -> None:
    result = await write(make_ctx(tmp_path), PLAN)
    assert result.display == TodoList(
        todos=[
            Todo(id="1", content="Read the parser", status="completed"),
            Todo(id="2", content="Fix the off-by-one", status="in_progress"),
            Todo(id="3", content="Add a regression test", status="pending"),
        ]
    )


@pytest.mark.anyio
async def test_todo_write_keeps_given_ids_and_numbers_the_rest_around_them(
    tmp_path: Path,
) -> None:
    ctx = make_ctx(tmp_path)
    args: JSONObject = {
        "todos": [
            {"content": "a", "status": "pending", "id": "2"},
            {"content": "b", "status": "pending"},
            {"content": "c", "status": "pending", "id": "fix-parser"},
            {"content": "d", "status": "pending"},
        ]
    }
    await write(ctx, args)
    assert [t.id for t in ctx.state.todos] == ["2", "1", "fix-parser", "3"]


@pytest.mark.anyio
async def test_todo_write_refuses_more_than_one_item_in_progress(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    await write(ctx, PLAN)
    args: JSONObject = {
        "todos": [
            {"content": "a", "status": "in_progress"},
            {"content": "b", "status": "pending"},
            {"content": "c", "status": "in_progress"},
        ]
    }
    with pytest.raises(ToolError, match=r"2 items are in_progress \(items 1, 3\)") as caught:
        await write(ctx, args)
    assert "keep exactly one in progress" in caught.value.message
    assert [t.content for t in ctx.state.todos] == [
        "Read the parser",
        "Fix the off-by-one",
        "Add a regression test",
    ]


@pytest.mark.anyio
async def test_todo_write_allows_no_item_in_progress(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    result = await write(ctx, {"todos": [{"content": "done", "status": "completed"}]})
    assert text_of(result).startswith(
        "Todo list updated: 1 item (1 completed, 0 in progress, 0 pending)"
    )


@pytest.mark.anyio
async def test_todo_write_refuses_empty_content(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    args: JSONObject = {
        "todos": [
            {"content": "a", "status": "pending"},
            {"content": "   ", "status": "pending"},
        ]
    }
    with pytest.raises(ToolError, match="item 2 has empty content"):
        await write(ctx, args)
    assert ctx.state.todos == []


@pytest.mark.anyio
async def test_todo_write_refuses_repeated_ids(tmp_path: Path) -> None:
    args: JSONObject = {
        "todos": [
            {"content": "a", "status": "pending", "id": "x"},
            {"content": "b", "status": "pending", "id": "x"},
        ]
    }
    with pytest.raises(ToolError, match=r"ids repeat \(x\)"):
        await write(make_ctx(tmp_path), args)


def test_todo_write_refuses_an_unknown_status() -> None:
    with pytest.raises(ToolError, match="invalid arguments for todo_write"):
        TOOL.parse({"todos": [{"content": "a", "status": "blocked"}]})


@pytest.mark.anyio
async def test_todo_write_with_an_empty_list_clears_it(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    await write(ctx, PLAN)
    result = await write(ctx, {"todos": []})
    assert ctx.state.todos == []
    assert text_of(result) == "Todo list cleared."
    assert result.display == TodoList(todos=[])


def test_todo_write_is_read_only_and_needs_no_permission(tmp_path: Path) -> None:
    assert TOOL.read_only
    assert TOOL.permission is None
    args = TOOL.parse(PLAN)
    assert TOOL.describe(args, make_ctx(tmp_path)).kind == "read"


def test_todo_write_schema_names_each_field_and_the_statuses() -> None:
    top = TOOL.input_schema["properties"]
    assert isinstance(top, dict)
    todos = top["todos"]
    assert isinstance(todos, dict)
    item = todos["items"]
    assert isinstance(item, dict)
    properties = item["properties"]
    assert isinstance(properties, dict)
    assert set(properties) == {"content", "status", "id"}
    status = properties["status"]
    assert isinstance(status, dict)
    assert status["enum"] == ["completed", "in_progress", "pending"]
    assert "`in_progress`" in TOOL.description
    assert item["required"] == ["content", "status"]
