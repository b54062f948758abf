"""What a command file or skill changes for the one turn it starts, from its front matter::

    model: groq/llama-3.3-70b-versatile     that turn's model (the one in use comes back)
    effort: high                            that turn's reasoning effort (off|low|medium|high|max)
    allowed-tools: Bash(git add:*), Read    narrows that turn's tools (``allowed.py``)

``read_overrides`` raises ``FrontMatterError`` naming the file and the field at fault.
``AgentSession.for_next_turn`` keeps them for the next turn; ``applied`` holds them over
that turn and puts back the model, the effort and the tools after it, however it ends.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import msgspec

from earshot.core.extend.allowed import AllowedTools, parse_allowed
from earshot.core.extend.frontmatter import Document, FrontMatterError, list_field, text_field
from earshot.core.loop.agent import Agent
from earshot.providers.effort import EffortLevel, parse_effort


class TurnOverrides(msgspec.Struct, frozen=True):
    """None of them set: the turn runs as the session does."""

    model: str = ""
    allowed: AllowedTools | None = None
    effort: EffortLevel | None = None


def read_overrides(
    doc: Document, path: Path, where: str, *, implied: Sequence[str] = ()
) -> TurnOverrides:
    """The ``model``, ``effort`` and ``allowed-tools`` of ``doc`` (read from ``path``);
    ``where`` names the command in a refusal (``/commit``); ``implied``: tools its turn
    keeps whatever ``allowed-tools`` says."""
    effort_text = text_field(doc, "effort", path).strip()
    try:
        where_effort = f"{path}: front matter field 'effort'"
        effort = parse_effort(effort_text, where=where_effort) if effort_text else None
    except ValueError as exc:
        raise FrontMatterError(str(exc)) from exc
    try:
        allowed = parse_allowed(list_field(doc, "allowed-tools"), where, implied=implied)
    except ValueError as exc:
        raise FrontMatterError(f"{path}: front matter field 'allowed-tools': {exc}") from exc
    return TurnOverrides(text_field(doc, "model", path).strip(), allowed, effort)


@asynccontextmanager
async def applied(
    overrides: TurnOverrides, agent: Agent, switch_model: Callable[[str], Awaitable[object]]
) -> AsyncIterator[None]:
    """``overrides`` in force on ``agent`` for the body (``switch_model`` resolves a model
    reference, as ``/model`` does); afterwards the model, effort and tools of before."""
    old_target = agent.target
    effort = agent.effort
    old_level = effort.policy.chosen if effort is not None else None
    try:
        if overrides.model:
            await switch_model(overrides.model)
        if overrides.effort is not None and effort is not None:
            effort.policy.chosen = overrides.effort
            effort.retarget(agent.target)
        agent.allowed = overrides.allowed
        yield
    finally:
        agent.allowed = None
        if agent.target is not old_target:
            await agent.switch_model(old_target)
        if overrides.effort is not None and effort is not None:
            effort.policy.chosen = old_level
            effort.retarget(agent.target)
            await effort.record(agent.transcript)


__all__ = ["TurnOverrides", "applied", "read_overrides"]
