"""OpenAI Chat Completions stream builders (``POST /v1/chat/completions``), also the shape
of OpenAI-compatible servers (OpenRouter, Groq, DeepSeek, Ollama, llama.cpp, vLLM).

Stream shape (``data:`` lines only, no ``event:`` lines)::

    chat.completion.chunk{choices[{index: 0, delta{role: "assistant", content: ""}}]}
    chat.completion.chunk{choices[{delta{reasoning_content | reasoning}}]}*   compat servers
    chat.completion.chunk{choices[{delta{content}}]}*
    chat.completion.chunk{choices[{delta{tool_calls[{index, id, type, function{name,
        arguments: ""}}]}}]}                 first fragment of a call: id + name
    chat.completion.chunk{choices[{delta{tool_calls[{index, function{arguments}}]}}]}*
    chat.completion.chunk{choices[{delta{}, finish_reason}]}
    chat.completion.chunk{choices: [], usage}     with stream_options.include_usage
    [DONE]

Errors: HTTP bodies ``{error: {message, type, param, code}}``; OpenRouter reports a failure
after HTTP 200 as a chunk with an ``error`` field and ``finish_reason: "error"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from earshot.providers.types import JSONValue
from tests.fake_provider._replies import Frame, RawReply, SSEReply, ToolCallSpec, split_text

DEFAULT_MODEL = "gpt-fake-1"
DEFAULT_COMPLETION_ID = "chatcmpl-fake01"
DONE = Frame(None, "[DONE]")

UsagePlacement = Literal["final_chunk", "finish_chunk", "none"]
ReasoningField = Literal["reasoning_content", "reasoning"]

ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "invalid_request_error",
    404: "invalid_request_error",
    429: "requests",
    500: "server_error",
    503: "server_error",
}
ERROR_CODES: dict[int, str | None] = {
    401: "invalid_api_key",
    404: "model_not_found",
    429: "rate_limit_exceeded",
}


@dataclass(frozen=True)
class Usage:
    """Chat usage: ``prompt_tokens`` includes ``cached_tokens``; ``completion_tokens``
    includes ``reasoning_tokens``; ``total_tokens`` is their sum."""

    prompt_tokens: int = 12
    completion_tokens: int = 7
    cached_tokens: int = 0
    reasoning_tokens: int = 0

    def payload(self) -> dict[str, JSONValue]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
            "prompt_tokens_details": {"cached_tokens": self.cached_tokens},
            "completion_tokens_details": {"reasoning_tokens": self.reasoning_tokens},
        }


DEFAULT_USAGE = Usage()


def chunk(
    delta: dict[str, JSONValue],
    *,
    finish_reason: str | None = None,
    usage: dict[str, JSONValue] | None = None,
    model: str = DEFAULT_MODEL,
    completion_id: str = DEFAULT_COMPLETION_ID,
) -> Frame:
    """One ``chat.completion.chunk`` with a single choice."""
    return Frame.of(
        {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
            "usage": usage,
        }
    )


def usage_chunk(
    usage: Usage = DEFAULT_USAGE,
    *,
    model: str = DEFAULT_MODEL,
    completion_id: str = DEFAULT_COMPLETION_ID,
) -> Frame:
    """The ``include_usage`` chunk: no choices, the whole usage."""
    return Frame.of(
        {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": model,
            "choices": [],
            "usage": usage.payload(),
        }
    )


def text_turn(
    text: str,
    *,
    chunks: int = 3,
    usage: Usage = DEFAULT_USAGE,
    usage_placement: UsagePlacement = "final_chunk",
    stop: str = "stop",
    model: str = DEFAULT_MODEL,
) -> SSEReply:
    return _turn(_content(text, chunks, model), usage, usage_placement, stop, model)


def reasoning_turn(
    reasoning: str,
    text: str,
    *,
    reasoning_field: ReasoningField = "reasoning_content",
    chunks: int = 3,
    usage: Usage = DEFAULT_USAGE,
    usage_placement: UsagePlacement = "final_chunk",
    stop: str = "stop",
    model: str = DEFAULT_MODEL,
) -> SSEReply:
    """Reasoning deltas in ``reasoning_field`` (DeepSeek, llama.cpp and vLLM use
    ``reasoning_content``; OpenRouter ``reasoning``), then the answer."""
    frames = _reasoning(reasoning, reasoning_field, chunks, model) + _content(text, chunks, model)
    return _turn(frames, usage, usage_placement, stop, model)


def tool_calls_turn(
    calls: Sequence[ToolCallSpec],
    *,
    text: str = "",
    reasoning: str = "",
    reasoning_field: ReasoningField = "reasoning_content",
    arg_chunks: int = 2,
    first_index: int = 0,
    chunks: int = 3,
    usage: Usage = DEFAULT_USAGE,
    usage_placement: UsagePlacement = "final_chunk",
    stop: str = "tool_calls",
    model: str = DEFAULT_MODEL,
) -> SSEReply:
    """Reasoning and text (if given), then the calls one after another: for call ``i`` at
    ``index = first_index + i`` (a proxy has been seen to start at 1), a first fragment with
    id, type, name and empty arguments, then ``arg_chunks`` argument fragments. A call with
    no arguments sends ``"{}"``."""
    frames: list[Frame] = []
    if reasoning:
        frames += _reasoning(reasoning, reasoning_field, chunks, model)
    if text:
        frames += _content(text, chunks, model)
    for offset, call in enumerate(calls):
        index = first_index + offset
        head: dict[str, JSONValue] = {
            "index": index,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        frames.append(chunk({"tool_calls": [head]}, model=model))
        for piece in split_text(call.arguments_json(), arg_chunks):
            fragment: dict[str, JSONValue] = {"index": index, "function": {"arguments": piece}}
            frames.append(chunk({"tool_calls": [fragment]}, model=model))
    return _turn(frames, usage, usage_placement, stop, model)


def error_body(
    status: int,
    message: str,
    *,
    error_type: str | None = None,
    code: str | None = None,
    param: str | None = None,
) -> dict[str, JSONValue]:
    return {
        "error": {
            "message": message,
            "type": error_type or ERROR_TYPES.get(status, "server_error"),
            "param": param,
            "code": code if code is not None else ERROR_CODES.get(status),
        }
    }


def error_reply(
    status: int,
    message: str,
    *,
    error_type: str | None = None,
    code: str | None = None,
    param: str | None = None,
    headers: dict[str, str] | None = None,
) -> RawReply:
    """An HTTP error. For 429 pass ``code="insufficient_quota"`` for an exhausted quota
    (not retryable) or keep the default ``rate_limit_exceeded``."""
    body = error_body(status, message, error_type=error_type, code=code, param=param)
    return RawReply.json(status, body, headers=headers)


def in_stream_error(
    text: str = "",
    *,
    message: str = "Provider disconnected unexpectedly",
    code: str | int = "server_error",
    done: bool = False,
    model: str = DEFAULT_MODEL,
) -> SSEReply:
    """OpenRouter's mid-stream failure after HTTP 200: some text (if given), then a chunk
    with a top-level ``error`` and ``finish_reason: "error"``; ``[DONE]`` only if ``done``."""
    frames = [chunk({"role": "assistant", "content": ""}, model=model)]
    if text:
        frames += _content(text, 3, model)
    frames.append(
        Frame.of(
            {
                "id": DEFAULT_COMPLETION_ID,
                "object": "chat.completion.chunk",
                "created": 1700000000,
                "model": model,
                "provider": "fake",
                "error": {"code": code, "message": message},
                "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}],
            }
        )
    )
    if done:
        frames.append(DONE)
    return SSEReply(frames)


def _content(text: str, chunks: int, model: str) -> list[Frame]:
    return [chunk({"content": piece}, model=model) for piece in split_text(text, chunks)]


def _reasoning(reasoning: str, field: ReasoningField, chunks: int, model: str) -> list[Frame]:
    return [chunk({field: piece}, model=model) for piece in split_text(reasoning, chunks)]


def _turn(
    body: list[Frame], usage: Usage, placement: UsagePlacement, stop: str, model: str
) -> SSEReply:
    frames = [chunk({"role": "assistant", "content": ""}, model=model), *body]
    finish_usage = usage.payload() if placement == "finish_chunk" else None
    frames.append(chunk({}, finish_reason=stop, usage=finish_usage, model=model))
    if placement == "final_chunk":
        frames.append(usage_chunk(usage, model=model))
    frames.append(DONE)
    return SSEReply(frames)
