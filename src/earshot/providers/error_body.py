"""HTTP error answers, read the same way on every wire.

Vendors, and the gateways and local servers in front of them, send an error body in one of a
few shapes. ``read_error_body`` reads all of them leniently: unknown fields are ignored,
``code`` may be a string or a number, a list of envelopes gives its first::

    {"error": {"message", "type", "code", "param", ...}}              OpenAI, LiteLLM, OpenRouter
    {"type": "error", "error": {"type", "message", "details"}, "request_id"}      Anthropic
    {"error": {"code": 429, "message", "status", "details": [...]}}   Gemini (or a list of them)
    {"error": "text"}                                                 Ollama, LM Studio
    {"object": "error", "message", "type", "code"}                    vLLM, compatible servers
    {"detail": "text" | [{"msg"}, ...]}                               servers built on FastAPI

A body that is not JSON is quoted as text (tags stripped, whitespace collapsed, cut short);
a JSON body none of these shapes fits is named as such with a short excerpt. A message that
wraps another vendor's JSON body (a gateway passing an upstream error on) is unwrapped to the
inner message. So a person reads ``<provider>: <message>``, never a raw JSON blob.

``missing_key_error`` is the one check every wire makes first: when earshot sent no
credential and the answer says one is needed (401/403, or a gateway's "no API key" 400/500),
or is a bare 500 with no error body (what LiteLLM's proxy answers a keyless request with),
the error names the variable to set and is not retried into "Internal Server Error".
Messages are put on one line (gateways append paragraphs).
"""

from __future__ import annotations

import re

import msgspec

from earshot.providers.errors import ProviderError, redact
from earshot.providers.registry import cloud_module, key_variables
from earshot.providers.target import Target
from earshot.providers.types import JSONObject, JSONValue

_EXCERPT = 200
_CREDENTIAL_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "x-goog-api-key"})


class VendorError(msgspec.Struct, frozen=True, kw_only=True):
    """An error body, normalised. ``message`` is never empty; ``code`` is text whatever its
    JSON type; ``status`` is Google's canonical status name (``RESOURCE_EXHAUSTED``);
    ``decoded`` is false when the body was not one of the known shapes."""

    message: str
    type: str | None = None
    code: str | None = None
    status: str | None = None
    param: str | None = None
    details: tuple[JSONObject, ...] = ()
    request_id: str | None = None
    decoded: bool = True

    @property
    def http_status(self) -> int | None:
        """A numeric ``code`` that is an HTTP error status (OpenRouter, Gemini, LiteLLM)."""
        if self.code is not None and self.code.isdigit():
            value = int(self.code)
            if 400 <= value <= 599:
                return value
        return None

    @property
    def symbolic_code(self) -> str | None:
        """``code`` unless it merely repeats an HTTP status (``"400"``)."""
        return None if self.http_status is not None else self.code


def read_error_body(body: bytes, status: int) -> VendorError:
    """What an HTTP error answer says; see the module docstring for the shapes."""
    try:
        value: JSONValue = msgspec.json.decode(body)
    except msgspec.DecodeError:
        text = body.decode("utf-8", "replace")
        return VendorError(message=_plain(text) or f"HTTP {status}", decoded=False)
    found = _from_json(value)
    if found is not None:
        return found
    excerpt = _excerpt(" ".join(body.decode("utf-8", "replace").split()))
    return VendorError(
        message=f"HTTP {status} with an error body earshot cannot read: {excerpt}", decoded=False
    )


def _from_json(value: JSONValue, depth: int = 0) -> VendorError | None:
    if isinstance(value, list):
        return _from_json(value[0], depth) if value else None
    if not isinstance(value, dict):
        return None
    error = value.get("error")
    if isinstance(error, str) and error.strip():
        return VendorError(
            message=_one_line(_unwrap(error, depth)),
            type=_text(value.get("type")),
            code=_code(value.get("code")),
        )
    inner = error if isinstance(error, dict) else value
    message = _message(inner)
    if message is None:
        return None
    details = inner.get("details")
    code = _code(inner.get("code"))
    if code is None and isinstance(details, dict):
        code = _text(details.get("error_code"))  # Anthropic: error.details.error_code
    return VendorError(
        message=_one_line(_unwrap(message, depth)),
        type=_text(inner.get("type")) if inner.get("type") != "error" else None,
        code=code,
        status=_text(inner.get("status")),
        param=_text(inner.get("param")),
        details=tuple(d for d in details if isinstance(d, dict))
        if isinstance(details, list)
        else (),
        request_id=_text(value.get("request_id")),
    )


