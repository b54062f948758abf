"""Subagents: the ``spawn`` behind the ``task`` tool.

A child is another ``Agent`` on the same machinery with a fresh history (the agent's system
prompt and the prompt given) and the parent's gate (so its rules, session grants and mode),
approval and question callbacks, undo, model client and scope contract: the same objects,
so nothing a child does escapes what binds the parent. Its tools are the parent's, narrowed
by the agent's ``tools``; it gets ``task`` itself only while the depth limit allows (default
1: children cannot delegate). Read-only children run concurrently; a child that can change
things holds a lock, so such children run one at a time. An abort of the parent aborts the
child. The child's usage and cost are added to the parent's turn and session totals.

The parent's hooks bind the child too: its tool calls go through the same ``PreToolUse`` and
``PostToolUse`` hooks, and when it finishes ``SubagentStop`` hooks (matched against the
agent's name) run instead of ``Stop``; one that blocks sends the child back to work with its
reason, at most ``MAX_STOP_CONTINUES`` times. Their runs reach the sink and the transcript.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field, replace

import anyio

from earshot._base.json import JSONObject
from earshot.core.config.agents import BUILTIN_AGENT, AgentSpec
from earshot.core.effort import EffortPolicy, SessionEffort
from earshot.core.extend.lifecycle import SessionHooks, merged
from earshot.core.loop.agent import Agent
from earshot.core.loop.events import AgentEvent, ToolFinished, TurnEnded
from earshot.core.tools import task as task_tool
from earshot.core.tools.base import AnyTool, ToolError, ToolResult
from earshot.core.tools.display import FileChange, ShellExit
from earshot.providers.target import Target


@dataclass
class ChildRecord:
    """What a child did, for the parent's tool result and the front-ends."""

    agent: str
    changed: list[str] = field(default_factory=list)
    ran: list[str] = field(default_factory=list)
    denied: int = 0

    def text(self) -> str:
        lines = [f"[subagent {self.agent}"]
        lines.append(f" changed: {', '.join(self.changed)}" if self.changed else " changed nothing")
        if self.ran:
            lines.append(f"; ran: {'; '.join(self.ran[:10])}")
        if self.denied:
            lines.append(f"; {self.denied} call(s) denied")
        return "".join(lines) + "]"


def _effort(parent: Agent, spec: AgentSpec, target: Target) -> SessionEffort | None:
    """The child's reasoning effort: its agent file's ``effort``, else the parent's level
    (mapped onto the child's model)."""
    policy = parent.effort.policy if parent.effort is not None else EffortPolicy()
    if spec.effort is None and parent.effort is None:
        return None
    return SessionEffort(replace(policy, chosen=spec.effort or policy.chosen), target)


EventSink = Callable[[str, AgentEvent], None]
"""Sees every event of a child, with the child's agent name (for live progress)."""


