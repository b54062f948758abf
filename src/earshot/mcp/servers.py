"""The configured servers of one session, as a ``ToolSource`` (core/extensions.py).

::

    McpServers(configs, untrusted=, startup_timeout_ms=, tool_timeout_ms=, log_dir=)
      ready()          starts every server concurrently the first time; waits until all
                       have connected or failed, at most startup_timeout_ms from the start;
                       returns each failure (and the untrusted servers) once, as notices
      tools(window)    mcp__<server>__<tool> of every connected server (or the search tool
                       when they would take too much of the window: search.py)
      commands()       /mcp (status; /mcp reconnect NAME) and /mcp__<server>__<prompt>
      reconnect(name)  stop and start one server again
      aclose()         stop every server (a stdio server's process is ended)

Each server lives in its own task that holds the ``mcp.Client`` open until it is told to
stop, so the client is entered and left in one task, as anyio requires. A stdio server's
stderr goes to ``<log_dir>/<name>.log``, never to the terminal. The ``mcp`` package is
imported only when a server starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import anyio

from earshot.core.extensions import ExtraCommand, ExtraReply
from earshot.core.tools.base import AnyTool, ProgressFn, ToolResult
from earshot.mcp._tools import Call, McpTool, make_tool, to_result
from earshot.mcp.config import ExpansionError, ServerConfig
from earshot.mcp.search import SearchPolicy, offered
from earshot.providers.types import JSONObject

if TYPE_CHECKING:
    from mcp import Client
    from mcp.shared.dispatcher import ProgressFnT

Status = Literal["pending", "connected", "failed", "untrusted", "stopped"]
DEFAULT_STARTUP_TIMEOUT_MS = 10_000
DEFAULT_TOOL_TIMEOUT_MS = 600_000


@dataclass(frozen=True)
class Prompt:
    name: str
    description: str
    arguments: tuple[str, ...]


@dataclass
class Server:
    config: ServerConfig
    status: Status = "pending"
    error: str = ""
    tools: list[McpTool] = field(default_factory=list)
    prompts: list[Prompt] = field(default_factory=list)
    client: Client | None = None
    task: asyncio.Task[None] | None = None
    stop: anyio.Event = field(default_factory=anyio.Event)
    settled: anyio.Event = field(default_factory=anyio.Event)
    reported: bool = False


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_error_text(e) for e in exc.exceptions)
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _progress_relay(report: ProgressFn) -> ProgressFnT:
    """The ``mcp`` package's progress callback, feeding a call's progress reporter."""

    async def relay(progress: float, total: float | None, message: str | None) -> None:
        report(message or "", progress, total)

    return relay


def _connection_lost(exc: Exception) -> bool:
    from mcp import MCPError

    return not isinstance(exc, MCPError) or "connection closed" in str(exc).lower()


class McpServers:
    """See the module docstring."""

    def __init__(
        self,
        configs: Sequence[ServerConfig],
        *,
        untrusted: Sequence[ServerConfig] = (),
        startup_timeout_ms: int = DEFAULT_STARTUP_TIMEOUT_MS,
        tool_timeout_ms: int = DEFAULT_TOOL_TIMEOUT_MS,
        log_dir: Path,
        search: SearchPolicy | None = None,
        trust_hint: str = "earshot trust",
    ) -> None:
        self.servers: dict[str, Server] = {c.name: Server(c) for c in configs}
        for config in untrusted:
            self.servers[config.name] = Server(config, status="untrusted")
        self.startup_timeout_s = startup_timeout_ms / 1000.0
        self.tool_timeout_s = tool_timeout_ms / 1000.0
        self.log_dir = log_dir
        self.search = search or SearchPolicy()
        self.trust_hint = trust_hint
        self._started_at: float | None = None
        self._untrusted_reported = False
        self.found: set[str] = set()
        """Tools the search tool has shown; they are offered from then on."""

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> None:
        """Start every trusted server (needs a running event loop; idempotent)."""
        if self._started_at is not None:
            return
        self._started_at = time.monotonic()
        for server in self.servers.values():
            if server.status == "pending":
                server.task = asyncio.get_running_loop().create_task(self._run(server))

    async def ready(self) -> list[str]:
        self.start()
        assert self._started_at is not None
        remaining = self._started_at + self.startup_timeout_s - time.monotonic()
        with anyio.move_on_after(max(remaining, 0.0)):
            for server in self.servers.values():
                if server.status == "pending":
                    await server.settled.wait()
        return self._notices()

    def _notices(self) -> list[str]:
        notices: list[str] = []
        untrusted = [s.config.name for s in self.servers.values() if s.status == "untrusted"]
        if untrusted and not self._untrusted_reported:
            self._untrusted_reported = True
            notices.append(
                f"MCP servers of this project not started because the project is not trusted: "
                f"{', '.join(untrusted)}; review and trust them with `{self.trust_hint}`"
            )
        for server in self.servers.values():
            if server.reported or server.status not in ("failed", "pending"):
                continue
            server.reported = True
            if server.status == "pending":
                notices.append(
                    f"MCP server {server.config.name} did not start within "
                    f"{self.startup_timeout_s:g}s; going on without it "
                    f"(its tools appear if it starts later)"
                )
            else:
                notices.append(f"MCP server {server.config.name} failed: {server.error}")
        return notices

    async def aclose(self) -> None:
        for server in self.servers.values():
            server.stop.set()
        tasks = [s.task for s in self.servers.values() if s.task is not None]
        if tasks:
            with anyio.move_on_after(5) as scope:
                await asyncio.gather(*tasks, return_exceptions=True)
            if scope.cancelled_caught:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)

    async def reconnect(self, name: str) -> Server:
        server = self.servers[name]
        if server.status == "untrusted":
            return server
        server.stop.set()
        if server.task is not None:
            if server.status == "pending":  # still connecting: no need to wait for it
                server.task.cancel()
            with anyio.move_on_after(5):
                await asyncio.gather(server.task, return_exceptions=True)
            server.task.cancel()
        fresh = Server(server.config)
        self.servers[name] = fresh
        fresh.task = asyncio.get_running_loop().create_task(self._run(fresh))
        with anyio.move_on_after(self.startup_timeout_s):
            await fresh.settled.wait()
        fresh.reported = True
        return fresh

    # --- one server --------------------------------------------------------------------

    async def _run(self, server: Server) -> None:
        try:
            async with AsyncExitStack() as stack:
                config = server.config.expanded()
                client = await stack.enter_async_context(self._client(config, stack))
                await self._discover(server, client)
                server.client = client
                server.status = "connected"
                server.settled.set()
                await server.stop.wait()
        except ExpansionError as exc:
            server.status, server.error = "failed", str(exc)
        except Exception as exc:
            if server.status == "connected":
                server.status, server.error = "failed", f"disconnected: {_error_text(exc)}"
            else:
                server.status, server.error = "failed", _error_text(exc)
        finally:
            server.client = None
            if server.status in ("pending", "connected"):
                server.status = "stopped"
            server.settled.set()

    def _client(self, config: ServerConfig, stack: AsyncExitStack) -> Client:
        from mcp import Client, StdioServerParameters
        from mcp.types import Implementation

        from earshot import __version__

        info = Implementation(name="earshot", version=__version__)
        match config.transport:
            case "stdio":
                from mcp.client.stdio import stdio_client

                self.log_dir.mkdir(parents=True, exist_ok=True)
                log = stack.enter_context((self.log_dir / f"{config.name}.log").open("a"))
                params = StdioServerParameters(
                    command=config.command,
                    args=list(config.args),
                    env=config.env or None,
                    cwd=config.cwd,
                )
                return Client(stdio_client(params, errlog=log), client_info=info)
            case "http":
                import httpx2
                from mcp.client.streamable_http import streamable_http_client

                http = httpx2.AsyncClient(
                    headers=config.headers,
                    timeout=httpx2.Timeout(30, read=self.tool_timeout_s),
                    follow_redirects=True,
                )
                stack.push_async_callback(http.aclose)
                return Client(
                    streamable_http_client(config.url, http_client=http), client_info=info
                )
            case "sse":
                from mcp.client.sse import sse_client

                return Client(sse_client(config.url, headers=config.headers), client_info=info)

    async def _discover(self, server: Server, client: Client) -> None:
        name = server.config.name
        cursor: str | None = None
        tools: list[McpTool] = []
        taken: set[str] = set()
        while True:
            page = await client.list_tools(cursor=cursor)
            for tool in page.tools:
                schema: JSONObject = tool.input_schema
                call = self._caller(name, tool.name)
                made = make_tool(name, tool.name, tool.description, schema, call, taken)
                taken.add(made.name)
                tools.append(made)
            cursor = page.next_cursor
            if cursor is None:
                break
        server.tools = tools
        with contextlib.suppress(Exception):  # a server without prompts answers with an error
            listed = await client.list_prompts()
            server.prompts = [
                Prompt(
                    name=p.name,
                    description=p.description or "",
                    arguments=tuple(a.name for a in p.arguments or ()),
                )
                for p in listed.prompts
            ]

    def _caller(self, server_name: str, tool: str) -> Call:
        async def call(arguments: JSONObject, progress: ProgressFn) -> ToolResult:
            server = self.servers.get(server_name)
            client = server.client if server is not None else None
            if server is None or client is None:
                why = f": {server.error}" if server is not None and server.error else ""
                return ToolResult.error(
                    f"the MCP server {server_name} is not connected{why}; "
                    "do without this tool or ask the user to reconnect it (/mcp)",
                    brief=f"{server_name} not connected",
                )
            try:
                with anyio.fail_after(self.tool_timeout_s):
                    result = await client.call_tool(
                        tool, dict(arguments), progress_callback=_progress_relay(progress)
                    )
            except TimeoutError:
                return ToolResult.error(
                    f"{tool} on the MCP server {server_name} gave no result within "
                    f"{self.tool_timeout_s:g}s (mcpToolTimeoutMs); it was cancelled",
                    brief="timed out",
                )
            except Exception as exc:
                if _connection_lost(exc):
                    server.status, server.error = "failed", f"disconnected: {_error_text(exc)}"
                    server.reported = True
                    server.stop.set()
                return ToolResult.error(
                    f"{tool} on the MCP server {server_name} failed: {_error_text(exc)}",
                    brief=f"{server_name} failed",
                )
            return to_result(result, server=server_name, tool=tool)

        return call

    # --- what the session sees ------------------------------------------------------------

    def all_tools(self) -> list[McpTool]:
        return [t for s in self.servers.values() if s.status == "connected" for t in s.tools]

    def tools(self, window: int) -> Sequence[AnyTool]:
        return offered(self.all_tools(), window, self.search, self.found)

    def commands(self) -> Sequence[ExtraCommand]:
        commands = [
            ExtraCommand(
                name="mcp",
                about="MCP servers: status; /mcp reconnect NAME",
                run=self._mcp_command,
                hint="reconnect NAME",
            )
        ]
        for server in self.servers.values():
            if server.status != "connected":
                continue
            for prompt in server.prompts:
                commands.append(
                    ExtraCommand(
                        name=f"mcp__{server.config.name}__{prompt.name}",
                        about=prompt.description or f"prompt of the {server.config.name} server",
                        run=self._prompt_runner(server.config.name, prompt),
                        hint=" ".join(prompt.arguments),
                        everywhere=True,
                    )
                )
        return commands

    def status_lines(self) -> list[str]:
        rows = []
        for server in self.servers.values():
            c = server.config
            detail = f" - {server.error}" if server.error else ""
            count = f", {len(server.tools)} tools" if server.status == "connected" else ""
            rows.append(f"  {c.name}  [{c.scope}, {c.transport}] {server.status}{count}{detail}")
        return rows

    async def _mcp_command(self, arg: str) -> ExtraReply:
        verb, _, name = arg.strip().partition(" ")
        if verb == "reconnect":
            name = name.strip()
            if name not in self.servers:
                known = ", ".join(self.servers) or "none"
                return ExtraReply(text=f"no MCP server {name!r} (servers: {known})", error=True)
            server = await self.reconnect(name)
            if server.status == "untrusted":
                return ExtraReply(
                    text=f"{name} is not trusted: run `{self.trust_hint}`", error=True
                )
            if server.status != "connected":
                return ExtraReply(
                    text=f"{name}: {server.status} {server.error}".strip(), error=True
                )
            return ExtraReply(text=f"{name}: connected, {len(server.tools)} tools")
        if verb:
            return ExtraReply(text="usage: /mcp, or /mcp reconnect NAME", error=True)
        if not self.servers:
            return ExtraReply(text="no MCP servers configured (earshot mcp add)")
        return ExtraReply(text="MCP servers:\n" + "\n".join(self.status_lines()))

    def _prompt_runner(
        self, server_name: str, prompt: Prompt
    ) -> Callable[[str], Awaitable[ExtraReply]]:
        async def run(arg: str) -> ExtraReply:
            server = self.servers.get(server_name)
            client = server.client if server is not None else None
            if client is None:
                return ExtraReply(text=f"the MCP server {server_name} is not connected", error=True)
            words = arg.split()
            values = dict(zip(prompt.arguments, words, strict=False))
            if len(words) > len(prompt.arguments) and prompt.arguments:
                values[prompt.arguments[-1]] = " ".join(words[len(prompt.arguments) - 1 :])
            try:
                result = await client.get_prompt(prompt.name, values)
            except Exception as exc:
                return ExtraReply(text=f"{prompt.name}: {_error_text(exc)}", error=True)
            from mcp.types import TextContent

            texts = [m.content.text for m in result.messages if isinstance(m.content, TextContent)]
            return ExtraReply(send="\n\n".join(texts))

        return run


__all__ = ["DEFAULT_STARTUP_TIMEOUT_MS", "DEFAULT_TOOL_TIMEOUT_MS", "McpServers", "Server"]
