"""Shared pieces for agent-loop tests: one scripted scenario per wire, test tools, a gate."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Annotated

import anyio
import msgspec

from earshot.core.loop.agent import Agent, AgentConfig, AgentPorts
from earshot.core.loop.events import AgentEvent, TurnEnded
from earshot.core.loop.model import ProviderModel
from earshot.core.permissions import Mode
from earshot.core.tools.base import (
    AnyTool,
    PermissionRequest,
    ToolContext,
    ToolError,
    ToolResult,
    define_tool,
)
from earshot.providers import types as pt
from earshot.providers.models import Cost, ModelInfo
from earshot.providers.retry import RetryPolicy
from earshot.providers.target import AuthStyle, Secret, Target, WireName
from tests.fake_provider import (
    FakeProvider,
    SSEReply,
    ToolCallSpec,
    anthropic,
    gemini,
    openai_chat,
    openai_responses,
)


@dataclass(frozen=True)
class WireCase:
    name: str
    wire: WireName
    provider: str
    auth: AuthStyle
    builders: ModuleType

    def target(self, fake: FakeProvider, *, vision: bool = True) -> Target:
        info = ModelInfo(
            id="test-model",
            provider=self.provider,
            context=200_000,
            max_output=8192,
            vision=vision,
            tool_call=True,
            cost=Cost(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
        )
        return Target(
            provider=self.provider,
            wire=self.wire,
            base_url=fake.base_url + ("/v1" if self.wire.startswith("openai") else ""),
            model="test-model",
            auth=self.auth,
            api_key=Secret("test-key"),
            info=info,
        )

    def text(self, text: str) -> SSEReply:
        reply: SSEReply = self.builders.text_turn(text)
        return reply

    def calls(self, *calls: ToolCallSpec, text: str = "") -> SSEReply:
        reply: SSEReply = self.builders.tool_calls_turn(list(calls), text=text)
        return reply


WIRES = [
    WireCase("anthropic", "anthropic-messages", "anthropic", "x-api-key", anthropic),
    WireCase("openai-chat", "openai-chat", "openai", "bearer", openai_chat),
    WireCase("openai-responses", "openai-responses", "openai", "bearer", openai_responses),
    WireCase("gemini", "google-gemini", "google", "x-goog-api-key", gemini),
]


@dataclass(frozen=True)
class _Part:
    command: str


@dataclass(frozen=True)
class _Decision:
    outcome: str
    reason: str
    rule: str | None = None
    commands: tuple[_Part, ...] = ()
    changes_nothing: bool = False


@dataclass
class ScriptedGate:
    """Allows everything except tools named in ``deny``; ``ask`` tools need approval."""

    deny: set[str] = field(default_factory=set)
    ask: set[str] = field(default_factory=set)
    mode: Mode = "ask"
    deny_commands: set[str] = field(default_factory=set)
    granted: list[PermissionRequest] = field(default_factory=list)

    def check(self, request: PermissionRequest, *, read_only: bool) -> _Decision:
        if request.tool in self.deny or request.command in self.deny_commands:
            return _Decision("deny", f"{request.tool} is denied by a test rule", "Test(deny)")
        if request.tool in self.ask and request not in self.granted:
            return _Decision("ask", "needs approval")
        return _Decision("allow", "allowed")

    def grant_session(self, request: PermissionRequest) -> None:
        self.granted.append(request)

    def denies_reads(self, tool: str) -> bool:
        return False

    def read_denial(self, tool: str, path: Path, *, real: bool = False) -> str | None:
        return None


class EchoArgs(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    text: Annotated[str, msgspec.Meta(description="Text to echo")]
    delay: float = 0.0


@dataclass
class Recorder:
    started: list[str] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)
    running: int = 0
    peak: int = 0
    any_started: anyio.Event = field(default_factory=anyio.Event)


def sample_tools(recorder: Recorder) -> list[AnyTool]:
    async def echo(args: EchoArgs, ctx: ToolContext) -> ToolResult:
        recorder.started.append(args.text)
        recorder.any_started.set()
        recorder.running += 1
        recorder.peak = max(recorder.peak, recorder.running)
        try:
            if args.delay:
                await anyio.sleep(args.delay)
        finally:
            recorder.running -= 1
        recorder.finished.append(args.text)
        return ToolResult.text(f"echo: {args.text}")

    async def boom(args: EchoArgs, ctx: ToolContext) -> ToolResult:
        raise RuntimeError(f"kaboom {args.text}")

    async def refuse(args: EchoArgs, ctx: ToolContext) -> ToolResult:
        raise ToolError(f"cannot do {args.text}; try echo instead", "refused")

    async def touch(args: EchoArgs, ctx: ToolContext) -> ToolResult:
        recorder.started.append(f"touch {args.text}")
        recorder.running += 1
        recorder.peak = max(recorder.peak, recorder.running)
        try:
            if args.delay:
                await anyio.sleep(args.delay)
            ctx.files.write_bytes(ctx.resolve(args.text), b"touched\n")
        finally:
            recorder.running -= 1
        return ToolResult.text(f"touched {args.text}")

    def touch_permission(args: EchoArgs, ctx: ToolContext) -> PermissionRequest:
        return PermissionRequest(
            tool="touch", kind="edit", paths=(ctx.resolve(args.text),), detail=args.text
        )

    tools: list[AnyTool] = [
        define_tool(
            name="echo",
            description="Echo.",
            input_type=EchoArgs,
            execute=echo,
            read_only=True,
            touches_files=False,
        ),
        define_tool(
            name="boom",
            description="Fails.",
            input_type=EchoArgs,
            execute=boom,
            read_only=True,
            touches_files=False,
        ),
        define_tool(
            name="refuse",
            description="Refuses.",
            input_type=EchoArgs,
            execute=refuse,
            read_only=True,
            touches_files=False,
        ),
        define_tool(
            name="touch",
            description="Create a file.",
            input_type=EchoArgs,
            execute=touch,
            read_only=False,
            permission=touch_permission,
        ),
    ]
    return tools


FAST_RETRY = RetryPolicy(base_delay=0.01, max_retries=1)
FAST_MODEL = ProviderModel(retry=FAST_RETRY)
"""The providers over HTTP with one quick retry."""


def make_agent(
    case: WireCase,
    fake: FakeProvider,
    cwd: Path,
    tools: Sequence[AnyTool],
    *,
    gate: ScriptedGate | None = None,
) -> Agent:
    return Agent(
        AgentConfig(target=case.target(fake), tools=tools, cwd=cwd, system="You are a test agent."),
        AgentPorts(gate=gate or ScriptedGate(), model=FAST_MODEL),
    )


def ended(events: list[AgentEvent]) -> TurnEnded:
    last = events[-1]
    assert isinstance(last, TurnEnded)
    assert sum(isinstance(e, TurnEnded) for e in events) == 1
    return last


def tool_results(agent: Agent) -> list[pt.ToolResultPart]:
    return [
        part
        for message in agent.history
        if message.role == "tool"
        for part in message.parts
        if isinstance(part, pt.ToolResultPart)
    ]


async def run(
    agent: Agent, prompt: str, on_event: Callable[[AgentEvent], None] | None = None
) -> list[AgentEvent]:
    events: list[AgentEvent] = []
    async for event in agent.run_turn(prompt):
        events.append(event)
        if on_event is not None:
            on_event(event)
    return events
