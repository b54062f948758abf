"""The ``web_fetch`` tool: one http(s) URL, fetched and returned as text for the model.

::

    check the scheme (http or https only)
    GET, following up to MAX_REDIRECTS redirects by hand; each hop is checked again:
        a non-http(s) target, a https -> http downgrade, or another host is not followed
    read at most MAX_BYTES of the body; the whole fetch is bounded by TIMEOUT_SECONDS
    text/html            -> readable text (``_html.html_to_text``)
    text/*, JSON, XML    -> as sent
    anything else        -> a line naming the type and size
    non-2xx status       -> an error result with the status and the start of the body

A redirect to another host is reported, not followed, so the permission gate sees every
domain fetched. ``MAX_REDIRECTS``, ``MAX_BYTES`` and ``TIMEOUT_SECONDS`` are read at each
call (tests lower them). httpx is imported inside the call, never at module import.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated
from urllib.parse import urlsplit

import anyio
import msgspec

from earshot import __version__
from earshot._base.aio import race
from earshot.core.permissions.hosts import canonical_host
from earshot.core.tools._html import html_to_text
from earshot.core.tools._output import cap_text
from earshot.core.tools.base import (
    PermissionRequest,
    ToolContext,
    ToolError,
    ToolResult,
    define_tool,
)
from earshot.core.tools.display import Fetched

if TYPE_CHECKING:
    import httpx

MAX_REDIRECTS = 5
MAX_BYTES = 5 * 1024 * 1024
TIMEOUT_SECONDS = 30.0
DEFAULT_MAX_CHARS = 50_000
LIMIT_MAX_CHARS = 200_000
ERROR_BODY_CHARS = 2_000

DESCRIPTION = """
Fetch an http(s) URL as text: HTML made readable (links as `text (url)`), text and JSON as
sent, other types only described. A redirect to another host is named, not followed. No
JavaScript: script-built pages may come back nearly empty.
"""


class WebFetchInput(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    url: str
    prompt: Annotated[
        str | None,
        msgspec.Meta(description="What you look for; shown above the page"),
    ] = None
    max_chars: Annotated[
        int,
        msgspec.Meta(ge=1_000, le=LIMIT_MAX_CHARS),
    ] = DEFAULT_MAX_CHARS


@dataclass(frozen=True)
class _Page:
    url: str
    status: int
    reason: str
    content_type: str
    charset: str | None
    body: bytes
    truncated: bool
    declared_size: int | None
    hops: int


# --- checking URLs ---------------------------------------------------------------------


def _host(url: str) -> str | None:
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None


def _check_url(url: str) -> str:
    """``url`` stripped, or ``ToolError`` when it is not an http(s) URL with a host."""
    url = url.strip()
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError as exc:
        raise ToolError(f"{url!r} is not a valid URL ({exc}); pass a full https:// URL") from exc
    scheme = parts.scheme.lower()
    if scheme not in {"http", "https"}:
        shown = f"the {scheme}: scheme" if scheme else "a URL without a scheme"
        raise ToolError(
            f"web_fetch fetches http:// and https:// URLs only, not {shown} ({url}); "
            + (
                "use read for local files"
                if scheme == "file"
                else "pass a full URL starting with https://"
            ),
            f"refused {scheme or 'schemeless'} URL",
        )
    if not host:
        raise ToolError(f"{url!r} has no host; pass a full URL such as https://example.com/page")
    return url


def _same_site(a: str, b: str) -> bool:
    """The same host as the client connects to it (``www.`` is another host: a rule may
    name it, and the gate saw only the first)."""
    host_a, host_b = connect_host(a), connect_host(b)
    return host_a is not None and host_a == host_b


def connect_host(url: str) -> str | None:
    """The host the HTTP client will connect to for ``url`` (parsed by httpx itself, so
    userinfo, ports and odd separators are read as the connection reads them), in the
    spelling rules are compared with; None when the client cannot parse the URL."""
    import httpx

    try:
        host = httpx.URL(url).host
    except (httpx.InvalidURL, ValueError, UnicodeError):
        return None
    return canonical_host(host) if host else None


def _check_hop(source: str, target: str, original: str) -> None:
    """Refuse a redirect the gate did not see: another scheme, a downgrade, another host."""
    scheme = urlsplit(target).scheme.lower()
    if scheme not in {"http", "https"}:
        raise ToolError(
            f"{source} redirected to {target}, which is not an http(s) URL; it was not followed",
            "redirect to a non-http URL refused",
        )
    if urlsplit(source).scheme.lower() == "https" and scheme == "http":
        raise ToolError(
            f"{source} redirected from https to plain http ({target}); a downgrade is "
            "not followed. Fetch the http URL yourself only if an unencrypted page is "
            "acceptable",
            "https -> http redirect refused",
        )
    if not _same_site(source, target):
        raise ToolError(
            f"{original} redirected to another host: {target}; it was not followed. "
            "Call web_fetch with that URL to fetch it",
            f"redirected to {_host(target)}",
        )


# --- fetching --------------------------------------------------------------------------


async def _read_body(response: httpx.Response, limit: int) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        if size + len(chunk) > limit:
            chunks.append(chunk[: limit - size])
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), False


async def _fetch(url: str) -> _Page:
    import httpx

    limit = MAX_BYTES
    headers = {
        "User-Agent": f"earshot/{__version__} (web_fetch)",
        "Accept": "text/html, text/plain;q=0.9, application/json;q=0.9, */*;q=0.5",
    }
    async with httpx.AsyncClient(
        follow_redirects=False, headers=headers, timeout=httpx.Timeout(TIMEOUT_SECONDS)
    ) as client:
        current = url
        for hop in range(MAX_REDIRECTS + 1):
            async with client.stream("GET", current) as response:
                location = response.headers.get("location")
                if response.is_redirect and location:
                    target = str(response.url.join(location))
                    _check_hop(current, target, url)
                    current = target
                    continue
                content_type = response.headers.get("content-type", "")
                declared = response.headers.get("content-length")
                body, truncated = (b"", False)
                if _kind(content_type) != "binary" or declared is None:
                    body, truncated = await _read_body(response, limit)
                return _Page(
                    url=str(response.url),
                    status=response.status_code,
                    reason=response.reason_phrase,
                    content_type=content_type,
                    charset=response.charset_encoding,
                    body=body,
                    truncated=truncated,
                    declared_size=int(declared) if declared and declared.isdigit() else None,
                    hops=hop,
                )
    raise ToolError(
        f"{url} redirected more than {MAX_REDIRECTS} times (last to {current}); "
        "it was not followed further. The site may be in a redirect loop; try the final "
        "URL directly or another source",
        "too many redirects",
    )


async def _fetch_bounded(url: str, abort: anyio.Event) -> _Page:
    """``_fetch`` within the time cap, ended early when ``abort`` is set; failures as
    ``ToolError``."""
    import httpx

    async def bounded() -> _Page:
        with anyio.fail_after(TIMEOUT_SECONDS):
            return await _fetch(url)

    failure: Exception | None = None
    try:
        page, aborted = await race(bounded, abort)
    except Exception as exc:
        page, aborted, failure = None, False, exc
    if aborted:
        raise ToolError(f"interrupted while fetching {url}", "interrupted")
    if isinstance(failure, ToolError):
        raise failure
    if isinstance(failure, TimeoutError | httpx.TimeoutException):
        raise ToolError(
            f"fetching {url} did not finish within {TIMEOUT_SECONDS:g} s; the server is slow "
            "or the response too large. Try again later or another source",
            "timed out",
        ) from failure
    if isinstance(failure, httpx.HTTPError | httpx.InvalidURL):
        raise ToolError(
            f"could not fetch {url}: {type(failure).__name__}: {failure or 'no detail'}; "
            "check the URL (host name, port) or try another source",
            f"fetch failed: {type(failure).__name__}",
        ) from failure
    if failure is not None:
        raise failure
    assert page is not None
    return page


# --- turning a body into text ----------------------------------------------------------

_TEXT_TYPES = frozenset(
    {
        "application/json",
        "application/ld+json",
        "application/javascript",
        "application/ecmascript",
        "application/xml",
        "application/x-yaml",
        "application/yaml",
        "application/toml",
        "application/x-sh",
        "application/sql",
        "application/graphql",
    }
)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([\w.:-]+)""", re.IGNORECASE)


