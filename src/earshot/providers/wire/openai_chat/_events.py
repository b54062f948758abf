"""Typed views of what a Chat Completions server sends: stream chunks and error bodies.

Only the fields earshot reads are declared; everything else (``obfuscation``, ``x_groq``,
``system_fingerprint``, ``logprobs``, timing fields) is ignored by the decoder. Every field
is optional because compatible servers omit or null fields freely.

::

    Chunk     choices[Choice{index, delta: Delta, finish_reason}], usage: UsageBody, error
    Delta     content (a string, or Mistral's list of text/thinking chunks), refusal,
              reasoning_content, reasoning, reasoning_details[{...}],
              tool_calls[ToolCallFragment{index, id, function{name, arguments},
                                          extra_content (Gemini's thought signature)}]
    UsageBody prompt_tokens, completion_tokens, prompt_tokens_details{cached_tokens,
              cache_write_tokens}, completion_tokens_details{reasoning_tokens},
              prompt_cache_hit_tokens (DeepSeek)
    ErrorBody message, type, code (a string, or an HTTP status on OpenRouter), param
"""

from __future__ import annotations

import msgspec

from earshot.providers.types import JSONObject, JSONValue, Usage
from earshot.providers.wire.base import MalformedEvent


class FunctionFragment(msgspec.Struct, frozen=True):
    name: str | None = None
    arguments: str | None = None


class ToolCallFragment(msgspec.Struct, frozen=True):
    index: int | None = None
    id: str | None = None
    function: FunctionFragment | None = None
    extra_content: dict[str, JSONValue] | None = None


class Delta(msgspec.Struct, frozen=True):
    content: str | list[dict[str, JSONValue]] | None = None
    refusal: str | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None
    reasoning_details: list[dict[str, JSONValue]] | None = None
    tool_calls: list[ToolCallFragment] | None = None


class Choice(msgspec.Struct, frozen=True):
    index: int | None = 0
    delta: Delta | None = None
    finish_reason: str | None = None


class PromptDetails(msgspec.Struct, frozen=True):
    cached_tokens: int | None = None
    cache_write_tokens: int | None = None


class CompletionDetails(msgspec.Struct, frozen=True):
    reasoning_tokens: int | None = None


class UsageBody(msgspec.Struct, frozen=True):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    prompt_tokens_details: PromptDetails | None = None
    completion_tokens_details: CompletionDetails | None = None
    prompt_cache_hit_tokens: int | None = None

    def to_usage(self) -> Usage:
        """Our ``Usage``: ``prompt_tokens`` includes cache reads and writes, which we split
        out; ``completion_tokens`` already includes reasoning."""
        prompt = self.prompt_tokens or 0
        details = self.prompt_tokens_details
        cached = details.cached_tokens if details is not None else None
        if cached is None:
            cached = self.prompt_cache_hit_tokens
        cache_read = cached or 0
        cache_write = (details.cache_write_tokens if details is not None else None) or 0
        done = self.completion_tokens_details
        return Usage(
            input=max(0, prompt - cache_read - cache_write),
            output=self.completion_tokens or 0,
            cache_read=cache_read,
            cache_write=cache_write,
            reasoning=(done.reasoning_tokens if done is not None else None) or 0,
        )


class ErrorBody(msgspec.Struct, frozen=True):
    message: str | None = None
    type: str | None = None
    code: str | int | None = None
    param: JSONValue = None

    @property
    def code_text(self) -> str | None:
        """A symbolic code (``insufficient_quota``); None for a number or an HTTP status."""
        code = self.code
        return code if isinstance(code, str) and self.status is None else None

    @property
    def status(self) -> int | None:
        """An HTTP status given as the code (OpenRouter's number, LiteLLM's ``"429"``), when
        it looks like one."""
        code = self.code
        if isinstance(code, str) and code.isdigit():
            code = int(code)
        if isinstance(code, int) and 400 <= code <= 599:
            return code
        return None


class Chunk(msgspec.Struct, frozen=True):
    choices: list[Choice] | None = None
    usage: UsageBody | None = None
    error: ErrorBody | str | None = None


_chunk_decoder = msgspec.json.Decoder(Chunk)


def decode_chunk(data: str) -> Chunk:
    """One ``data:`` payload, or ``MalformedEvent`` naming the problem."""
    try:
        return _chunk_decoder.decode(data)
    except msgspec.DecodeError as exc:
        raise MalformedEvent(
            f"malformed stream chunk from provider ({exc}): {data[:120]!r}"
        ) from exc


def merge_details(into: list[JSONObject], fragments: list[JSONObject]) -> None:
    """Fold streamed ``reasoning_details`` fragments into whole items (OpenRouter).

    A fragment continues the item with the same ``index`` (else the same ``id``, else the
    last item of the same type when it has neither): its ``text``/``summary`` strings are
    appended, its other non-null fields set (the ``signature`` arrives last).
    """
    for fragment in fragments:
        target = _find_item(into, fragment)
        if target is None:
            into.append({k: v for k, v in fragment.items() if v is not None})
            continue
        for key, value in fragment.items():
            if value is None:
                continue
            if key in ("text", "summary") and isinstance(value, str):
                previous = target.get(key)
                target[key] = (previous if isinstance(previous, str) else "") + value
            elif key not in target or value != "":
                target[key] = value


def _find_item(items: list[JSONObject], fragment: JSONObject) -> JSONObject | None:
    index = fragment.get("index")
    if isinstance(index, int):
        return next((item for item in items if item.get("index") == index), None)
    ident = fragment.get("id")
    if isinstance(ident, str) and ident:
        return next((item for item in items if item.get("id") == ident), None)
    if items and "index" not in items[-1] and items[-1].get("type") == fragment.get("type"):
        return items[-1]
    return None


def content_pieces(content: list[JSONObject]) -> list[tuple[str, str]]:
    """``(kind, text)`` pieces of a list-valued ``content`` (Mistral's reasoning models):
    ``text`` chunks are text, ``thinking`` chunks (themselves lists of text chunks) are
    reasoning; other chunk types are skipped."""
    out: list[tuple[str, str]] = []
    for item in content:
        kind = item.get("type")
        if kind == "text":
            text = item.get("text")
            if isinstance(text, str) and text:
                out.append(("text", text))
        elif kind == "thinking":
            inner = item.get("thinking")
            pieces = inner if isinstance(inner, list) else [inner]
            for piece in pieces:
                text = piece.get("text") if isinstance(piece, dict) else piece
                if isinstance(text, str) and text:
                    out.append(("reasoning", text))
    return out


def details_text(fragments: list[JSONObject]) -> str:
    """The readable reasoning in ``reasoning_details`` fragments (text and summaries)."""
    out: list[str] = []
    for fragment in fragments:
        for key in ("text", "summary"):
            value = fragment.get(key)
            if isinstance(value, str):
                out.append(value)
    return "".join(out)


__all__ = [
    "Chunk",
    "Delta",
    "ErrorBody",
    "ToolCallFragment",
    "UsageBody",
    "content_pieces",
    "decode_chunk",
    "details_text",
    "merge_details",
]
