"""What `earshot -p` loads before its first model request: only what that request needs.

A real `python -X importtime -m earshot -p` process against the fake provider; when the
request arrives, the modules the process has imported so far are read from its import log
(the process waits for the reply, so the log is complete up to the request).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.fake_provider import FakeProvider, RecordedRequest, Reply, ToolCallSpec, anthropic
from tests.net_support import Relay, self_signed, server_context

MODEL = "anthropic/claude-sonnet-4-6"

NOT_BEFORE_THE_FIRST_REQUEST = (
    # The tools' implementations: offered from their specs, loaded when called.
    *(f"earshot.core.tools.{module}" for module in ("bash", "grep", "web_fetch", "edit", "read")),
    "earshot.core.tools._shell",
    "earshot.core.tools._grep_search",
    "earshot.core.tools._html",
    "html.parser",
    # The decision order and the bash parser: loaded when the gate first decides a call.
    "earshot.core.permissions.decision",
    "earshot.core.permissions.shell",
    "earshot.core.permissions._line",
    "tree_sitter",
    "tree_sitter_bash",
)


def _imported(log: Path) -> set[str]:
    names = set()
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name != "imported package":
                names.add(name)
    return names


def _run(
    fake: FakeProvider, cwd: Path, log: Path, **extra: str
) -> subprocess.CompletedProcess[str]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")},
        "ANTHROPIC_API_KEY": "sk-ant-test-key-0123456789",
        "ANTHROPIC_BASE_URL": fake.base_url,
        "HOME": str(cwd.parent / "home"),
        "XDG_CONFIG_HOME": str(cwd.parent / "home" / ".config"),
        **extra,
    }
    with log.open("w") as stderr:
        return subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "earshot", "--model", MODEL, "-p", "hi"],
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            cwd=cwd,
            env=env,
            timeout=60,
            check=False,
        )


def test_the_first_request_waits_for_no_tool_module_and_no_shell_parser(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    log = tmp_path / "imports.log"
    before: list[set[str]] = []

    def at_the_request(request: RecordedRequest) -> Reply | None:
        if not before:
            before.append(_imported(log))
        return None

    fake_provider.responder = at_the_request
    fake_provider.script(anthropic.text_turn("hello"))
    done = _run(fake_provider, work, log)
    assert done.returncode == 0, log.read_text()[-2000:]
    assert done.stdout == "hello\n"
    (loaded,) = before
    assert "earshot.core.agent_session" in loaded  # the log was read at the request
    assert sorted(loaded & set(NOT_BEFORE_THE_FIRST_REQUEST)) == []
    assert "earshot.core.tools.read" not in _imported(log)  # never called, never loaded


HTTPX_STACK = ("httpx", "httpcore", "h11", "http.client", "email", "http.cookiejar")


def test_a_direct_run_never_loads_httpx_or_what_it_pulls_in(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    log = tmp_path / "imports.log"
    fake_provider.script(anthropic.text_turn("direct"))
    done = _run(fake_provider, work, log)
    assert done.returncode == 0, log.read_text()[-2000:]
    assert done.stdout == "direct\n"
    assert sorted(_imported(log) & set(HTTPX_STACK)) == []  # the whole run, up to its exit
    assert fake_provider.connections == 1  # the early connection carried the request


def test_with_a_proxy_configured_the_request_goes_through_it(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    relay = Relay(int(fake_provider.base_url.rsplit(":", 1)[1]))
    fake_provider.script(anthropic.text_turn("via the proxy"))
    try:
        done = _run(fake_provider, work, tmp_path / "imports.log", HTTP_PROXY=relay.url)
    finally:
        relay.close()
    assert done.returncode == 0, (tmp_path / "imports.log").read_text()[-2000:]
    assert done.stdout == "via the proxy\n"
    assert relay.lines == [f"POST {fake_provider.base_url}/v1/messages HTTP/1.1"]


def test_an_https_provider_is_reached_over_tls_with_the_certificates_named_by_ssl_cert_file(
    tmp_path: Path,
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    cert, key = self_signed(tmp_path)
    log = tmp_path / "imports.log"
    with FakeProvider(tls=server_context(cert, key)) as fake:
        fake.script(anthropic.text_turn("secure"))
        done = _run(fake, work, log, SSL_CERT_FILE=str(cert))
        assert done.returncode == 0, log.read_text()[-2000:]
        assert done.stdout == "secure\n"
        assert fake.connections == 1
    assert "httpx" not in _imported(log)


def test_a_tool_loads_when_the_model_first_calls_it(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("alpha\n")
    log = tmp_path / "imports.log"
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("toolu_1", "read", {"path": "notes.txt"})]),
        anthropic.text_turn("done"),
    )
    done = _run(fake_provider, work, log)
    assert done.returncode == 0, log.read_text()[-2000:]
    assert done.stdout.endswith("done\n")
    assert "alpha" in str(fake_provider.requests[1].json())  # the file's text reached the model
    loaded = _imported(log)
    assert "earshot.core.tools.read" in loaded
    assert not loaded & {f"earshot.core.tools.{m}" for m in ("bash", "grep", "web_fetch")}


def _system_text(request: RecordedRequest) -> str:
    body = request.json()
    assert isinstance(body, dict)
    return str(body.get("system"))


def test_the_first_request_says_the_repository_state_git_found_while_the_session_opened(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q", "-b", "trunk"], cwd=work, check=True)
    (work / "a.txt").write_text("one\n")
    subprocess.run([*git, "add", "a.txt"], cwd=work, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "first"], cwd=work, check=True)
    (work / "a.txt").write_text("two\n")
    (work / "b.txt").write_text("new\n")
    fake_provider.script(anthropic.text_turn("in a repo"), anthropic.text_turn("outside"))
    assert _run(fake_provider, work, tmp_path / "in.log").returncode == 0
    outside = tmp_path / "outside"
    outside.mkdir()
    assert _run(fake_provider, outside, tmp_path / "out.log").returncode == 0
    in_repo, no_repo = (_system_text(r) for r in fake_provider.requests)
    assert "git: trunk; 2 changed file(s)" in in_repo
    assert "git:" not in no_repo
