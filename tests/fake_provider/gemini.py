"""Gemini stream builders (``POST /v1beta/models/{model}:streamGenerateContent?alt=sse``).

Stream shape (``data:`` lines only; no ``event:`` lines, no ``[DONE]``); every chunk is a
whole ``GenerateContentResponse``::

    {candidates[{content{role: "model", parts}, index: 0, finishReason?}],
     usageMetadata, modelVersion, responseId}

    parts, in order:  {text, thought: true}*          thought summary
                      {text}*                         answer deltas, concatenated
                      {functionCall{name, args?, id?}, thoughtSignature?}*   whole calls; the
                                                      signature only on the first
                      {text: "", thoughtSignature}    trailing part with finishReason

``usageMetadata`` repeats in every chunk with a growing ``candidatesTokenCount``; the last
one is final. ``finishReason`` is "STOP" even after function calls.
Errors: ``{error: {code, message, status, details[]}}``; the wait before a retry is a
``google.rpc.RetryInfo`` entry's ``retryDelay`` ("34.4s"), not a header.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from earshot.providers.types import JSONValue
from tests.fake_provider._replies import Frame, RawReply, SSEReply, ToolCallSpec, split_text

DEFAULT_MODEL = "gemini-fake-1"
DEFAULT_RESPONSE_ID = "fakeResponseId01"
DEFAULT_SIGNATURE = "CiQBfakeThoughtSignature=="

STATUSES: dict[int, str] = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


@dataclass(frozen=True)
class Usage:
    """Gemini usage: ``prompt_token_count`` includes ``cached_content_token_count``;
    thoughts are counted apart from candidates; the total adds prompt, candidates and
    thoughts."""

    prompt_token_count: int = 12
    candidates_token_count: int = 7
    thoughts_token_count: int = 0
    cached_content_token_count: int = 0

    def payload(self, candidates: int | None = None) -> dict[str, JSONValue]:
        shown = self.candidates_token_count if candidates is None else candidates
        usage: dict[str, JSONValue] = {
            "promptTokenCount": self.prompt_token_count,
            "candidatesTokenCount": shown,
            "totalTokenCount": self.prompt_token_count + shown + self.thoughts_token_count,
        }
        if self.thoughts_token_count:
            usage["thoughtsTokenCount"] = self.thoughts_token_count
        if self.cached_content_token_count:
            usage["cachedContentTokenCount"] = self.cached_content_token_count
        return usage


DEFAULT_USAGE = Usage()


def chunk(
    parts: list[JSONValue],
    *,
    finish_reason: str | None = None,
    usage: dict[str, JSONValue] | None = None,
    model: str = DEFAULT_MODEL,
) -> Frame:
    """One ``GenerateContentResponse`` with a single candidate."""
    candidate: dict[str, JSONValue] = {"content": {"parts": parts, "role": "model"}, "index": 0}
    if finish_reason is not None:
        candidate["finishReason"] = finish_reason
    payload: dict[str, JSONValue] = {"candidates": [candidate]}
    if usage is not None:
        payload["usageMetadata"] = usage
    payload["modelVersion"] = model
    payload["responseId"] = DEFAULT_RESPONSE_ID
    return Frame.of(payload)


def function_call_part(call: ToolCallSpec, *, with_id: bool = False) -> dict[str, JSONValue]:
    """A whole call; ``args`` is left out when the call has no arguments, and ``id`` is
    sent only ``with_id`` (the Gemini API mostly omits it)."""
    function_call: dict[str, JSONValue] = {"name": call.name}
    if call.arguments:
        function_call["args"] = call.arguments
    if with_id:
        function_call["id"] = call.id
    return {"functionCall": function_call}


def text_turn(
    text: str,
    *,
    chunks: int = 3,
    thought_signature: str | None = DEFAULT_SIGNATURE,
    usage: Usage = DEFAULT_USAGE,
    stop: str = "STOP",
    model: str = DEFAULT_MODEL,
) -> SSEReply:
    """Text deltas, then (with a ``thought_signature``, as Gemini 3 sends) an empty text part
    carrying the signature and ``finishReason``; without one the last delta finishes."""
    parts: list[list[JSONValue]] = [[{"text": piece}] for piece in split_text(text, chunks)]
    return _turn(parts, thought_signature, usage, stop, model)


def reasoning_turn(
    reasoning: str,
    text: str,
    *,
    thought_signature: str | None = DEFAULT_SIGNATURE,
    chunks: int = 3,
    usage: Usage = DEFAULT_USAGE,
    stop: str = "STOP",
    model: str = DEFAULT_MODEL,
) -> SSEReply:
    """Thought-summary parts (``thought: true``), then text, then the signature part."""
    parts = _thoughts(reasoning, chunks)
    parts += [[{"text": piece}] for piece in split_text(text, chunks)]
    return _turn(parts, thought_signature, usage, stop, model)


def tool_calls_turn(
    calls: Sequence[ToolCallSpec],
    *,
    text: str = "",
    reasoning: str = "",
    thought_signature: str | None = DEFAULT_SIGNATURE,
    with_ids: bool = False,
    separate_chunks: bool = False,
    chunks: int = 3,
    usage: Usage = DEFAULT_USAGE,
    stop: str = "STOP",
    model: str = DEFAULT_MODEL,
) -> SSEReply:
    """Thoughts and text (if given), then every call in one chunk (or one chunk each with
    ``separate_chunks``); only the first functionCall part carries ``thought_signature``.
    Ends with an empty text part and ``finishReason`` "STOP"."""
    parts = _thoughts(reasoning, chunks) if reasoning else []
    if text:
        parts += [[{"text": piece}] for piece in split_text(text, chunks)]
    call_parts = [function_call_part(call, with_id=with_ids) for call in calls]
    if call_parts and thought_signature is not None:
        call_parts[0]["thoughtSignature"] = thought_signature
    if separate_chunks:
        parts += [[part] for part in call_parts]
    elif call_parts:
        parts.append(list(call_parts))
    parts.append([{"text": ""}])
    return _turn(parts, None, usage, stop, model)


def error_body(
    status: int,
    message: str,
    *,
    status_text: str | None = None,
    retry_delay: str | None = None,
    quota_id: str | None = None,
    details: Sequence[JSONValue] = (),
) -> dict[str, JSONValue]:
    entries = list(details)
    if quota_id is not None:
        violation: dict[str, JSONValue] = {"quotaId": quota_id}
        entries.append(
            {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [violation]}
        )
    if retry_delay is not None:
        entries.append(
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retry_delay}
        )
    return {
        "error": {
            "code": status,
            "message": message,
            "status": status_text or STATUSES.get(status, "UNKNOWN"),
            "details": entries,
        }
    }


def error_reply(
    status: int,
    message: str,
    *,
    status_text: str | None = None,
    retry_delay: str | None = None,
    quota_id: str | None = None,
    details: Sequence[JSONValue] = (),
    headers: dict[str, str] | None = None,
) -> RawReply:
    """An HTTP error; ``status_text`` defaults from the code (429 -> RESOURCE_EXHAUSTED).
    ``quota_id`` adds a QuotaFailure entry (e.g. "...PerDay..." for a daily quota) and
    ``retry_delay`` a RetryInfo entry (e.g. "34.4s")."""
    body = error_body(
        status,
        message,
        status_text=status_text,
        retry_delay=retry_delay,
        quota_id=quota_id,
        details=details,
    )
    return RawReply.json(status, body, headers=headers)


def _thoughts(reasoning: str, chunks: int) -> list[list[JSONValue]]:
    return [[{"text": piece, "thought": True}] for piece in split_text(reasoning, chunks)]


def _turn(
    parts: list[list[JSONValue]],
    signature: str | None,
    usage: Usage,
    stop: str,
    model: str,
) -> SSEReply:
    if signature is not None:
        parts = [*parts, [{"text": "", "thoughtSignature": signature}]]
    frames: list[Frame] = []
    for number, chunk_parts in enumerate(parts, start=1):
        last = number == len(parts)
        shown = usage.candidates_token_count * number // len(parts)
        frames.append(
            chunk(
                chunk_parts,
                finish_reason=stop if last else None,
                usage=usage.payload(shown),
                model=model,
            )
        )
    return SSEReply(frames)
