"""Headless output: how one turn's AgentEvents become earshot.v1 (``earshot -p``).

Shape::

    parse_output_format(str) -> OutputFormat      "text" | "json" | "stream-json" (+ "@v1")
    HeadlessRenderer(fmt, out, err, verbose=)
        .init(InitInfo)                           stream-json: the ``init`` record
        .event(AgentEvent)                        stream-json: records as they complete
        .finish(TurnEnded, ...) -> result record  every format: the final output
    exit_status(TurnEnded) -> 0 | 1 | 130

Contracts (docs/headless.md is the reference; the schema is ``headless/schema/earshot.v1.json``):

- Every JSON object written carries ``"schema": "earshot.v1"`` and a ``type``.
- ``json`` writes exactly one line to ``out``: the ``result`` record. ``stream-json`` writes
  one record per line, flushed as it happens, and its last line is that same ``result``.
  ``text`` writes only the final assistant text to ``out``; failures and (with ``verbose``)
  short progress lines go to ``err``. Nothing else is ever written to ``out``.
- Deltas are not records: a record is written when the thing it describes is complete.
- ``permission`` records carry the reason and rule, never the detail (diff, command) a
  person approving the call would see.
- The AgentEvent union is internal; this module is the one mapping from it to the promised
  records, so renaming an event never changes a record.
- A subagent's events become the same records as the parent's, written as they happen,
  each with ``parent_call_id``: the id of the ``task`` call that runs the child (for a
  child's child, the child's ``task`` call). A record without it is the main agent's.
  The children's refused calls join the ``result`` record's ``permission_denials``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TextIO, TypeAlias, assert_never

import msgspec

from earshot.core.loop.events import (
    AgentEvent,
    AssistantMessage,
    CompactionEnded,
    CompactionStarted,
    HookRan,
    ModelCallStarted,
    Notice,
    PermissionDecided,
    ReasoningDelta,
    SubagentEvent,
    TextDelta,
    ToolCallRequested,
    ToolCallStreaming,
    ToolFinished,
    ToolProgress,
    TurnEnded,
    TurnStarted,
    UserMessageInjected,
    VerificationRan,
    progress_text,
    result_text,
)
from earshot.core.tools.display import ScopeView
from earshot.headless._lines import denied_line, error_detail, failure_line
from earshot.providers.types import JSONObject, JSONValue, ReasoningPart, Usage, text_of

SCHEMA = "earshot.v1"

OutputFormat = Literal["text", "json", "stream-json"]
Record: TypeAlias = "dict[str, JSONValue]"

FORMATS: tuple[str, ...] = ("text", "json", "stream-json", "json@v1", "stream-json@v1")
"""Every spelling ``--output-format`` accepts. ``@v1`` names the contract explicitly and
means exactly what the bare name means."""

_BY_NAME: dict[str, OutputFormat] = {
    "text": "text",
    "json": "json",
    "stream-json": "stream-json",
    "json@v1": "json",
    "stream-json@v1": "stream-json",
}

EXIT_SUCCESS = 0
EXIT_FAILED = 1
EXIT_INTERRUPTED = 130


def parse_output_format(value: str) -> OutputFormat:
    """The format ``value`` names. Anything not in ``FORMATS`` (``json@v2``, ``yaml``, ``""``)
    raises ``ValueError`` with a one-line message; the CLI prints it and exits 2, never
    falling back to prose."""
    fmt = _BY_NAME.get(value)
    if fmt is not None:
        return fmt
    accepted = ", ".join(FORMATS)
    if "@" in value:
        base = value.partition("@")[0]
        if base in ("json", "stream-json"):
            raise ValueError(
                f"output format {value!r} is not implemented: this earshot writes "
                f"{SCHEMA} only ({base}@v1); accepted: {accepted}"
            )
    raise ValueError(f"unknown output format {value!r}; accepted: {accepted}")


def exit_status(ended: TurnEnded) -> int:
    """0 when the turn succeeded (``end_turn``), 130 when it was interrupted, 1 otherwise."""
    if ended.reason == "end_turn":
        return EXIT_SUCCESS
    if ended.reason == "aborted":
        return EXIT_INTERRUPTED
    return EXIT_FAILED


@dataclass(frozen=True)
class InitInfo:
    """What the ``init`` record reports about the session a headless run uses."""

    session_id: str
    model: str
    cwd: str
    tools: list[str]
    permission_mode: str
    version: str
    memory_files: list[str] = field(default_factory=list)
    effort: JSONObject | None = None


# --- record builders -----------------------------------------------------------------------


def _record(record_type: str, /, **fields: JSONValue) -> Record:
    return {"schema": SCHEMA, "type": record_type, **fields}


def _tokens(usage: Usage) -> Record:
    return {
        "input_tokens": usage.input,
        "output_tokens": usage.output,
        "cache_read_tokens": usage.cache_read,
        "cache_write_tokens": usage.cache_write,
        "reasoning_tokens": usage.reasoning,
    }


def _ms(value: float) -> int:
    return max(0, round(value))


def _init_record(info: InitInfo) -> Record:
    tools: list[JSONValue] = [*info.tools]
    memory: list[JSONValue] = [*info.memory_files]
    record = _record(
        "init",
        session_id=info.session_id,
        model=info.model,
        cwd=info.cwd,
        tools=tools,
        permission_mode=info.permission_mode,
        version=info.version,
        memory_files=memory,
    )
    if info.effort is not None:
        record["effort"] = info.effort
    return record


def _notice_record(event: Notice) -> Record:
    """A ``notice``; one announcing a retry adds ``attempt``, ``max_attempts``, ``reason``
    (the error kind), ``delay_ms`` and ``detail`` (the failure in full)."""
    retry = event.retry
    if retry is None:
        return _record("notice", level=event.level, message=event.message)
    return _record(
        "notice",
        level=event.level,
        message=event.message,
        attempt=retry.attempt,
        max_attempts=retry.max_attempts,
        reason=retry.kind,
        delay_ms=_ms(retry.delay_s * 1000),
        detail=retry.error,
    )


def _reasoning_text(event: AssistantMessage) -> str:
    texts = [p.text for p in event.message.parts if isinstance(p, ReasoningPart) and p.text]
    return "\n\n".join(texts)


def _usage_record(event: AssistantMessage) -> Record:
    return _record(
        "usage",
        model=event.model,
        **_tokens(event.usage),
        cost_usd=event.cost_usd,
        total_cost_usd=event.total_cost_usd,
    )


def _denials(ended: TurnEnded) -> list[JSONValue]:
    return [
        {"call_id": d.call_id, "tool": d.tool, "input": d.input, "reason": d.reason}
        for d in ended.permission_denials
    ]


def _obj(value: JSONValue) -> Record:
    return value if isinstance(value, dict) else {}


def _money(value: float | None) -> str:
    return "cost unknown" if value is None else f"${value:.4f}"


def _encode(record: Record) -> str:
    return msgspec.json.encode(record).decode()


# --- the renderer --------------------------------------------------------------------------


class HeadlessRenderer:
    """Turns one turn's events into output in ``fmt``. Call ``init`` once (optional in
    ``text``), ``event`` for each AgentEvent in order, then ``finish`` exactly once with the
    ``TurnEnded`` event (passing ``TurnEnded`` to ``event`` is harmless and writes nothing:
    ``finish`` writes the outcome)."""

    def __init__(
        self, fmt: OutputFormat, out: TextIO, err: TextIO, *, verbose: bool = False
    ) -> None:
        self._fmt: OutputFormat = fmt
        self._out = out
        self._err = err
        self._verbose = verbose
        self._unpriced: list[str] = []
        self._finished = False
        self._parent_call: str | None = None  # set while a subagent's event is rendered
        self._child_denials: list[JSONValue] = []

    # -- output channels --

    def _emit(self, record: Record) -> None:
        if self._parent_call is not None:
            record["parent_call_id"] = self._parent_call
        if self._fmt == "stream-json":
            self._out.write(_encode(record) + "\n")
            self._out.flush()

    def _say(self, line: str) -> None:
        """A short human line on ``err`` (only with ``verbose``)."""
        if self._verbose:
            if self._parent_call is not None:
                line = f"  [{self._parent_call}] {line}"
            self._err.write(line + "\n")
            self._err.flush()

    # -- the three calls --

    def init(self, info: InitInfo) -> None:
        self._emit(_init_record(info))
        self._say(f"[init] {info.model} in {info.cwd} (session {info.session_id})")

    def event(self, event: AgentEvent) -> None:
        match event:
            case (
                TurnStarted()
                | ModelCallStarted()
                | TextDelta()
                | ReasoningDelta()
                | ToolCallStreaming()
                | UserMessageInjected()
                | CompactionStarted()
                | TurnEnded()
            ):
                return
            case SubagentEvent():
                self._child(event)
            case CompactionEnded():
                self._emit(
                    _record(
                        "compaction",
                        reason=event.reason,
                        ok=event.ok,
                        tokens_before=event.tokens_before,
                        tokens_after=event.tokens_after,
                        message=event.message,
                    )
                )
                self._say(
                    f"[compaction] {event.reason}: {event.tokens_before} -> "
                    f"{event.tokens_after} tokens" + ("" if event.ok else f" ({event.message})")
                )
            case VerificationRan():
                self._emit(
                    _record(
                        "verification",
                        command=event.command,
                        passed=event.passed,
                        exit_code=event.exit_code,
                        round=event.round,
                        output=event.output,
                    )
                )
                self._say(f"[verify] {event.command}: {'passed' if event.passed else 'failed'}")
            case HookRan():
                self._emit(
                    _record(
                        "hook",
                        event=event.event,
                        command=event.command,
                        matcher=event.matcher,
                        source=event.source,
                        exit_code=event.exit_code,
                        duration_ms=_ms(event.duration_ms),
                        decision=event.decision,
                        output=event.output,
                    )
                )
                self._say(f"[{event.line}]")
            case AssistantMessage():
                self._completed_call(event)
            case ToolCallRequested(call=call, title=title):
                self._emit(_record("tool_call", id=call.id, name=call.name, input=call.input))
                self._say(f"[tool] {title or call.name}")
            case PermissionDecided():
                self._emit(
                    _record(
                        "permission",
                        call_id=event.call_id,
                        tool=event.tool,
                        decision=event.outcome,
                        reason=event.reason,
                        rule=event.rule,
                    )
                )
                if event.outcome == "deny":
                    self._say(f"[denied] {event.tool}: {event.reason}")
                elif event.asked:
                    self._say(f"[allowed] {event.tool}: {event.reason}")
            case ToolFinished(result=result, brief=brief):
                self._emit(
                    _record(
                        "tool_result",
                        call_id=result.call_id,
                        name=result.name,
                        is_error=result.is_error,
                        content=result_text(result),
                        brief=brief,
                        duration_ms=_ms(event.duration_ms),
                    )
                )
                mark = "[error]" if result.is_error else "[done]"
                self._say(f"{mark} {result.name}: {brief}")
                scope = event.display
                if isinstance(scope, ScopeView) and not result.is_error:
                    steps: list[JSONValue] = list(scope.steps)
                    paths: list[JSONValue] = list(scope.paths)
                    self._emit(_record("scope", goal=scope.goal, paths=paths, steps=steps))
            case ToolProgress(call_id=call_id, message=message, progress=done, total=total):
                self._emit(
                    _record(
                        "tool_progress",
                        call_id=call_id,
                        message=message,
                        progress=done,
                        total=total,
                    )
                )
                if done is not None:  # a count; a command's passing lines would flood stderr
                    self._say(f"[progress] {call_id}: {progress_text(event)}")
            case Notice(level=level, message=message, retry=retry):
                self._emit(_notice_record(event))
                if retry is not None and not self._verbose:
                    self._err.write(f"earshot: {message}: {retry.error}\n")
                    self._err.flush()
                    return
                if level == "warning" and not self._verbose:
                    self._err.write(f"earshot: warning: {message}\n")
                    self._err.flush()
                self._say(f"[{level}] {message}")
            case unreachable:
                assert_never(unreachable)

    def _child(self, wrapped: SubagentEvent) -> None:
        """A subagent's event: the records the main agent's would give, marked with the
        ``task`` call that runs the child (the innermost one, for a nested child)."""
        event: AgentEvent = wrapped
        parent = wrapped.parent_call_id
        while isinstance(event, SubagentEvent):
            parent, event = event.parent_call_id, event.event
        if isinstance(event, TurnEnded):
            self._child_denials += [
                {**_obj(denial), "parent_call_id": parent} for denial in _denials(event)
            ]
            return
        outer, self._parent_call = self._parent_call, parent
        try:
            self.event(event)
        finally:
            self._parent_call = outer

    def _completed_call(self, event: AssistantMessage) -> None:
        reasoning = _reasoning_text(event)
        if reasoning:
            self._emit(_record("reasoning", text=reasoning))
        text = text_of(event.message)
        if text:
            self._emit(_record("message", text=text))
        self._emit(_usage_record(event))
        if event.cost_usd is None and event.model not in self._unpriced:
            self._unpriced.append(event.model)
        u = event.usage
        self._say(
            f"[usage] {event.model}: {u.prompt_total} in, {u.output} out, "
            f"{_money(event.cost_usd)} (session {_money(event.total_cost_usd)})"
        )

    def _cost_note(self, ended: TurnEnded) -> str | None:
        if ended.cost_usd is not None and ended.total_cost_usd is not None:
            return None
        if self._unpriced:
            models = ", ".join(self._unpriced)
            return f"no prices in the model catalog for {models}; token counts are exact"
        return "cost unknown: a model used in this session has no prices in the catalog"

    def finish(
        self, ended: TurnEnded, *, session_id: str, duration_ms: float, num_turns: int
    ) -> Record:
        """Write the outcome and return the ``result`` record. ``json``: the record, alone on
        one line. ``stream-json``: an ``error`` record when the turn failed with one, then
        the record. ``text``: the final text on ``out``, and one line on ``err`` when the
        turn did not succeed."""
        if self._finished:
            raise RuntimeError("HeadlessRenderer.finish called twice")
        self._finished = True
        error = error_detail(ended)
        denials = [*_denials(ended), *self._child_denials]
        result = _record(
            "result",
            success=ended.reason == "end_turn" and ended.verification not in ("failed", "blocked"),
            stop_reason=ended.reason,
            text=ended.text,
            session_id=session_id,
            num_turns=num_turns,
            duration_ms=_ms(duration_ms),
            usage=_tokens(ended.usage),
            cost_usd=ended.cost_usd,
            total_cost_usd=ended.total_cost_usd,
            cost_note=self._cost_note(ended),
            permission_denials=denials,
            error=error,
            verification=ended.verification,
        )
        if error is not None:
            self._emit(_record("error", **error))
        match self._fmt:
            case "stream-json":
                self._emit(result)
            case "json":
                self._out.write(_encode(result) + "\n")
                self._out.flush()
            case "text":
                self._write_text(ended)
            case unreachable:
                assert_never(unreachable)
        return result

    def _write_text(self, ended: TurnEnded) -> None:
        if ended.text:
            self._out.write(ended.text if ended.text.endswith("\n") else ended.text + "\n")
            self._out.flush()
        denied = denied_line(ended)
        if denied:
            self._err.write(f"earshot: {denied}\n")
        failure = failure_line(ended)
        if failure:
            self._err.write(f"earshot: {failure}\n")
        self._err.flush()


def load_schema() -> JSONObject:
    """The published JSON Schema of every earshot.v1 record (package data)."""
    from importlib.resources import files

    text = files("earshot.headless.schema").joinpath("earshot.v1.json").read_text(encoding="utf-8")
    loaded: JSONObject = msgspec.json.decode(text)
    return loaded


__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_SUCCESS",
    "FORMATS",
    "SCHEMA",
    "HeadlessRenderer",
    "InitInfo",
    "OutputFormat",
    "exit_status",
    "load_schema",
    "parse_output_format",
]
