"""AWS Signature Version 4: the ``authorization`` header for one request's final bytes.

Sans-IO and deterministic (the clock is a parameter), so the published SigV4 test-suite
vectors pin it. The steps, as AWS documents them:

1. canonical request: method, canonical URI (each path segment URI-encoded again: services
   other than S3 sign the already-encoded path), canonical query (RFC 3986 encoding, sorted),
   canonical headers (lower-case names, values trimmed with inner runs of spaces collapsed,
   sorted), the signed header names, and the hex SHA-256 of the body;
2. string to sign: ``AWS4-HMAC-SHA256``, the timestamp, the scope
   ``date/region/service/aws4_request`` and the hex SHA-256 of the canonical request;
3. signing key: HMAC-SHA256 chained over ``"AWS4" + secret``, date, region, service,
   ``aws4_request``; the signature is the hex HMAC of the string to sign under it.

Every header handed in is signed except those a proxy may rewrite (``user-agent``,
``expect``, ``x-amzn-trace-id``) and ``authorization`` itself.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import quote, unquote, urlsplit

ALGORITHM = "AWS4-HMAC-SHA256"
_UNSIGNED = frozenset({"user-agent", "expect", "x-amzn-trace-id", "authorization"})


@dataclass(frozen=True)
class AwsCredentials:
    """One set of AWS keys. ``expires`` is when temporary keys stop working (UTC)."""

    access_key_id: str
    secret_access_key: str = field(repr=False)
    session_token: str | None = field(default=None, repr=False)
    expires: datetime | None = None
    source: str = ""


def _encode(text: str) -> str:
    return quote(text, safe="-_.~")


def canonical_uri(path: str) -> str:
    """The path as signed: every segment of the sent (already encoded) path encoded again."""
    if not path:
        return "/"
    return "/".join(_encode(segment) for segment in path.split("/"))


def canonical_query(query: str) -> str:
    pairs: list[tuple[str, str]] = []
    for item in query.split("&") if query else ():
        key, _, value = item.partition("=")
        pairs.append((_encode(unquote(key)), _encode(unquote(value))))
    return "&".join(f"{k}={v}" for k, v in sorted(pairs))


def _header_value(value: str) -> str:
    return " ".join(value.strip().split())


def sign(
    *,
    method: str,
    url: str,
    headers: Mapping[str, str],
    body: bytes,
    credentials: AwsCredentials,
    region: str,
    service: str,
    now: datetime | None = None,
) -> dict[str, str]:
    """The headers to add to the request: ``x-amz-date``, ``x-amz-security-token`` (with
    temporary keys) and ``authorization``. ``headers`` must not hold ``host``: it is taken
    from the URL, as the HTTP client will send it."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    amz_date = moment.strftime("%Y%m%dT%H%M%SZ")
    day = amz_date[:8]
    parts = urlsplit(url)
    added = {"x-amz-date": amz_date}
    if credentials.session_token:
        added["x-amz-security-token"] = credentials.session_token
    signed: dict[str, str] = {"host": parts.netloc}
    for name, value in {**headers, **added}.items():
        lower = name.lower()
        if lower not in _UNSIGNED and lower != "host":
            signed[lower] = _header_value(value)
    names = sorted(signed)
    canonical = "\n".join(
        [
            method.upper(),
            canonical_uri(parts.path),
            canonical_query(parts.query),
            "".join(f"{name}:{signed[name]}\n" for name in names),
            ";".join(names),
            hashlib.sha256(body).hexdigest(),
        ]
    )
    scope = f"{day}/{region}/{service}/aws4_request"
    to_sign = "\n".join(
        [ALGORITHM, amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()]
    )
    key = ("AWS4" + credentials.secret_access_key).encode()
    for part in (day, region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    added["authorization"] = (
        f"{ALGORITHM} Credential={credentials.access_key_id}/{scope}, "
        f"SignedHeaders={';'.join(names)}, Signature={signature}"
    )
    return added


__all__ = ["ALGORITHM", "AwsCredentials", "canonical_query", "canonical_uri", "sign"]
