"""Whether a request goes through a proxy: the environment's ``HTTPS_PROXY``/``HTTP_PROXY``/
``ALL_PROXY`` (either case) less ``NO_PROXY``, or on macOS and Windows the system's settings.
What decides between the lean client (direct) and httpx (proxies), and whether
``_preconnect`` may open the connection early."""

from __future__ import annotations

import os
import sys
from urllib.parse import urlsplit


def _no_proxy(host: str) -> bool:
    """Whether ``NO_PROXY`` surely exempts ``host``: ``*``, the host itself, or a domain
    it is under. Anything subtler (ports, address ranges) counts as not exempt, so the
    proxy-aware client decides."""
    raw = os.environ.get("NO_PROXY") or os.environ.get("no_proxy") or ""
    host = host.lower().strip("[]")
    for entry in (e.strip().lower() for e in raw.split(",")):
        if entry == "*":
            return True
        if not entry or ":" in entry or "/" in entry:
            continue
        domain = entry.lstrip(".").lstrip("*").lstrip(".")
        if host == domain or host.endswith("." + domain):
            return True
    return False


def proxies(scheme: str) -> bool:
    """Whether a proxy is configured for ``scheme``, as httpx finds it (``urllib``'s
    ``getproxies``): named in the environment (``HTTPS_PROXY``, ``all_proxy``, ...), else
    on macOS and Windows in the system's settings."""
    found = {
        name[:-6].lower(): value
        for name, value in os.environ.items()
        if value and name.lower().endswith("_proxy") and name.lower() != "no_proxy"
    }
    if not found and sys.platform == "darwin":
        # what urllib.request reads there, without loading urllib.request (http.client,
        # email: tens of milliseconds on the first request's path)
        from _scproxy import _get_proxies  # type: ignore[import-not-found]  # stdlib, no stubs

        found = _get_proxies()
    elif not found and sys.platform == "win32":
        from urllib.request import getproxies

        found = getproxies()
    return bool(found.get(scheme) or found.get("all"))


def proxy_applies(url: str) -> bool:
    """Whether a request to ``url`` would go through a proxy."""
    parts = urlsplit(url)
    return proxies(parts.scheme) and not _no_proxy(parts.hostname or "")


__all__ = ["proxies", "proxy_applies"]
