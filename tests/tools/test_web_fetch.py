"""The web_fetch tool against a real loopback HTTP(S) server: HTML as readable text,
redirects (bounded, same host, no downgrade), schemes, binary types, size and time caps,
abort, HTTP errors; and the HTML converter on its own."""

from __future__ import annotations

import shutil
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anyio
import pytest

from earshot.core.tools import web_fetch
from earshot.core.tools._html import html_to_text
from earshot.core.tools.base import ToolContext, ToolError, ToolResult
from earshot.core.tools.display import Fetched
from earshot.core.tools.state import ToolState
from earshot.core.tools.web_fetch import TOOL
from earshot.providers.types import JSONObject, TextPart


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


PAGE = """<!doctype html>
<html><head><title>The  Guide</title>
<style>body { color: red }</style><script>var secret = "script text";</script></head>
<body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<h1>Getting started</h1>
<p>Install   the
tool with <a href="/install">the installer</a>, then run <code>earshot --help</code>.</p>
<h2>Steps</h2>
<ul><li>Download</li><li>Configure <ul><li>Set the key</li></ul></li></ul>
<pre><code class="language-python">def main():
    return  1
</code></pre>
<noscript>Please enable JavaScript</noscript>
</body></html>
"""


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, status: int, body: bytes, content_type: str | None, **headers: str) -> None:
        self.send_response(status)
        if content_type is not None:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def _redirect(self, location: str) -> None:
        self._send(302, b"", "text/plain", Location=location)

    def do_GET(self) -> None:
        path = self.path
        self.server.requests.append(path)
        if path == "/page":
            self._send(200, PAGE.encode(), "text/html; charset=utf-8")
        elif path == "/plain":
            self._send(200, b"plain   text\n  kept as sent\n", "text/plain")
        elif path == "/data.json":
            self._send(200, b'{"name": "earshot", "tools": [1, 2]}', "application/json")
        elif path == "/latin1":
            self._send(200, "<p>caf\u00e9</p>".encode("latin-1"), "text/html; charset=iso-8859-1")
        elif path == "/untyped":
            self._send(200, b"just some words", None)
        elif path.startswith("/hop/"):
            left = int(path.removeprefix("/hop/"))
            if left:
                self._redirect(f"/hop/{left - 1}")
            else:
                self._send(200, b"arrived", "text/plain")
        elif path == "/to-other-host":
            self._redirect(f"http://www.other.invalid:{self.server.server_address[1]}/plain")
        elif path == "/to-localhost":
            self._redirect(f"http://localhost:{self.server.server_address[1]}/plain")
        elif path == "/to-ftp":
            self._redirect("ftp://127.0.0.1/file.txt")
        elif path == "/to-http":
            self._redirect(self.server.downgrade_to)
        elif path == "/image.png":
            self._send(200, b"\x89PNG\r\n\x1a\n" + bytes(2038), "image/png")
        elif path == "/big":
            self._send(200, b"0123456789abcdef\n" * 65536, "text/plain")
        elif path == "/slow":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "4")
            self.end_headers()
            self.wfile.flush()
            self.server.release.wait(10)
            self.wfile.write(b"late")
        elif path == "/missing":
            self._send(404, b"<html><body><p>No such page here</p></body></html>", "text/html")
        else:
            self._send(500, b"unexpected path", "text/plain")


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[str] = []
        self.release = threading.Event()
        self.downgrade_to = ""

    def url(self, path: str) -> str:
        scheme = "https" if isinstance(self.socket, ssl.SSLSocket) else "http"
        return f"{scheme}://127.0.0.1:{self.server_address[1]}{path}"


def _serving(server: _Server) -> Iterator[_Server]:
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture
def site() -> Iterator[_Server]:
    yield from _serving(_Server())


@pytest.fixture
def tls_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[_Server]:
    """An https server with a self-signed certificate for 127.0.0.1 that the fetch trusts
    (through SSL_CERT_FILE, which httpx honours)."""
    openssl = shutil.which("openssl")
    assert openssl is not None, "these tests need the openssl command to make a certificate"
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    argv = [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"]
    argv += ["-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"]
    argv += ["-addext", "subjectAltName=IP:127.0.0.1"]
    made = subprocess.run(
        argv,
        capture_output=True,
        check=False,
    )
    assert made.returncode == 0, f"openssl could not make a certificate: {made.stderr[-200:]!r}"
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    server = _Server()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    yield from _serving(server)


def make_ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, state=ToolState())


