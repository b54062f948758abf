"""What the Gemini API sends, decoded at the edge into typed Structs.

Shape::

    Chunk            one ``data:`` payload: a whole GenerateContentResponse, or an error
      candidates     list[Candidate]   (we ask for one; the first is the answer)
        content      Content -> parts: list[Part]
          Part       text (+ thought) | functionCall | inlineData, each maybe with a
                     thoughtSignature
            FunctionCall   whole (name, args, id?) or a Vertex-style streamed piece
                           (name + willContinue, then partialArgs, closed by ``{}``)
        finishReason
      usageMetadata  token counts, repeated in every chunk (the last wins)
      promptFeedback blockReason when the prompt itself was refused
      error          ErrorBody, the same shape as an HTTP error body's ``error``

Unknown fields are ignored; a field of the wrong type makes the whole payload malformed.
"""

from __future__ import annotations

import msgspec

from earshot.providers.types import JSONValue


class PartialArg(msgspec.Struct, kw_only=True):
    """One streamed argument value at an RFC 9535 JSON path (``$.a.b[0]``). A string value
    may come in several pieces for the same path; ``willContinue`` says more follow."""

    jsonPath: str = ""
    stringValue: str | None = None
    numberValue: float | None = None
    boolValue: bool | None = None
    nullValue: str | None = None
    willContinue: bool = False


class FunctionCall(msgspec.Struct, kw_only=True):
    name: str | None = None
    args: dict[str, JSONValue] | None = None
    id: str | None = None
    willContinue: bool = False
    partialArgs: list[PartialArg] | None = None


class InlineData(msgspec.Struct, kw_only=True):
    mimeType: str = ""
    data: str = ""


class Part(msgspec.Struct, kw_only=True):
    text: str | None = None
    thought: bool = False
    thoughtSignature: str | None = None
    functionCall: FunctionCall | None = None
    inlineData: InlineData | None = None


class Content(msgspec.Struct, kw_only=True):
    parts: list[Part] = []
    role: str | None = None


class Candidate(msgspec.Struct, kw_only=True):
    content: Content | None = None
    finishReason: str | None = None
    finishMessage: str | None = None
    index: int = 0


class UsageMetadata(msgspec.Struct, kw_only=True):
    promptTokenCount: int | None = None
    candidatesTokenCount: int | None = None
    thoughtsTokenCount: int | None = None
    cachedContentTokenCount: int | None = None
    toolUsePromptTokenCount: int | None = None

    @property
    def has_counts(self) -> bool:
        """False for the count-less ``{"trafficType": ...}`` objects Vertex sends mid-stream."""
        return self.promptTokenCount is not None or self.candidatesTokenCount is not None


class PromptFeedback(msgspec.Struct, kw_only=True):
    blockReason: str | None = None


class ErrorBody(msgspec.Struct, kw_only=True):
    code: int | str = 0  # a gateway may send the status as a string
    message: str = ""
    status: str = ""
    details: list[dict[str, JSONValue]] = []


class Chunk(msgspec.Struct, kw_only=True):
    candidates: list[Candidate] = []
    usageMetadata: UsageMetadata | None = None
    promptFeedback: PromptFeedback | None = None
    error: ErrorBody | None = None
    responseId: str | None = None


chunk_decoder = msgspec.json.Decoder(Chunk)


def status_of(code: int | str) -> int:
    """An error ``code`` as an HTTP status (0 when it is not one)."""
    if isinstance(code, str):
        code = int(code) if code.isdigit() else 0
    return code if 400 <= code <= 599 else 0


__all__ = [
    "Candidate",
    "Chunk",
    "Content",
    "ErrorBody",
    "FunctionCall",
    "InlineData",
    "Part",
    "PartialArg",
    "PromptFeedback",
    "UsageMetadata",
    "chunk_decoder",
    "status_of",
]
