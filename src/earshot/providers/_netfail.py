"""What went wrong on the wire, in words a person can act on.

``transport_error`` turns a transport exception (``providers.transport``'s, which both
HTTP clients raise; ``_httpx_transport.translated`` makes one of an httpx exception) into
a retryable ``network`` ``ProviderError`` whose message says what happened, to which host,
and how far the answer had got::

    connection refused by 127.0.0.1:8080 (base URL http://127.0.0.1:8080/v1)
    could not resolve api.example.com (base URL https://api.example.com)
    no connection to api.example.com:443 within 10 s (connect timeout; base URL ...)
    no answer from 127.0.0.1:8080 within 300 s of sending the request (idle timeout ...)
    the answer from 127.0.0.1:8080 stalled: nothing for 300 s after 2 kB (idle timeout ...)
    connection reset by 127.0.0.1:8080 after 2 kB of the answer
    connection closed by 127.0.0.1:8080 before the answer's headers

The exception's own text is kept (redacted) only when it adds something, never as the
bare ``ReadError: ReadError`` it often is. A failure to connect names the base URL too
(a wrong ``*_BASE_URL`` or proxy is the usual cause), without its user info, query or
fragment, so no key in a URL is ever shown. ``reason`` is the few-word form a status line
shows ("connection reset", "timed out").
"""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

from earshot.providers import transport as t
from earshot.providers.errors import ProviderError, redact
from earshot.providers.http import IDLE_TIMEOUT_ENV


def size_text(count: int) -> str:
    """``512 bytes``, ``2 kB``, ``1.5 MB``."""
    if count < 1024:
        return f"{count} byte" + ("" if count == 1 else "s")
    if count < 1024 * 1024:
        return f"{count / 1024:.0f} kB"
    return f"{count / (1024 * 1024):.1f} MB"


def seconds_text(value: float) -> str:
    """``4 s``, ``2.5 s``, ``300 s``, ``10 ms``."""
    if value < 1:
        return f"{value * 1000:.0f} ms"
    if value >= 10 or float(value).is_integer():
        return f"{value:.0f} s"
    return f"{value:.1f} s"


def host_of(url: str) -> str:
    """``host:port`` of a URL (the scheme's default port filled in)."""
    parts = urlsplit(url)
    host = parts.hostname or url
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{host}:{port}"


def shown_url(url: str) -> str:
    """``url`` as an error message may show it: scheme, host, port and path only (user
    info, query and fragment can hold a key)."""
    parts = urlsplit(url)
    if not parts.scheme or not parts.hostname:
        return ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname}{port}{parts.path}".rstrip("/")


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc``, its causes and contexts, and the members of any exception group among them
    (anyio reports a failed connect as a group of each address's error)."""
    seen: list[BaseException] = []
    todo: list[BaseException] = [exc]
    while todo:
        current = todo.pop(0)
        if any(current is s for s in seen):
            continue
        seen.append(current)
        if isinstance(current, BaseExceptionGroup):
            todo.extend(current.exceptions)
        for linked in (current.__cause__, current.__context__):
            if linked is not None:
                todo.append(linked)
    return seen


_SPECIFIC = (
    ConnectionRefusedError,
    ConnectionResetError,
    BrokenPipeError,
    socket.gaierror,
)


def _os_error(exc: BaseException) -> OSError | None:
    """The most telling ``OSError`` behind ``exc``: a refusal, reset or name failure first."""
    causes = _causes(exc)
    for kind in _SPECIFIC:
        for cause in causes:
            if isinstance(cause, kind):
                return cause
    return None


def _detail(exc: BaseException, secrets: tuple[str, ...]) -> str:
    text = redact(str(exc).strip(), secrets)
    return "" if not text or text == type(exc).__name__ else text


def transport_error(
    exc: BaseException,
    *,
    provider: str,
    url: str,
    received: int | None,
    connect_timeout: float,
    idle_timeout: float,
    secrets: tuple[str, ...] = (),
    base_url: str = "",
) -> tuple[ProviderError, str]:
    """``(error, reason)`` for a failed request. ``received`` is the number of body bytes
    read so far, or None when the failure came before the response headers. ``base_url``
    (the target's) is named when the connection could not be made."""
    host = host_of(url)
    where = (
        "before the answer's headers"
        if received is None
        else ("before any of the answer" if received == 0 else f"after {size_text(received)}")
    )
    of_answer = "" if received is None or received == 0 else " of the answer"
    hint = f"(idle timeout; set {IDLE_TIMEOUT_ENV} or the idleTimeoutMs setting to change it)"
    os_error = _os_error(exc)
    detail = _detail(exc, secrets)
    reason = "network error"
    if isinstance(exc, t.ConnectTimeout):
        text = f"no connection to {host} within {seconds_text(connect_timeout)} (connect timeout)"
        reason = "connect timeout"
    elif isinstance(exc, t.ReadTimeout):
        reason = "timed out"
        if received is None:
            text = (
                f"no answer from {host} within {seconds_text(idle_timeout)} of sending the "
                f"request {hint}"
            )
        else:
            text = (
                f"the answer from {host} stalled: nothing for {seconds_text(idle_timeout)} "
                f"{where} {hint}"
            )
    elif isinstance(exc, t.WriteTimeout):
        text = f"sending the request to {host} timed out"
        reason = "timed out"
    elif isinstance(exc, t.PoolTimeout):
        text = f"no free connection to {host} (too many requests at once)"
        reason = "timed out"
    elif isinstance(os_error, ConnectionRefusedError):
        text = f"connection refused by {host}"
        reason = "connection refused"
    elif isinstance(os_error, socket.gaierror):
        text = f"could not resolve {urlsplit(url).hostname or host} ({os_error.strerror})"
        reason = "name not resolved"
    elif isinstance(os_error, ConnectionResetError):
        text = f"connection reset by {host} {where}{of_answer}"
        reason = "connection reset"
    elif isinstance(os_error, BrokenPipeError):
        text = f"connection closed by {host} while the request was being sent"
        reason = "connection closed"
    elif isinstance(exc, t.ConnectError):
        text = f"could not connect to {host}" + (f" ({detail})" if detail else "")
        reason = "could not connect"
    elif isinstance(exc, t.RemoteProtocolError | t.ReadError):
        text = f"connection closed by {host} {where}{of_answer}" + (
            f" ({detail})" if detail else ""
        )
        reason = "connection closed"
    else:
        name = type(exc).__name__
        text = f"network error talking to {host} {where} ({name}" + (
            f": {detail})" if detail else ")"
        )
    shown = redact(shown_url(base_url), secrets)
    if shown and reason in _CONNECTING:
        text = (
            f"{text[:-1]}; base URL {shown})"
            if text.endswith(")")
            else f"{text} (base URL {shown})"
        )
    return ProviderError("network", f"{provider}: {text}", retryable=True), reason


_CONNECTING = frozenset(
    {"connect timeout", "connection refused", "name not resolved", "could not connect"}
)


__all__ = ["host_of", "seconds_text", "shown_url", "size_text", "transport_error"]
