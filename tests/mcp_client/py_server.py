"""A small real MCP server built on the ``mcp`` package's own server side, for the tests.

    python py_server.py stdio              serve on stdin/stdout
    python py_server.py http PORT          serve streamable HTTP on 127.0.0.1:PORT/mcp

Tools: ``add`` (a + b, structured), ``fail`` (an error result), ``slow`` (sleeps; writes
the markers ``slow-started``, then ``slow-cancelled`` or ``slow-finished`` into
``MARKER_DIR``), ``die`` (the process exits mid-call), ``echo_env`` (an environment
variable), ``peek`` (annotated read-only), ``steps`` (reports progress "step N of M",
N of M, then waits for the marker ``go-N`` in ``MARKER_DIR`` before the next step).
Prompt: ``review`` (one argument ``topic``). ``LONG_NAMES=1`` adds two tools whose names
share their first 70 characters.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import anyio
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

server = MCPServer("pytest-server")
MARKERS = Path(os.environ.get("MARKER_DIR", "."))


def _mark(name: str) -> None:
    (MARKERS / name).write_text(str(time.time()))


@server.tool(description="Add two integers and return the sum.")
def add(a: int, b: int) -> int:
    return a + b


@server.tool(description="Always fails with an error result.")
def fail(reason: str) -> str:
    raise ToolError(f"cannot do that: {reason}")


@server.tool(description="Sleep for a number of seconds, then say done.")
async def slow(seconds: float) -> str:
    _mark("slow-started")
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        _mark("slow-cancelled")
        raise
    _mark("slow-finished")
    return "done"


@server.tool(description="Work in steps, reporting progress after each.")
async def steps(count: int, ctx: Context) -> str:
    for step in range(1, count + 1):
        await ctx.report_progress(step, count, f"step {step} of {count}")
        go = MARKERS / f"go-{step}"
        for _ in range(3000):  # the test writes the marker once it saw the report
            if go.exists():
                break
            await anyio.sleep(0.02)
        else:
            raise ToolError(f"nobody wrote {go}")
    return f"{count} steps done"


@server.tool(description="Exit the server process in the middle of the call.")
def die() -> str:
    sys.stderr.write("dying on purpose\n")
    sys.stderr.flush()
    os._exit(3)


@server.tool(description="The value of an environment variable of the server.")
def echo_env(name: str) -> str:
    return os.environ.get(name, "(unset)")


@server.tool(
    description="Read a value; the server says it is read-only.",
    annotations=ToolAnnotations(read_only_hint=True),
)
def peek(key: str) -> str:
    return f"value of {key}"


@server.prompt(description="Ask for a review of a topic.")
def review(topic: str) -> str:
    return f"Please review {topic} carefully."


def _recorder(n: int) -> Callable[[str, str, str, str], str]:
    def record(project: str, title: str, body: str = "", labels: str = "") -> str:
        return f"recorded {title} in {project} ({n})"

    return record


def _many(count: int) -> None:
    """``MANY_TOOLS=N``: N more tools, each with a schema and description of typical size
    (what a large server such as an issue tracker's offers)."""
    for index in range(count):
        server.add_tool(
            _recorder(index),
            name=f"record_{index:03d}",
            description=(
                f"Create or update record kind {index} in a project: give the project key, "
                "a title, an optional markdown body and comma-separated labels. Returns the "
                "record's key and URL."
            ),
        )


LONG = "summarize_the_quarterly_financial_report_for_the_board_of_directors_meeting"


def _long_names() -> None:
    for edition in ("draft", "final"):

        def summarize(edition: str = edition) -> str:
            return f"the {edition} summary"

        server.add_tool(summarize, name=f"{LONG}_{edition}", description=f"The {edition}.")


if __name__ == "__main__":
    _many(int(os.environ.get("MANY_TOOLS", "0")))
    if os.environ.get("LONG_NAMES"):
        _long_names()
    sys.stderr.write("pytest-server starting\n")
    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
