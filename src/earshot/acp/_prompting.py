"""One ``session/prompt``: a turn of the agent loop, or a slash command answered here.

``run_prompt`` runs ``Agent.run_turn`` and sends each event's updates as it comes (the
prompt's response leaves only after the last of them). ``InputError`` (an empty prompt,
images for a model without vision) arrives before anything is appended or sent and is an
invalid-params error; a model call that failed after retries is an internal error whose
message is the provider's, with the transcript left valid for the next prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from acp import RequestError
from acp.schema import AgentMessageChunk

from earshot.acp._options import command
from earshot.acp._updates import STOP_REASONS, AcpStopReason, Turn, text
from earshot.core.events import PermissionDecided, ToolFinished, TurnEnded
from earshot.core.input import InputError
from earshot.providers.types import ImagePart, TextPart

if TYPE_CHECKING:
    from earshot.acp._server import EarshotAcpAgent, Live

INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


async def run_prompt(
    server: EarshotAcpAgent, live: Live, parts: Sequence[TextPart | ImagePart]
) -> AcpStopReason:
    agent = live.setup.agent
    session = live.setup.session
    window = agent.target.info.context if agent.target.info is not None else 0

    def cost() -> float | None:
        return None if agent.total_cost_usd is None else session.cost_usd()

    turn = Turn(live.cwd, window, cost)
    prompter = live.prompter
    prompter.turn = turn
    ended: TurnEnded | None = None
    try:
        async for event in agent.run_turn(list(parts)):
            if isinstance(event, PermissionDecided):
                if event.tool == "ask_user" and event.outcome == "allow":
                    prompter.asking.append(event.call_id)
            elif isinstance(event, ToolFinished) and event.result.call_id in prompter.asking:
                prompter.asking.remove(event.result.call_id)
            elif isinstance(event, TurnEnded):
                ended = event
            for update in turn.on(event):
                await server.send(live, update)
    except InputError as exc:
        raise RequestError(INVALID_PARAMS, str(exc), None) from exc
    finally:
        prompter.turn = None
        prompter.asking.clear()
    if ended is None:  # pragma: no cover - run_turn always ends with TurnEnded
        raise RequestError(INTERNAL_ERROR, "the turn ended without a result", None)
    reason = STOP_REASONS[ended.reason]
    if reason is None:
        raise RequestError(
            INTERNAL_ERROR,
            f"the model call failed: {ended.error or 'unknown error'}",
            {"errorKind": ended.error_kind},
        )
    return reason


async def run_command(server: EarshotAcpAgent, live: Live, typed: str) -> bool:
    """Answer ``typed`` when it is one of the ACP slash commands; False sends it to the
    model as it is."""
    parsed = command(typed)
    if parsed is None:
        return False
    name, argument = parsed
    try:
        if name == "mode" and argument:
            await server.set_mode(live, argument)
        elif name == "model" and argument:
            await server.switch_model(live, argument)
        elif name == "effort" and argument:
            await server.set_effort(live, argument)
    except RequestError as exc:
        reply = str(exc)
    else:
        reply = _describe(name, live)
    chunk = AgentMessageChunk(session_update="agent_message_chunk", content=text(reply))
    await server.send(live, chunk)
    return True


def _describe(name: str, live: Live) -> str:
    agent = live.setup.agent
    if name == "mode":
        gate_mode = getattr(agent.gate, "mode", live.setup.mode)
        return f"Permission mode: {gate_mode}"
    if name == "model":
        return f"Model: {agent.target.ref}"
    if name == "effort":
        summary = agent.effort.choice.summary if agent.effort is not None else "none"
        return f"Effort: {summary}"
    usage = agent.total_usage
    cost = (
        "unknown (no prices for this model)"
        if agent.total_cost_usd is None
        else (f"${live.setup.session.cost_usd():.4f}")
    )
    return (
        f"Session cost: {cost}\n"
        f"Tokens since this editor connected: {usage.input:,} input, {usage.output:,} output, "
        f"{usage.cache_read:,} cache read, {usage.cache_write:,} cache write"
    )


__all__ = ["run_command", "run_prompt"]
