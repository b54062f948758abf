"""Provider failures, mapped onto one closed taxonomy.

::

    ProviderError(kind, message, retryable, status, retry_after)
      kind: auth              key missing, invalid or not permitted        terminal
            rate_limit        429 and vendor quota/overload answers        retryable, except a
                                                                           spend cap or daily quota
            context_overflow  the prompt does not fit the window           terminal (compact first)
            invalid_request   400-class answers the request caused         terminal
            server            5xx, 529, in-stream overload                 retryable
            network           connect/read failures, timeouts              retryable
            stream_incomplete a 200 stream that ended cleanly without its  retryable while nothing
                              terminal event (the answer was cut off)      was shown; else terminal
            abort             the caller aborted                           terminal
            unknown           anything else                                terminal

Adapters raise ``ProviderError`` only before a stream starts; after that a failure is the
stream's terminal ``ErrorEvent`` (``to_event``). Messages never contain API keys:
``redact`` is applied to every vendor-supplied message.
"""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Mapping

from earshot.providers.types import ErrorEvent, ErrorKind, Message, Usage

_RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})


class ProviderError(Exception):
    """A classified provider failure. ``retry_after`` is in seconds when the vendor said."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        retryable: bool | None = None,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message
        self.retryable = _default_retryable(kind) if retryable is None else retryable
        self.status = status
        self.retry_after = retry_after

    def __repr__(self) -> str:
        return f"ProviderError({self.kind!r}, {self.message!r}, status={self.status})"

    def to_event(self, partial: Message | None = None, usage: Usage | None = None) -> ErrorEvent:
        return ErrorEvent(
            kind=self.kind,
            message=self.message,
            retryable=self.retryable,
            status=self.status,
            retry_after=self.retry_after,
            partial=partial,
            usage=usage,
        )

    @classmethod
    def from_event(cls, event: ErrorEvent) -> ProviderError:
        return cls(
            event.kind,
            event.message,
            retryable=event.retryable,
            status=event.status,
            retry_after=event.retry_after,
        )


def _default_retryable(kind: ErrorKind) -> bool:
    return kind in ("rate_limit", "server", "network", "stream_incomplete")


# --- context overflow ----------------------------------------------------------------------

_OVERFLOW_TEXT = "|".join(
    [
        r"prompt is too long",  # Anthropic
        r"context[_ ]length[_ ]exceeded",  # OpenAI code and compat servers
        r"maximum context length",  # OpenAI / vLLM / compat phrasing
        r"context window",  # "exceeds the context window", "input exceeds context window"
        r"exceeds? (?:the )?context limit",  # Anthropic "input length and max_tokens exceed..."
        r"input token count.*exceeds",  # Gemini "The input token count (N) exceeds the maximum"
        r"exceeds the maximum number of tokens",  # Gemini
        r"too many tokens",  # compat servers
        r"reduce the length of the messages",  # OpenAI legacy
        r"request too large for model",  # compat
        r"prompt.*exceeds.*(?:limit|max)",  # llama.cpp / Ollama-style
        r"model_context_window_exceeded",  # Anthropic stop reason echoed by proxies
    ]
)


@functools.cache
def _overflow_patterns() -> re.Pattern[str]:
    # Compiled when a vendor's error is first classified (0.6 ms), not at start-up.
    return re.compile(_OVERFLOW_TEXT, re.IGNORECASE)


def is_context_overflow(message: str, code: str | None = None) -> bool:
    """Whether a vendor's error message (and code) says the prompt exceeded the window."""
    if code in ("context_length_exceeded", "string_above_max_length"):
        return code == "context_length_exceeded"
    return bool(_overflow_patterns().search(message))


# --- status classification -----------------------------------------------------------------


def kind_for_status(status: int) -> ErrorKind:
    if status in (401, 403):
        return "auth"
    if status == 429:
        return "rate_limit"
    if status in (408, 409) or status >= 500:
        return "server"
    if 400 <= status < 500:
        return "invalid_request"
    return "unknown"


def classify_http(
    status: int,
    message: str,
    headers: Mapping[str, str],
    *,
    code: str | None = None,
    vendor_retry_after: float | None = None,
    never_retry: bool = False,
) -> ProviderError:
    """The shared mapping from an HTTP error answer to a ``ProviderError``.

    Adapters extract ``message`` and ``code`` from their vendor's body; this decides the kind
    and retryability, honouring ``x-should-retry`` and the retry-after headers.
    ``never_retry`` marks answers the vendor documents as permanent (spend caps, daily quota).
    """
    message = redact(message)
    overflow_status = status in (400, 413) or code == "context_length_exceeded"
    if overflow_status and is_context_overflow(message, code):
        return ProviderError("context_overflow", message, status=status, retryable=False)
    kind = kind_for_status(status)
    retryable = status in _RETRYABLE_STATUS and not never_retry
    should = headers.get("x-should-retry")
    if should == "true" and not never_retry:
        retryable = True
    elif should == "false":
        retryable = False
    retry_after = parse_retry_after(headers)
    if retry_after is None:
        retry_after = vendor_retry_after
    return ProviderError(kind, message, retryable=retryable, status=status, retry_after=retry_after)


def parse_retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            value = float(ms) / 1000.0
        except ValueError:
            value = -1.0
        if value >= 0:
            return value
    raw = headers.get("retry-after")
    if raw is None:
        return None
    try:
        seconds = float(raw)
    except ValueError:
        import email.utils  # only for the rare HTTP-date form; costs 10 ms at start-up

        try:
            parsed = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError, IndexError):
            return None
        seconds = parsed.timestamp() - (time.time() if now is None else now)
    return max(0.0, seconds)


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


def parse_duration(text: str) -> float | None:
    """A protobuf JSON duration (``"34.4s"``) in seconds."""
    m = _DURATION.match(text)
    return float(m.group(1)) if m else None


# --- secrets -------------------------------------------------------------------------------


@functools.cache
def _key_shapes() -> re.Pattern[str]:
    # Compiled with the first message redacted (0.3 ms), not at start-up.
    return re.compile(
        r"(sk-ant-[A-Za-z0-9_\-]{8,}|sk-[A-Za-z0-9_\-]{16,}|AIza[0-9A-Za-z_\-]{20,}"
        r"|gsk_[A-Za-z0-9]{16,}|xai-[A-Za-z0-9]{16,}|Bearer\s+[A-Za-z0-9._\-]{12,})"
    )


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """``text`` with known secrets and anything shaped like an API key replaced by ``***``."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return _key_shapes().sub("***", text)


__all__ = [
    "ProviderError",
    "classify_http",
    "is_context_overflow",
    "kind_for_status",
    "parse_duration",
    "parse_retry_after",
    "redact",
]