async def fetch(ctx: ToolContext, args: JSONObject) -> ToolResult:
    return await TOOL.execute(TOOL.parse(args), ctx)


def text_of(result: ToolResult) -> str:
    part = result.content[0]
    assert isinstance(part, TextPart)
    return part.text


# --- content ---------------------------------------------------------------------------


@pytest.mark.anyio
async def test_web_fetch_turns_html_into_readable_text(site: _Server, tmp_path: Path) -> None:
    result = await fetch(make_ctx(tmp_path), {"url": site.url("/page")})
    text = text_of(result)
    assert not result.is_error
    assert f"URL: {site.url('/page')}" in text
    assert "Status: 200 OK" in text
    assert "Content-Type: text/html" in text
    assert "Title: The Guide" in text
    assert "\n# Getting started\n" in text
    assert "\n## Steps\n" in text
    assert (
        f"Install the tool with the installer ({site.url('/install')}), "
        "then run `earshot --help`." in text
    )
    assert "\n- Download\n- Configure\n  - Set the key\n" in text
    assert "```python\ndef main():\n    return  1\n```" in text
    for dropped in ("script text", "color: red", "Home", "About", "enable JavaScript"):
        assert dropped not in text
    assert result.display == Fetched(url=site.url("/page"), status=200, content_type="text/html")
    assert result.brief.startswith("Fetched 127.0.0.1 (200,")


@pytest.mark.anyio
async def test_web_fetch_returns_plain_text_and_json_as_sent(site: _Server, tmp_path: Path) -> None:
    plain = text_of(await fetch(make_ctx(tmp_path), {"url": site.url("/plain")}))
    assert plain.endswith("\n\nplain   text\n  kept as sent\n")
    data = text_of(await fetch(make_ctx(tmp_path), {"url": site.url("/data.json")}))
    assert "Content-Type: application/json" in data
    assert data.endswith('\n\n{"name": "earshot", "tools": [1, 2]}')


@pytest.mark.anyio
async def test_web_fetch_decodes_the_charset_the_server_names(
    site: _Server, tmp_path: Path
) -> None:
    text = text_of(await fetch(make_ctx(tmp_path), {"url": site.url("/latin1")}))
    assert text.endswith("\n\ncaf\u00e9")


@pytest.mark.anyio
async def test_web_fetch_treats_an_untyped_text_body_as_text(site: _Server, tmp_path: Path) -> None:
    text = text_of(await fetch(make_ctx(tmp_path), {"url": site.url("/untyped")}))
    assert "Content-Type: text (no content type sent)" in text
    assert text.endswith("\n\njust some words")


@pytest.mark.anyio
async def test_web_fetch_describes_binary_content_by_type_and_size(
    site: _Server, tmp_path: Path
) -> None:
    result = await fetch(make_ctx(tmp_path), {"url": site.url("/image.png")})
    text = text_of(result)
    assert not result.is_error
    assert "[binary content: image/png, 2.0 KiB; not shown." in text


@pytest.mark.anyio
async def test_web_fetch_notes_the_prompt_above_the_content(site: _Server, tmp_path: Path) -> None:
    args: JSONObject = {"url": site.url("/plain"), "prompt": "the install steps"}
    text = text_of(await fetch(make_ctx(tmp_path), args))
    assert "\nLooking for: the install steps\n" in text


# --- caps ------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_web_fetch_stops_reading_at_the_size_cap(
    site: _Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_fetch, "MAX_BYTES", 64 * 1024)
    args: JSONObject = {"url": site.url("/big"), "max_chars": web_fetch.LIMIT_MAX_CHARS}
    text = text_of(await fetch(make_ctx(tmp_path), args))
    assert "Note: the body is larger than 64.0 KiB; only that much was read" in text
    body = text.split("\n\n", 1)[1]
    assert len(body) == 64 * 1024
    assert "cut;" not in body


