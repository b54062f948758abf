"""Subagents: the ``spawn`` behind the ``task`` tool.

A child is another ``Agent`` on the same machinery with a fresh history (the agent's system
prompt and the prompt given) and the parent's gate (so its rules, session grants and mode),
approval and question callbacks, undo, model client and scope contract: the same objects,
so nothing a child does escapes what binds the parent. Its tools are the parent's, narrowed
by the agent's ``tools``; it gets ``task`` itself only while the depth limit allows (default
1: children cannot delegate). Read-only children run concurrently; a child that can change
things holds a lock, so such children run one at a time. An abort of the parent aborts the
child, which winds down (its model stream and tools stop) and still reports. The child's
usage and cost are added to the parent's turn and session totals, an aborted or cancelled
child's too (the calls it completed).

Every event of a child reaches the parent's stream live, as a ``SubagentEvent`` naming the
``task`` call (through the parent's ``LiveEvents``: ``core/loop/live.py``).

The parent's hooks bind the child too: its tool calls go through the same ``PreToolUse`` and
``PostToolUse`` hooks, and when it finishes ``SubagentStop`` hooks (matched against the
agent's name) run instead of ``Stop``; one that blocks sends the child back to work with its
reason (``SessionHooks.until_stopped``). Their runs are events of the child and entries of
the transcript. A command's ``allowed-tools`` binds the children its turn starts. The child
reasons at its agent file's ``effort``, else at the parent's level.
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
from earshot.core.extend.names import tool_aliases
from earshot.core.loop.agent import Agent, AgentConfig, AgentPorts
from earshot.core.loop.events import AgentEvent, SubagentEvent, ToolFinished, TurnEnded
from earshot.core.loop.ports import BranchingRecorder
from earshot.core.tools import task as task_tool
from earshot.core.tools.base import AnyTool, ToolError, ToolResult
from earshot.core.tools.display import FileChange, ShellExit
from earshot.core.tools.state import ToolState
from earshot.providers.target import Target


@dataclass(frozen=True)
class _Run:
    call_id: str
    description: str
    spec: AgentSpec


@dataclass
class ChildRecord:
    """What a child did, for the parent's tool result and the front-ends."""

    agent: str
    changed: list[str] = field(default_factory=list)
    ran: list[str] = field(default_factory=list)
    denied: int = 0

    def note(self, event: AgentEvent) -> None:
        """Keep what ``event`` (the child's, or a grandchild's) changed or ran."""
        while isinstance(event, SubagentEvent):
            event = event.event
        if not isinstance(event, ToolFinished):
            return
        if isinstance(event.display, FileChange):
            if event.display.path not in self.changed:
                self.changed.append(event.display.path)
        elif isinstance(event.display, ShellExit):
            self.ran.append(event.display.command)

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


EventSink = Callable[[AgentEvent], None]
"""Sees every event of a child, wrapped as a ``SubagentEvent`` (default: the parent's
``LiveEvents``, so the events reach the parent's stream)."""


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
        transcript: BranchingRecorder | None = None,
    ) -> None:
        self.parent = parent
        self.agents = {spec.name: spec for spec in agents} or {BUILTIN_AGENT.name: BUILTIN_AGENT}
        self.resolve = resolve
        self.depth_limit = depth_limit
        self.depth = depth
        self.sink: EventSink = sink if sink is not None else parent.live.put
        self.transcript = transcript
        self._writer = anyio.Lock()

    def tool(self) -> AnyTool:
        listed = [(s.name, s.description) for s in self.agents.values()]
        return task_tool.make_tool(listed, BUILTIN_AGENT.name)

    def _tools(self, spec: AgentSpec) -> list[AnyTool]:
        tools = [t for t in self.parent.tools.values() if t.name != task_tool.NAME]
        if spec.tools is not None:
            wanted = set(spec.tools)
            tools = [t for t in tools if wanted.intersection(tool_aliases(t.name))]
        unwanted = set(spec.disallowed)
        return [t for t in tools if not unwanted.intersection(tool_aliases(t.name))]

    def read_only(self, spec: AgentSpec) -> bool:
        return all(t.read_only for t in self._tools(spec))

    async def spawn(
        self, call_id: str, description: str, prompt: str, agent: str | None
    ) -> ToolResult:
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
        # its own files read and todo list; the parent's sandbox, passed-through variables
        # and background shells (the session kills those; the parent can read them)
        state = ToolState(
            pass_env=parent.state.pass_env,
            sandbox=parent.state.sandbox,
            shells=parent.state.shells,
        )
        child = Agent(
            AgentConfig(
                target=target,
                tools=tools,
                cwd=parent.cwd,
                system=spec.system,
                max_output_tokens=parent.max_output_tokens,
            ),
            AgentPorts(
                gate=parent.gate,
                model=parent.model,
                undo=parent.undo,
                approve=parent.approve,
                ask=parent.ask,
                files=parent.files,
                procs=parent.procs,
                scope=parent.scope,
                effort=_effort(parent, spec, target),
            ),
            state=state,
        )
        child.allowed = parent.allowed  # a command's allowed-tools bind its subagents too
        child.hooks, child.hook_info = parent.hooks, parent.hook_info
        child.record_hook = parent.record_hook
        run = _Run(call_id=call_id, description=description, spec=spec)
        if self.read_only(spec):
            return await self._run(child, run, prompt)
        async with self._writer:
            return await self._run(child, run, prompt)

    async def _begin(self, child: Agent, run: _Run) -> None:
        """Give ``child`` its transcript (a branch of the parent's) and, while the depth
        limit allows, a ``task`` tool of its own."""
        recorder: BranchingRecorder | None = None
        if self.transcript is not None:
            recorder = await self.transcript.subagent(run.call_id, run.spec.name, run.description)
            child.transcript = recorder
        if self.depth + 1 < self.depth_limit:
            nested = Subagents(
                child,
                list(self.agents.values()),
                self.resolve,
                depth_limit=self.depth_limit,
                depth=self.depth + 1,
                transcript=recorder,
            )
            child.add_tool(nested.tool())
            child.spawn = nested.spawn

    async def _run(self, child: Agent, run: _Run, prompt: str) -> ToolResult:
        spec = run.spec
        parent_abort = self.parent.abort_event
        record = ChildRecord(agent=spec.name)
        ended: TurnEnded | None = None
        if parent_abort.is_set():
            return ToolResult.error("interrupted before the subagent started", brief="interrupted")
        await self._begin(child, run)
        async with anyio.create_task_group() as tg:

            async def relay_abort() -> None:
                await parent_abort.wait()
                child.abort()

            tg.start_soon(relay_abort)
            try:
                async for event in self._rounds(child, spec, prompt):
                    self.sink(
                        SubagentEvent(
                            parent_call_id=run.call_id,
                            agent=spec.name,
                            description=run.description,
                            event=event,
                        )
                    )
                    if isinstance(event, TurnEnded):
                        ended = event if ended is None else merged(ended, event)
                    else:
                        record.note(event)
            finally:
                tg.cancel_scope.cancel()
                # the child's totals: every call it made, also when it was cut short
                self.parent.add_child_usage(child.total_usage, child.total_cost_usd)
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