def _media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def _kind(content_type: str) -> str:
    """ "html", "text", "unknown" (no type sent) or "binary"."""
    media = _media_type(content_type)
    if not media:
        return "unknown"
    if media in {"text/html", "application/xhtml+xml"}:
        return "html"
    if (
        media.startswith("text/")
        or media in _TEXT_TYPES
        or media.endswith(("+json", "+xml", "+yaml"))
    ):
        return "text"
    return "binary"


def _sniff(body: bytes) -> str:
    """ "html", "text" or "binary" for a body sent without a content type."""
    head = body[:8192]
    if b"\x00" in head:
        return "binary"
    start = head.lstrip()[:64].lower()
    return "html" if start.startswith((b"<!doctype html", b"<html")) else "text"


def _decode(body: bytes, charset: str | None, html: bool) -> str:
    if charset is None and html:
        match = _META_CHARSET.search(body[:4096])
        charset = match.group(1).decode("ascii") if match else None
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:
        return body.decode("utf-8", errors="replace")


def _size(n: int) -> str:
    if n < 1024:
        return f"{n:,} bytes"
    if n < 1024 * 1024:
        return f"{n / 1024:,.1f} KiB"
    return f"{n / (1024 * 1024):,.1f} MiB"


def _content(page: _Page) -> tuple[str, str]:
    """The page as text, and its media type as shown to the model."""
    media = _media_type(page.content_type)
    kind = _kind(page.content_type)
    if kind == "unknown":
        kind = _sniff(page.body)
        media = f"{'text/html' if kind == 'html' else kind} (no content type sent)"
    if kind == "binary":
        size = page.declared_size if page.declared_size is not None else len(page.body)
        more = "+" if page.declared_size is None and page.truncated else ""
        return (
            f"[binary content: {media}, {_size(size)}{more}; not shown. web_fetch returns "
            "text only; look for an HTML or text version of this resource]",
            media,
        )
    text = _decode(page.body, page.charset, kind == "html")
    if kind == "html":
        text = html_to_text(text, page.url)
    return text, media


