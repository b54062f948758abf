"""Vendor failures land in the right kind, and retries wait what the vendor asked."""

from __future__ import annotations

import email.utils
import random

import pytest

from earshot.providers.errors import (
    ProviderError,
    classify_http,
    is_context_overflow,
    parse_duration,
    parse_retry_after,
    redact,
)
from earshot.providers.retry import RetryPolicy


@pytest.mark.parametrize(
    "message",
    [
        "prompt is too long: 215000 tokens > 200000 maximum",
        "This model's maximum context length is 128000 tokens. However, your messages resulted "
        "in 130000 tokens.",
        "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
        "Requested tokens exceed context window of 32768",
        "input length and `max_tokens` exceed context limit",
    ],
)
def test_context_overflow_is_recognised_from_vendor_messages(message: str) -> None:
    error = classify_http(400, message, {})
    assert error.kind == "context_overflow"
    assert not error.retryable


def test_openai_overflow_code_wins_over_wording() -> None:
    assert is_context_overflow("anything", "context_length_exceeded")
    assert classify_http(400, "too big", {}, code="context_length_exceeded").kind == (
        "context_overflow"
    )


def test_an_ordinary_bad_request_is_not_overflow() -> None:
    error = classify_http(400, "max_tokens: unsupported parameter", {})
    assert error.kind == "invalid_request"
    assert not error.retryable


@pytest.mark.parametrize(
    ("status", "kind", "retryable"),
    [
        (401, "auth", False),
        (403, "auth", False),
        (404, "invalid_request", False),
        (408, "server", True),
        (409, "server", True),
        (429, "rate_limit", True),
        (500, "server", True),
        (503, "server", True),
        (529, "server", True),
    ],
)
def test_status_codes_map_to_kinds(status: int, kind: str, retryable: bool) -> None:
    error = classify_http(status, "x", {})
    assert (error.kind, error.retryable) == (kind, retryable)


def test_spend_cap_rate_limit_is_never_retried() -> None:
    error = classify_http(429, "spend limit reached", {"retry-after": "1"}, never_retry=True)
    assert error.kind == "rate_limit"
    assert not error.retryable
    assert RetryPolicy().delay(0, error) is None


def test_x_should_retry_overrides_the_status() -> None:
    assert not classify_http(503, "x", {"x-should-retry": "false"}).retryable
    assert classify_http(400, "x", {"x-should-retry": "true"}).retryable


def test_retry_after_headers_in_ms_seconds_and_http_date() -> None:
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert parse_retry_after({"retry-after": "7"}) == 7.0
    now = 1_700_000_000.0
    date = email.utils.formatdate(now + 30, usegmt=True)
    waited = parse_retry_after({"retry-after": date}, now=now)
    assert waited is not None and 29.0 <= waited <= 31.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


def test_protobuf_durations_parse() -> None:
    assert parse_duration("34.4s") == 34.4
    assert parse_duration("5s") == 5.0
    assert parse_duration("soon") is None


def test_backoff_grows_with_jitter_and_caps() -> None:
    policy = RetryPolicy(max_retries=10, base_delay=0.5, max_delay=8.0, jitter=0.25)
    error = ProviderError("server", "overloaded")
    rng = random.Random(7)
    delays = [policy.delay(n, error, rng) for n in range(6)]
    assert all(d is not None for d in delays)
    for n, delay in enumerate(delays):
        ceiling = min(0.5 * 2**n, 8.0)
        assert delay is not None and ceiling * 0.75 <= delay <= ceiling


def test_vendor_retry_after_is_honoured_and_too_long_gives_up() -> None:
    policy = RetryPolicy(max_retry_after=60.0)
    assert policy.delay(0, ProviderError("rate_limit", "x", retry_after=12.0)) == 12.0
    assert policy.delay(0, ProviderError("rate_limit", "x", retry_after=120.0)) is None


def test_attempts_are_limited_and_terminal_kinds_never_retry() -> None:
    policy = RetryPolicy(max_retries=2)
    error = ProviderError("network", "reset")
    assert policy.delay(1, error) is not None
    assert policy.delay(2, error) is None
    assert policy.delay(0, ProviderError("auth", "bad key")) is None


def test_key_shaped_strings_are_redacted() -> None:
    text = "invalid key sk-ant-api03-abcdefghijklmnop and AIzaSyA1234567890abcdefghijklmn"
    cleaned = redact(text, ("my-secret-value",))
    assert "sk-ant" not in cleaned and "AIza" not in cleaned
    assert redact("token my-secret-value leaked", ("my-secret-value",)) == "token *** leaked"
    assert "sk-proj-0123456789abcdefXYZ" not in repr(
        classify_http(401, "bad key sk-proj-0123456789abcdefXYZ", {})
    )
