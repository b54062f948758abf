"""The assembler holds the stream invariants for every adapter."""

from __future__ import annotations

from earshot.providers.errors import ProviderError
from earshot.providers.types import (
    ErrorEvent,
    Finish,
    ReasoningPart,
    StreamEvent,
    TextDelta,
    TextPart,
    ToolCallEnd,
    ToolCallPart,
    ToolCallStart,
    Usage,
)
from earshot.providers.wire.assemble import Assembler, parse_arguments


def _terminal(events: list[StreamEvent]) -> list[StreamEvent]:
    return [e for e in events if isinstance(e, Finish | ErrorEvent)]


def test_parts_keep_their_start_order_and_metadata_namespace() -> None:
    asm = Assembler("anthropic")
    events: list[StreamEvent] = []
    events += asm.reasoning("think", key=0)
    asm.metadata("reasoning", 0, {"signature": "sig"})
    events += asm.text("Hel", key=1)
    events += asm.tool_start(2, "call_1", "read", None)
    events += asm.text("lo", key=1)
    events += asm.tool_delta(2, '{"path":')
    events += asm.tool_delta(2, '"a"}')
    events += asm.finish("stop")
    finish = events[-1]
    assert isinstance(finish, Finish)
    assert finish.reason == "tool_calls"
    assert finish.message.parts == [
        ReasoningPart(text="think", provider_metadata={"anthropic": {"signature": "sig"}}),
        TextPart(text="Hello"),
        ToolCallPart(id="call_1", name="read", input={"path": "a"}),
    ]
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Hel", "lo"]


def test_nothing_is_emitted_after_the_terminal_event() -> None:
    asm = Assembler("p")
    events = asm.text("a") + asm.finish("stop")
    events += asm.text("late") + asm.finish("stop") + asm.eof("stop") + asm.abort()
    events += asm.fail(ProviderError("server", "x"))
    assert len(_terminal(events)) == 1
    assert events[-1] == events[1]


def test_open_tool_calls_are_closed_before_finish() -> None:
    asm = Assembler("p")
    events = asm.tool_start(0, "c1", "ls") + asm.finish("stop")
    kinds = [type(e) for e in events]
    assert kinds == [ToolCallStart, ToolCallEnd, Finish]
    end = events[1]
    assert isinstance(end, ToolCallEnd)
    assert end.call.input == {}


def test_empty_runs_are_dropped_but_empty_text_with_metadata_is_kept() -> None:
    asm = Assembler("google")
    asm.text("", key="a")
    asm.text("", key="b")
    asm.metadata("text", "b", {"thoughtSignature": "s"})
    events = asm.finish("stop")
    finish = events[-1]
    assert isinstance(finish, Finish)
    assert finish.message.parts == [
        TextPart(text="", provider_metadata={"google": {"thoughtSignature": "s"}})
    ]


def test_eof_without_terminal_event_is_an_incomplete_answer_never_a_finish() -> None:
    asm = Assembler("p")
    events = asm.text("partial") + asm.eof("the end") + asm.eof("the end")
    assert len(_terminal(events)) == 1
    error = events[-1]
    assert isinstance(error, ErrorEvent)
    assert (error.kind, error.retryable) == ("stream_incomplete", True)
    assert "without the end" in error.message
    assert error.partial is not None and error.partial.parts == [TextPart(text="partial")]


def test_abort_drops_tool_calls_still_streaming() -> None:
    asm = Assembler("p")
    asm.text("working")
    asm.tool_start(0, "c1", "read")
    asm.tool_end(0, arguments='{"path": "x"}')
    asm.tool_start(1, "c2", "write")
    asm.tool_delta(1, '{"pa')
    finish = asm.abort()[-1]
    assert isinstance(finish, Finish)
    assert finish.reason == "aborted"
    assert [type(p) for p in finish.message.parts] == [TextPart, ToolCallPart]


def test_failure_carries_the_completed_parts() -> None:
    asm = Assembler("p")
    asm.text("half an answer")
    event = asm.fail(ProviderError("network", "reset"))[-1]
    assert isinstance(event, ErrorEvent)
    assert event.retryable
    assert event.partial is not None
    assert event.partial.parts == [TextPart(text="half an answer")]


def test_usage_is_reported_and_lands_on_finish() -> None:
    asm = Assembler("p")
    asm.set_usage(Usage(input=1))
    asm.set_usage(Usage(input=5, output=2))
    finish = asm.finish("length")[-1]
    assert isinstance(finish, Finish)
    assert finish.usage == Usage(input=5, output=2)
    assert finish.reason == "length"


def test_arguments_parse_leniently() -> None:
    assert parse_arguments("") == {}
    assert parse_arguments("  ") == {}
    assert parse_arguments('{"a": [1, 2]}') == {"a": [1, 2]}
    assert parse_arguments('{"a": ') == '{"a": '