def _render(args: WebFetchInput, url: str, page: _Page) -> tuple[str, str]:
    """The text for the model and the brief for the UI."""
    text, media = _content(page)
    header = [f"URL: {page.url}"]
    if page.hops:
        header.append(f"Redirected from: {url} ({page.hops} hop{'s' if page.hops > 1 else ''})")
    header.append(f"Status: {page.status} {page.reason}".rstrip())
    header.append(f"Content-Type: {media}")
    if args.prompt:
        header.append(f"Looking for: {args.prompt.strip()}")
    if page.truncated:
        header.append(f"Note: the body is larger than {_size(MAX_BYTES)}; only that much was read")
    hint = (
        f"call again with a larger max_chars (up to {LIMIT_MAX_CHARS:,}) to see more"
        if args.max_chars < LIMIT_MAX_CHARS
        else "the rest is not available through web_fetch"
    )
    body = cap_text(
        text, max_chars=args.max_chars, max_lines=args.max_chars, hint=hint, keep="head"
    )
    host = _host(page.url) or page.url
    brief = f"Fetched {host} ({page.status}, {len(text):,} chars)"
    return "\n".join(header) + "\n\n" + (body or "[the page has no readable text]"), brief


async def _execute(args: WebFetchInput, ctx: ToolContext) -> ToolResult:
    url = _check_url(args.url)
    page = await _fetch_bounded(url, ctx.abort)
    if not 200 <= page.status < 300:
        text, _ = _content(page)
        excerpt = cap_text(
            text, max_chars=ERROR_BODY_CHARS, max_lines=50, hint="body cut", keep="head"
        )
        raise ToolError(
            f"HTTP {page.status} {page.reason} from {page.url}; the server did not return "
            f"the page. Check the URL or try another source.\n\n{excerpt}".rstrip(),
            f"HTTP {page.status} {page.reason}".rstrip(),
        )
    text, brief = _render(args, url, page)
    display = Fetched(url=page.url, status=page.status, content_type=_media_type(page.content_type))
    return ToolResult.text(text, brief=brief, display=display)


def _permission(args: WebFetchInput, ctx: ToolContext) -> PermissionRequest:
    url = _check_url(args.url)
    host = connect_host(url)
    if host is None:
        raise ToolError(
            f"{url!r} has a host the HTTP client cannot read; pass a plain https:// URL",
            "unreadable host",
        )
    return PermissionRequest(tool="web_fetch", kind="fetch", domain=host, detail=url)


TOOL = define_tool(
    name="web_fetch",
    description=DESCRIPTION,
    input_type=WebFetchInput,
    execute=_execute,
    read_only=False,
    permission=_permission,
)

__all__ = [
    "DEFAULT_MAX_CHARS",
    "DESCRIPTION",
    "LIMIT_MAX_CHARS",
    "MAX_BYTES",
    "MAX_REDIRECTS",
    "TIMEOUT_SECONDS",
    "TOOL",
    "WebFetchInput",
]
