"""The ``google-gemini`` wire: the Gemini API's ``streamGenerateContent`` with SSE.

::

    build_call           POST {base}/v1beta/models/{model}:streamGenerateContent?alt=sse
                         header x-goog-api-key; body from _request.build_body
    parser               _stream.GeminiParser (typed chunks from _events)
    error_from_response  {error: {code, message, status, details[]}} (or a one-element
                         list of it, as the non-SSE stream endpoint answers), or any other
                         body ``providers.error_body`` reads -> ProviderError

Error details read from ``details[]``: ``RetryInfo.retryDelay`` ("34.4s") is the wait
(``retry_after``; else "Please retry in Ns" in the message); a ``QuotaFailure`` whose
``quotaId`` names a per-day quota, or whose ``quotaValue`` is "0" (the model is not in the
plan), and a spending-cap message are never retried; ``ErrorInfo`` reason
``API_KEY_INVALID`` (sent with HTTP 400) is an ``auth`` error. The rest follows
``classify_http``: 503 UNAVAILABLE is a retryable server error, a 400 naming a token count
over the maximum is ``context_overflow``. In-stream ``{"error": ...}`` payloads are mapped
the same way, with ``code`` as the status.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING
from urllib.parse import quote

from earshot.providers.errors import ProviderError, classify_http, parse_duration
from earshot.providers.target import Target, WireName
from earshot.providers.types import JSONObject, ModelRequest
from earshot.providers.wire.base import Framing, HttpCall, encode_json
from earshot.providers.wire.gemini._events import ErrorBody, status_of
from earshot.providers.wire.gemini._request import build_body
from earshot.providers.wire.gemini._stream import GeminiParser

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
_SECRET_HEADERS = frozenset({"x-goog-api-key", "authorization", "x-api-key", "api-key"})
_RETRY_IN = re.compile(r"retry in (\d+(?:\.\d+)?)\s*s\b", re.IGNORECASE)
_SPEND_CAP = re.compile(r"spend(?:ing)?[ _-]?(?:cap|limit)", re.IGNORECASE)
_AUTH_REASONS = frozenset({"API_KEY_INVALID", "API_KEY_EXPIRED", "API_KEY_SERVICE_BLOCKED"})


def endpoint(target: Target, model: str) -> str:
    """The stream URL. A base URL that already ends in an API version is used as is."""
    base = (target.base_url or DEFAULT_BASE_URL).rstrip("/")
    if not re.search(r"/v1(?:beta\d*|alpha\d*)?$", base):
        base = f"{base}/v1beta"
    name = model.removeprefix("models/")
    return f"{base}/models/{quote(name, safe='-._~')}:streamGenerateContent"


def extra_headers(target: Target) -> dict[str, str]:
    """The user's extra headers (the credential is added by ``providers.auth_headers``)."""
    return dict(target.headers)


def error_from_body(
    body: ErrorBody,
    status: int,
    headers: Mapping[str, str],
    target: Target,
    *,
    details: Sequence[JSONObject] = (),
) -> ProviderError:
    """Classify a Gemini error object (from an HTTP error body or an in-stream payload):
    ``google: <message> (<STATUS>)``."""
    from earshot.providers.error_body import shown  # errors only

    status = status or status_of(body.code) or 500
    text = body.message or f"HTTP {status}"
    message = shown(target, text, body.status)
    retry_after: float | None = None
    never_retry = bool(_SPEND_CAP.search(text))
    bad_key = False
    for detail in (*body.details, *details):
        kind = detail.get("@type")
        kind = kind if isinstance(kind, str) else ""
        if kind.endswith("google.rpc.RetryInfo"):
            delay = detail.get("retryDelay")
            if isinstance(delay, str):
                retry_after = parse_duration(delay)
        elif kind.endswith("google.rpc.QuotaFailure"):
            violations = detail.get("violations")
            for violation in violations if isinstance(violations, list) else []:
                if not isinstance(violation, dict):
                    continue
                quota_id = violation.get("quotaId")
                if isinstance(quota_id, str) and "perday" in quota_id.lower():
                    never_retry = True
                if violation.get("quotaValue") == "0":
                    never_retry = True
        elif kind.endswith("google.rpc.ErrorInfo"):
            bad_key = bad_key or detail.get("reason") in _AUTH_REASONS
    if retry_after is None:
        m = _RETRY_IN.search(text)
        retry_after = float(m.group(1)) if m else None
    if bad_key:
        return ProviderError("auth", message, retryable=False, status=status)
    return classify_http(
        status,
        message,
        headers,
        code=body.status or None,
        vendor_retry_after=retry_after,
        never_retry=never_retry,
    )


class GeminiWire:
    framing: Framing = "sse"

    @property
    def name(self) -> WireName:
        return "google-gemini"

    def build_call(self, request: ModelRequest, target: Target) -> HttpCall:
        return HttpCall(
            url=endpoint(target, request.model or target.model),
            headers=extra_headers(target),
            body=encode_json(build_body(request, target)),
            params={"alt": "sse"},
        )

    def parser(self, request: ModelRequest, target: Target) -> GeminiParser:
        def errors(body: ErrorBody) -> ProviderError:
            return error_from_body(body, status_of(body.code), {}, target)

        return GeminiParser(target.provider, errors)

    def error_from_response(
        self, status: int, headers: Mapping[str, str], body: bytes, target: Target
    ) -> ProviderError:
        from earshot.providers.error_body import missing_key_error, read_error_body  # errors only

        vendor = read_error_body(body, status)
        missing = missing_key_error(status, vendor, target)
        if missing is not None:
            return missing
        error = ErrorBody(
            code=status, message=vendor.message, status=vendor.status or "", details=[]
        )
        return error_from_body(error, status, headers, target, details=vendor.details)


WIRE = GeminiWire()

if TYPE_CHECKING:
    from earshot.providers.wire.base import Wire

    _check: Wire = WIRE

__all__ = [
    "DEFAULT_BASE_URL",
    "WIRE",
    "GeminiWire",
    "endpoint",
    "error_from_body",
    "extra_headers",
]
