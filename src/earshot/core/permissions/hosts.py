"""Host names as the HTTP client will connect to them, for ``WebFetch(domain:...)`` rules.

::

    canonical_host(host)       one spelling per place: IDNA (UTS 46: case, fullwidth letters,
                               ideographic and fullwidth dots), no trailing dot, no brackets
                               or zone on an IPv6 literal; an IPv4 address in any form the
                               resolver accepts (0x7f.1, 2130706433, 0177.0.0.1, 127.1) as a
                               dotted quad; an IPv4-mapped IPv6 address as its IPv4 address;
                               every loopback or unspecified address, ``localhost`` and
                               ``*.localhost`` as ``localhost``
    host_pattern(spec)         a rule's host (``example.com``, ``*.example.com``) the same way

The request side takes the host from the URL with the HTTP client's own parser (userinfo,
ports and backslashes are its business, not ours), then ``canonical_host``; the rule side
is canonicalised when the rule is read. A port never matters: a rule names a host.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import unicodedata

LOOPBACK = "localhost"
_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})
_NUMERIC = re.compile(r"[0-9][0-9a-fx.]*", re.IGNORECASE)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``text`` as the resolver reads an address literal, or None for a name."""
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        if _NUMERIC.fullmatch(text) is None:
            return None
        try:  # inet_aton takes the forms getaddrinfo does: hex, octal, 1 to 4 parts
            return ipaddress.IPv4Address(socket.inet_aton(text))
        except OSError:
            return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def canonical_host(host: str) -> str:
    """The one spelling of ``host`` that rules are compared with (module docstring)."""
    text = host.strip().translate(_DOTS)
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    if ":" in text:
        text = text.split("%", 1)[0]  # an IPv6 zone names an interface, not a host
    text = text.rstrip(".")
    import idna  # its UTS 46 table costs start-up time; only a web host needs it

    try:
        text = idna.encode(text, uts46=True).decode("ascii")
    except (idna.IDNAError, UnicodeError, ValueError):
        text = unicodedata.normalize("NFKC", text).translate(_DOTS).lower()
    text = text.lower().rstrip(".")
    ip = _address(text)
    if ip is not None:
        return LOOPBACK if ip.is_loopback or ip.is_unspecified else ip.compressed
    if text == LOOPBACK or text.endswith("." + LOOPBACK):
        return LOOPBACK
    return text


def host_pattern(spec: str) -> str:
    """A rule's host pattern: ``*.`` and a host, a host, or a glob kept as written (lower
    case) when ``*`` sits elsewhere."""
    if spec.startswith("*."):
        rest = canonical_host(spec[2:])
        return rest if rest == LOOPBACK else "*." + rest
    if "*" in spec:
        return spec.translate(_DOTS).lower().rstrip(".")
    return canonical_host(spec)


__all__ = ["LOOPBACK", "canonical_host", "host_pattern"]
