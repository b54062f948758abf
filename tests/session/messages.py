"""Small builders for the messages the session tests append."""

from __future__ import annotations

from earshot.providers.types import (
    JSONValue,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)


def user(text: str) -> Message:
    return Message(role="user", parts=[TextPart(text=text)])


def assistant(text: str = "", *calls: ToolCallPart) -> Message:
    parts: list[TextPart | ToolCallPart] = [TextPart(text=text)] if text else []
    return Message(role="assistant", parts=[*parts, *calls])


def call(call_id: str, name: str = "bash", **arguments: JSONValue) -> ToolCallPart:
    return ToolCallPart(id=call_id, name=name, input=dict(arguments))


def result(call_id: str, text: str, name: str = "bash", *, error: bool = False) -> Message:
    return Message(
        role="tool",
        parts=[
            ToolResultPart(
                call_id=call_id, name=name, content=[TextPart(text=text)], is_error=error
            )
        ],
    )


def thinking(text: str, signature: str) -> ReasoningPart:
    return ReasoningPart(text=text, provider_metadata={"anthropic": {"signature": signature}})


def texts(messages: list[Message]) -> list[str]:
    """Each message as ``role:text`` (tool calls and results by id) for compact asserts."""
    out: list[str] = []
    for m in messages:
        bits: list[str] = []
        for p in m.parts:
            if isinstance(p, TextPart):
                bits.append(p.text)
            elif isinstance(p, ToolCallPart):
                bits.append(f"call {p.id}")
            elif isinstance(p, ToolResultPart):
                bits.append(f"result {p.call_id}{' (error)' if p.is_error else ''}")
        out.append(f"{m.role}:{' + '.join(bits)}")
    return out