class Subagents:
    """The spawn function of one agent: ``Subagents(parent, agents, resolve).spawn``."""

    def __init__(
        self,
        parent: Agent,
        agents: Sequence[AgentSpec],
        resolve: Callable[[str], Target],
        *,
        depth_limit: int = 1,
        depth: int = 0,
        sink: EventSink | None = None,
    ) -> None:
        self.parent = parent
        self.agents = {spec.name: spec for spec in agents} or {BUILTIN_AGENT.name: BUILTIN_AGENT}
        self.resolve = resolve
        self.depth_limit = depth_limit
        self.depth = depth
        self.sink = sink
        self._writer = anyio.Lock()

    def tool(self) -> AnyTool:
        return task_tool.make_tool([(s.name, s.description) for s in self.agents.values()])

    def _tools(self, spec: AgentSpec) -> list[AnyTool]:
        tools = [t for t in self.parent.tools.values() if t.name != task_tool.NAME]
        if spec.tools is not None:
            wanted = set(spec.tools)
            tools = [t for t in tools if t.name in wanted]
        return tools

    def read_only(self, spec: AgentSpec) -> bool:
        return all(t.read_only for t in self._tools(spec))

    async def spawn(self, description: str, prompt: str, agent: str | None) -> ToolResult:
        name = agent or BUILTIN_AGENT.name
        spec = self.agents.get(name)
        if spec is None:
            known = ", ".join(sorted(self.agents))
            raise ToolError(f"unknown agent {name!r}; the agents are: {known}")
        parent = self.parent
        try:
            target = self.resolve(spec.model) if spec.model else parent.target
        except Exception as exc:
            raise ToolError(f"agent {name!r} cannot run: {exc}", "agent model unavailable") from exc
        tools = self._tools(spec)
        child = Agent(
            target=target,
            tools=tools,
            cwd=parent.cwd,
            gate=parent.gate,
            system=spec.system,
            undo=parent.undo,
            approve=parent.approve,
            ask=parent.ask,
            model=parent.model,
            files=parent.files,
            procs=parent.procs,
            scope=parent.scope,
            max_output_tokens=parent.max_output_tokens,
            effort=_effort(parent, spec, target),
        )
        child.allowed = parent.allowed  # a command's allowed-tools bind its subagents too
        child.hooks, child.hook_info = parent.hooks, parent.hook_info
        child.record_hook = parent.record_hook
        if self.depth + 1 < self.depth_limit:
            nested = Subagents(
                child,
                list(self.agents.values()),
                self.resolve,
                depth_limit=self.depth_limit,
                depth=self.depth + 1,
                sink=self.sink,
            )
            child.tools[task_tool.NAME] = nested.tool()
            child.spawn = nested.spawn
        if self.read_only(spec):
            return await self._run(child, spec, prompt)
        async with self._writer:
            return await self._run(child, spec, prompt)

    async def _run(self, child: Agent, spec: AgentSpec, prompt: str) -> ToolResult:
        parent_abort = self.parent.abort_event
        record = ChildRecord(agent=spec.name)
        ended: TurnEnded | None = None
        if parent_abort.is_set():
            return ToolResult.error("interrupted before the subagent started", brief="interrupted")
        async with anyio.create_task_group() as tg:

            async def relay_abort() -> None:
                await parent_abort.wait()
                child.abort()

            tg.start_soon(relay_abort)
            try:
                async for event in self._rounds(child, spec, prompt):
                    if self.sink is not None:
                        self.sink(spec.name, event)
                    if isinstance(event, ToolFinished):
                        if isinstance(event.display, FileChange):
                            if event.display.path not in record.changed:
                                record.changed.append(event.display.path)
                        elif isinstance(event.display, ShellExit):
                            record.ran.append(event.display.command)
                    elif isinstance(event, TurnEnded):
                        self.parent.add_child_usage(event)
                        ended = event if ended is None else merged(ended, event)
            finally:
                tg.cancel_scope.cancel()
        if ended is None:
            return ToolResult.error("the subagent was interrupted", brief="interrupted")
        record.denied = len(ended.permission_denials)
        if ended.reason == "error":
            return ToolResult.error(
                f"the subagent failed: {ended.error}\n{record.text()}", brief="subagent failed"
            )
        if ended.reason == "aborted":
            text = ended.text or "(no report)"
            return ToolResult.error(
                f"the subagent was interrupted.\n{text}\n{record.text()}", brief="interrupted"
            )
        return ToolResult.text(
            f"{ended.text}\n\n{record.text()}",
            brief=f"{spec.name}: {len(record.changed)} file(s) changed",
        )

    def _rounds(self, child: Agent, spec: AgentSpec, prompt: str) -> AsyncIterator[AgentEvent]:
        """The child's turn, then more rounds while a ``SubagentStop`` hook blocks its stop
        (each round ends with its own ``TurnEnded``)."""
        hooks = SessionHooks(child.hooks, child.hook_info, child.cwd, child.record_hook)
        agent_id = uuid.uuid4().hex

        def payload(ended: TurnEnded, again: bool) -> JSONObject:
            return {
                "agent_id": agent_id,
                "agent_type": spec.name,
                "last_assistant_message": ended.text,
                "stop_hook_active": again,
            }

        return hooks.until_stopped(
            child.run_turn, prompt, "SubagentStop", payload, subject=spec.name
        )


__all__ = ["ChildRecord", "EventSink", "Subagents"]
