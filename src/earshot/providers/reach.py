"""Whether a provider's endpoint answers: what ``earshot doctor`` checks.

``reach(provider, base_url)`` sends one ``GET`` to the base URL, with no key and no body,
and reports whether an HTTP answer came back (any status: a 404 or 401 still proves the
host, the port, TLS and any proxy work) or why not, in the words of ``_netfail``. It never
raises for a network failure and never retries.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import httpx

from earshot.providers._httpx_transport import translated
from earshot.providers._netfail import transport_error
from earshot.providers.http import new_client

CONNECT_S = 5.0
TOTAL_S = 8.0


@dataclass(frozen=True)
class Reached:
    """``ok`` when an HTTP answer came back; ``detail`` is ``HTTP 404 in 120 ms`` or why it
    did not (``connection refused by 127.0.0.1:9``)."""

    provider: str
    url: str
    ok: bool
    detail: str


async def reach(
    provider: str, base_url: str, *, client: httpx.AsyncClient | None = None
) -> Reached:
    timeout = httpx.Timeout(TOTAL_S, connect=CONNECT_S)
    start = time.perf_counter()
    owned = client is None
    http = new_client(tls=base_url.startswith("https:")) if client is None else client
    try:
        response = await http.get(base_url, timeout=timeout)
        await response.aclose()
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        error, _ = transport_error(
            translated(exc),
            provider=provider,
            url=base_url,
            received=None,
            connect_timeout=CONNECT_S,
            idle_timeout=TOTAL_S,
        )
        detail = error.message.removeprefix(f"{provider}: ")
        return Reached(provider, base_url, False, detail)
    finally:
        if owned:
            await http.aclose()
    took = (time.perf_counter() - start) * 1000
    return Reached(provider, base_url, True, f"HTTP {response.status_code} in {took:.0f} ms")


__all__ = ["CONNECT_S", "TOTAL_S", "Reached", "reach"]