@pytest.mark.anyio
async def test_web_fetch_caps_output_at_max_chars_with_a_marker(
    site: _Server, tmp_path: Path
) -> None:
    args: JSONObject = {"url": site.url("/big"), "max_chars": 1000}
    text = text_of(await fetch(make_ctx(tmp_path), args))
    body = text.split("\n\n", 1)[1]
    head, marker = body.rsplit("\n", 1)[0].rsplit("\n", 1)
    assert len(head) <= 1000
    assert marker.startswith("[... ")
    assert "call again with a larger max_chars (up to 200,000) to see more" in marker


def test_web_fetch_max_chars_is_bounded_by_the_schema() -> None:
    with pytest.raises(ToolError, match="max_chars"):
        TOOL.parse({"url": "https://example.com", "max_chars": 10_000_000})


@pytest.mark.anyio
async def test_web_fetch_gives_up_on_a_slow_server_at_the_time_cap(
    site: _Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_fetch, "TIMEOUT_SECONDS", 0.3)
    with anyio.fail_after(5):
        with pytest.raises(ToolError, match=r"did not finish within 0\.3 s") as caught:
            await fetch(make_ctx(tmp_path), {"url": site.url("/slow")})
    assert caught.value.brief == "timed out"


@pytest.mark.anyio
async def test_web_fetch_ends_when_aborted(site: _Server, tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)

    async def abort_soon() -> None:
        await anyio.sleep(0.2)
        ctx.abort.set()

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(abort_soon)
            with pytest.raises(ToolError, match="interrupted while fetching"):
                await fetch(ctx, {"url": site.url("/slow")})


@pytest.mark.anyio
async def test_web_fetch_does_not_start_once_aborted(site: _Server, tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    ctx.abort.set()
    with pytest.raises(ToolError, match="interrupted"):
        await fetch(ctx, {"url": site.url("/plain")})
    assert site.requests == []


# --- redirects -------------------------------------------------------------------------


@pytest.mark.anyio
async def test_web_fetch_follows_redirects_up_to_the_limit_and_reports_the_final_url(
    site: _Server, tmp_path: Path
) -> None:
    result = await fetch(make_ctx(tmp_path), {"url": site.url("/hop/5")})
    text = text_of(result)
    assert f"URL: {site.url('/hop/0')}" in text
    assert f"Redirected from: {site.url('/hop/5')} (5 hops)" in text
    assert text.endswith("\n\narrived")
    assert isinstance(result.display, Fetched)
    assert result.display.url == site.url("/hop/0")


@pytest.mark.anyio
async def test_web_fetch_refuses_a_redirect_chain_beyond_the_limit(
    site: _Server, tmp_path: Path
) -> None:
    with pytest.raises(ToolError, match="redirected more than 5 times") as caught:
        await fetch(make_ctx(tmp_path), {"url": site.url("/hop/6")})
    assert caught.value.brief == "too many redirects"
    assert site.requests == [f"/hop/{n}" for n in range(6, 0, -1)]


@pytest.mark.anyio
async def test_web_fetch_does_not_follow_a_redirect_to_another_host(
    site: _Server, tmp_path: Path
) -> None:
    target = f"http://www.other.invalid:{site.server_address[1]}/plain"
    with pytest.raises(ToolError, match="redirected to another host") as caught:
        await fetch(make_ctx(tmp_path), {"url": site.url("/to-other-host")})
    assert target in caught.value.message
    assert "Call web_fetch with that URL" in caught.value.message
    assert site.requests == ["/to-other-host"]


@pytest.mark.anyio
async def test_a_redirect_between_spellings_of_one_host_is_followed(
    site: _Server, tmp_path: Path
) -> None:
    # 127.0.0.1 and localhost are one place, and one host to the permission gate
    result = await fetch(make_ctx(tmp_path), {"url": site.url("/to-localhost")})
    assert "kept as sent" in text_of(result)
    assert site.requests == ["/to-localhost", "/plain"]


@pytest.mark.anyio
async def test_web_fetch_refuses_a_redirect_to_a_non_http_scheme(
    site: _Server, tmp_path: Path
) -> None:
    with pytest.raises(ToolError, match=r"ftp://127\.0\.0\.1/file\.txt, which is not an http"):
        await fetch(make_ctx(tmp_path), {"url": site.url("/to-ftp")})


@pytest.mark.anyio
async def test_web_fetch_refuses_an_https_to_http_downgrade(
    tls_site: _Server, site: _Server, tmp_path: Path
) -> None:
    tls_site.downgrade_to = site.url("/plain")
    assert tls_site.url("/plain").startswith("https://")
    fetched = text_of(await fetch(make_ctx(tmp_path), {"url": tls_site.url("/plain")}))
    assert "kept as sent" in fetched
    with pytest.raises(ToolError, match="from https to plain http") as caught:
        await fetch(make_ctx(tmp_path), {"url": tls_site.url("/to-http")})
    assert "downgrade is not followed" in caught.value.message
    assert site.requests == []


# --- refusals and errors ---------------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("file:///etc/passwd", r"not the file: scheme.*use read"),
        ("ftp://example.com/x", "not the ftp: scheme"),
        ("javascript:alert(1)", "not the javascript: scheme"),
        ("example.com/page", "not a URL without a scheme"),
    ],
)
async def test_web_fetch_refuses_non_http_schemes(tmp_path: Path, url: str, expected: str) -> None:
    with pytest.raises(ToolError, match=expected):
        await fetch(make_ctx(tmp_path), {"url": url})