def _message(obj: JSONObject) -> str | None:
    for key in ("message", "detail", "msg", "error_description"):
        found = obj.get(key)
        if isinstance(found, str) and found.strip():
            return found.strip()
        if isinstance(found, list):  # FastAPI validation errors: [{"loc", "msg", "type"}]
            texts = [m for item in found if isinstance(item, dict) and (m := _message(item))]
            if texts:
                return "; ".join(texts)
    return None


def _unwrap(message: str, depth: int) -> str:
    """A message with another vendor's error body inside (``"OpenAIException - {"error":
    {...}}"``) becomes its head and the inner message."""
    start = message.find("{")
    end = message.rfind("}")
    if depth >= 3 or start < 0 or end <= start:
        return message
    try:
        inner_value: JSONValue = msgspec.json.decode(message[start : end + 1])
    except msgspec.DecodeError:
        return message
    inner = _from_json(inner_value, depth + 1)
    if inner is None:
        return message
    head = message[:start].strip().rstrip("-:").strip()
    tail = message[end + 1 :].strip()
    text = f"{head}: {inner.message}" if head else inner.message
    return f"{text} {tail}" if tail else text


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _text(value: JSONValue) -> str | None:
    return value if isinstance(value, str) and value else None


def _code(value: JSONValue) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return value if isinstance(value, str) and value else None


_TAG = re.compile(r"<[^>]*>")


def _plain(text: str) -> str:
    return _excerpt(" ".join(_TAG.sub(" ", text).split()))


def _excerpt(text: str) -> str:
    return text if len(text) <= _EXCERPT else text[: _EXCERPT - 3].rstrip() + "..."


# --- the shared prefix and the missing-key check ----------------------------------------------


def shown(target: Target, message: str, detail: str | None = None) -> str:
    """``<provider>: <message> (<detail>)``, with keys redacted: how every wire words an
    error."""
    text = f"{target.provider}: {message}"
    if detail and detail not in message:
        text += f" ({detail})"
    return redact(text, target.secrets())


_NO_KEY = re.compile(
    r"no (?:api[ _-]?)?key|api[ _-]?key[^.]{0,40}?(?:missing|required|not (?:provided|passed|set|"
    r"found|present)|must be (?:set|provided))|missing (?:api[ _-]?)?key|(?:missing|no) "
    r"(?:authorization|authentication|credentials|bearer)|unauthori[sz]ed|authentication "
    r"(?:error|failed|required)",
    re.IGNORECASE,
)


def sent_credential(target: Target) -> bool:
    """Whether the request carried a key: the target's own, or a credential header the
    user set in settings. A cloud target always carried one (a token or a signature from
    its credential chain; without one the call is refused before it is sent)."""
    if cloud_module(target.provider):
        return True
    return bool(target.api_key) or any(h.lower() in _CREDENTIAL_HEADERS for h in target.headers)


def missing_key_error(status: int, vendor: VendorError, target: Target) -> ProviderError | None:
    """The error to report instead when earshot sent no credential and the server may want
    one; None otherwise (and for a provider with no key variable).

    - 401/403, or a 400/422/500 whose message says a key is missing: an ``auth`` error;
    - a 500 with no error body at all (LiteLLM's proxy answers a keyless request with a
      plain "Internal Server Error"): a ``server`` error that is not retried, saying that no
      key was sent and where one goes.
    """
    if sent_credential(target):
        return None
    variables = key_variables(target.provider)
    if not variables:
        return None
    said = _excerpt(redact(vendor.message, target.secrets()))
    fix = f"set {' or '.join(variables)}, or run `earshot auth login {target.provider}`"
    if status in (401, 403) or (status in (400, 422, 500) and _NO_KEY.search(vendor.message)):
        return ProviderError(
            "auth",
            f"{target.provider}: the server wants an API key and earshot sent none "
            f"(HTTP {status}: {said}); {fix}",
            retryable=False,
            status=status,
        )
    if status == 500 and not vendor.decoded:
        return ProviderError(
            "server",
            f"{target.provider}: HTTP 500: {said}; earshot sent no API key, and a gateway "
            f"that wants one may answer so: if this server needs a key, {fix}",
            retryable=False,
            status=status,
        )
    return None


__all__ = ["VendorError", "missing_key_error", "read_error_body", "sent_credential", "shown"]
