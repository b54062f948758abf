"""The ``todo_write`` tool: the session's todo list, replaced whole by each call.

The list lives in ``ctx.state.todos`` (session state, so it is part of the transcript
through the call and its result, and front-ends draw it from ``display["todos"]``). It
changes nothing on disk and nothing outside the session, so it is ``read_only`` and never
asks for permission.

Rules: every item has non-empty ``content``; at most one item is ``in_progress``; ids, when
given, are unique (items without one are numbered). A list that breaks a rule is refused
whole and the previous list stays.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from earshot.core.tools.base import ToolContext, ToolError, ToolResult, define_tool
from earshot.core.tools.display import TodoList
from earshot.core.tools.state import Todo, TodoStatus

MARKERS: dict[TodoStatus, str] = {"completed": "[x]", "in_progress": "[>]", "pending": "[ ]"}

DESCRIPTION = """
A todo list for the current task, shown to the user. Each call replaces the whole list.
Keep exactly one item `in_progress`; mark each `completed` as soon as it is done, not in
batches. Use it for three or more steps or several tasks, not for one quick change. An
empty list clears it.
"""


class TodoItem(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    content: Annotated[str, msgspec.Meta(description="What to do, imperative")]
    status: TodoStatus
    id: str = ""


class TodoWriteInput(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    todos: list[TodoItem]


def _validated(items: list[TodoItem]) -> list[Todo]:
    """``items`` as ``Todo``s with ids filled in, or ``ToolError`` naming every rule broken."""
    problems: list[str] = []
    empty = [str(i) for i, item in enumerate(items, 1) if not item.content.strip()]
    if empty:
        problems.append(
            f"item{'s' if len(empty) > 1 else ''} {', '.join(empty)} "
            f"{'have' if len(empty) > 1 else 'has'} empty content; say what the step is"
        )
    busy = [str(i) for i, item in enumerate(items, 1) if item.status == "in_progress"]
    if len(busy) > 1:
        problems.append(
            f"{len(busy)} items are in_progress (items {', '.join(busy)}); keep exactly one "
            "in progress: mark the others pending, or completed if they are done"
        )
    given = [item.id.strip() for item in items if item.id.strip()]
    repeated = sorted({i for i in given if given.count(i) > 1})
    if repeated:
        problems.append(f"ids repeat ({', '.join(repeated)}); give each item its own id")
    if problems:
        raise ToolError(
            "todo list not updated: " + "; ".join(problems),
            "todo list refused",
        )
    taken = set(given)
    todos: list[Todo] = []
    number = 0
    for item in items:
        ident = item.id.strip()
        if not ident:
            number += 1
            while str(number) in taken:
                number += 1
            ident = str(number)
            taken.add(ident)
        todos.append(Todo(content=item.content.strip(), status=item.status, id=ident))
    return todos


def _summary(todos: list[Todo]) -> str:
    if not todos:
        return "Todo list cleared."
    counts = [
        f"{sum(1 for t in todos if t.status == status)} {status.replace('_', ' ')}"
        for status in ("completed", "in_progress", "pending")
    ]
    head = f"Todo list updated: {len(todos)} item{'s' if len(todos) != 1 else ''} "
    lines = [head + f"({', '.join(counts)})"]
    lines.extend(f"{MARKERS[t.status]} {t.content}" for t in todos)
    return "\n".join(lines)


async def _execute(args: TodoWriteInput, ctx: ToolContext) -> ToolResult:
    todos = _validated(args.todos)
    ctx.state.todos = todos
    done = sum(1 for t in todos if t.status == "completed")
    brief = f"Todos: {done}/{len(todos)} done" if todos else "Todos cleared"
    return ToolResult.text(_summary(todos), brief=brief, display=TodoList(todos=list(todos)))


TOOL = define_tool(
    name="todo_write",
    description=DESCRIPTION,
    input_type=TodoWriteInput,
    execute=_execute,
    read_only=True,
    touches_files=False,
)

__all__ = ["DESCRIPTION", "MARKERS", "TOOL", "TodoItem", "TodoWriteInput"]