@pytest.mark.anyio
async def test_web_fetch_refuses_a_url_without_a_host(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="has no host"):
        await fetch(make_ctx(tmp_path), {"url": "https:///path"})


@pytest.mark.anyio
async def test_web_fetch_reports_a_404_with_its_status_and_body(
    site: _Server, tmp_path: Path
) -> None:
    with pytest.raises(ToolError, match="HTTP 404 Not Found from") as caught:
        await fetch(make_ctx(tmp_path), {"url": site.url("/missing")})
    assert "No such page here" in caught.value.message
    assert caught.value.brief == "HTTP 404 Not Found"


@pytest.mark.anyio
async def test_web_fetch_reports_a_connection_failure(tmp_path: Path) -> None:
    server = _Server()
    port = server.server_address[1]
    server.server_close()
    with pytest.raises(ToolError, match=r"could not fetch.*ConnectError"):
        await fetch(make_ctx(tmp_path), {"url": f"http://127.0.0.1:{port}/"})


# --- permission and import -------------------------------------------------------------


def test_web_fetch_asks_permission_to_fetch_from_the_host(tmp_path: Path) -> None:
    args = TOOL.parse({"url": " https://Docs.Example.com:8443/a?b=1 "})
    request = TOOL.describe(args, make_ctx(tmp_path))
    assert request.kind == "fetch"
    assert request.domain == "docs.example.com"
    assert request.detail == "https://Docs.Example.com:8443/a?b=1"
    assert not TOOL.read_only


def test_web_fetch_module_does_not_import_httpx() -> None:
    code = "import sys, earshot.core.tools.web_fetch; print('httpx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- the HTML converter ----------------------------------------------------------------


def test_html_links_become_text_then_absolute_url() -> None:
    html = '<p><a href="b.html">next</a> and <a href="https://x.org/">https://x.org/</a></p>'
    assert html_to_text(html, "https://site.test/a/") == (
        "next (https://site.test/a/b.html) and https://x.org/"
    )


def test_html_links_to_the_same_page_or_scripts_keep_only_their_text() -> None:
    html = '<p><a href="#top">top</a> <a href="javascript:void(0)">menu</a></p>'
    assert html_to_text(html) == "top menu"


def test_html_collapses_whitespace_and_blank_lines_outside_pre() -> None:
    html = "<div>\n  a \t  b\n</div>\n\n\n<div></div><div></div><p>c&nbsp;&amp; d</p>"
    assert html_to_text(html) == "a b\n\nc & d"


def test_html_keeps_pre_blocks_verbatim() -> None:
    html = "<p>x</p><pre>  indented\n\n\n<b>bold</b>  tail  </pre>"
    assert html_to_text(html) == "x\n\n```\n  indented\n\n\nbold  tail\n```"


def test_html_tables_become_rows_of_cells() -> None:
    html = "<table><tr><th>name</th><th>size</th></tr><tr><td>a</td><td>1</td></tr></table>"
    assert html_to_text(html) == "name | size\na | 1"


def test_html_images_show_their_alt_text() -> None:
    assert html_to_text('<p>see <img src="x.png" alt="a chart"></p>') == "see [image: a chart]"


def test_html_unclosed_tags_do_not_raise() -> None:
    assert html_to_text("<ul><li>one<li>two</ul><p>end") == "- one\n- two\n\nend"
