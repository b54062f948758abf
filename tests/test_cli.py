"""The command line as a user runs it: a real `python -m earshot` process per test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from earshot import __version__
from earshot.providers.catalog import ModelCatalog
from tests.fake_provider import FakeProvider, anthropic

HEAVY = ("httpx", "rich", "prompt_toolkit", "mcp", "cyclopts", "earshot.providers.catalog")


def earshot(
    *args: str, stdin: str = "", env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "earshot", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        timeout=60,
        check=False,
    )


def _imports_after(args: list[str]) -> set[str]:
    probe = (
        "import sys, json\n"
        "from earshot.cli._entry import main\n"
        f"code = main({args!r})\n"
        "sys.stderr.write(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    return set(json.loads(done.stderr))


def test_version_prints_the_version() -> None:
    done = earshot("--version")
    assert done.returncode == 0
    assert done.stdout == f"earshot {__version__}\n"


def test_version_and_help_import_nothing_heavy() -> None:
    for args in (["--version"], ["--help"]):
        loaded = _imports_after(args)
        assert not [m for m in loaded if m.startswith(HEAVY)], args


def test_a_headless_run_with_no_mcp_server_imports_neither_mcp_nor_pydantic(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.script(anthropic.text_turn("hi"))
    probe = (
        "import sys, json\n"
        "from earshot.cli._entry import main\n"
        "code = main(['--model', 'anthropic/claude-sonnet-4-6', '-p', 'hello'])\n"
        "sys.stderr.write(json.dumps(sorted(sys.modules)))\n"
    )
    env = {
        **os.environ,
        "ANTHROPIC_API_KEY": "sk-ant-test-key-0123456789",
        "ANTHROPIC_BASE_URL": fake_provider.base_url,
    }
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=True,
        timeout=60,
    )
    assert done.stdout == "hi\n"
    loaded = set(json.loads(done.stderr.splitlines()[-1]))
    assert "earshot.core.agent_session" in loaded  # the run did happen in this process
    assert not [m for m in loaded if m == "mcp" or m.startswith(("mcp.", "pydantic"))]
    assert not [m for m in loaded if m.startswith("earshot.mcp")]  # not even the config


def test_help_lists_every_command() -> None:
    done = earshot("--help")
    assert done.returncode == 0
    for command in ("providers", "models", "auth"):
        assert f"  {command}" in done.stdout


def test_providers_json_lists_at_least_19_with_key_status() -> None:
    done = earshot("providers", "--json", env={"GROQ_API_KEY": "gsk-secret-for-test"})
    assert done.returncode == 0
    rows = json.loads(done.stdout)
    assert len(rows) >= 19
    by_id = {row["id"]: row for row in rows}
    assert by_id["groq"]["key_set"] is True
    assert by_id["groq"]["key_source"] == "env GROQ_API_KEY"
    assert by_id["anthropic"]["key_set"] is False
    assert by_id["anthropic"]["env"] == ["ANTHROPIC_API_KEY"]
    assert by_id["openai"]["base_url"] == "https://api.openai.com/v1"
    assert "gsk-secret-for-test" not in done.stdout


def test_providers_table_shows_base_url_overrides_from_env() -> None:
    done = earshot("providers", env={"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
    assert done.returncode == 0
    line = next(row for row in done.stdout.splitlines() if row.startswith("anthropic "))
    assert "http://127.0.0.1:9" in line


def test_models_anthropic_prints_prices_from_the_catalog() -> None:
    catalog = ModelCatalog.load()
    priced = [m for m in catalog.models("anthropic") if m.cost is not None]
    assert priced
    done = earshot("models", "anthropic", "--json")
    assert done.returncode == 0
    rows = {row["id"]: row for row in json.loads(done.stdout)}
    for info in priced:
        assert info.cost is not None
        assert rows[info.ref]["cost_per_million"]["input"] == info.cost.input
        assert rows[info.ref]["cost_per_million"]["output"] == info.cost.output
        assert rows[info.ref]["context"] == info.context
    table = earshot("models", "anthropic")
    sample = priced[0]
    assert sample.cost is not None
    line = next(r for r in table.stdout.splitlines() if r.startswith(sample.ref + " "))
    assert f"{sample.cost.input:.2f}" in line
    detail = earshot("models", sample.ref).stdout  # the table says 200k; the detail all
    assert f"{sample.context:,} tokens" in detail


def test_unknown_provider_exits_2_with_close_matches() -> None:
    done = earshot("models", "antropic")
    assert done.returncode == 2
    assert "anthropic" in done.stderr
    assert done.stdout == ""


def test_unknown_model_exits_2_with_close_matches() -> None:
    catalog = ModelCatalog.load()
    real = catalog.models("anthropic")[-1].ref
    typo = real[:-1] + ("x" if real[-1] != "x" else "y")
    done = earshot("models", typo)
    assert done.returncode == 2
    assert "did you mean" in done.stderr.lower()


def test_unknown_command_is_a_usage_error() -> None:
    done = earshot("frobnicate")
    assert done.returncode == 2
    assert "frobnicate" in done.stderr


def test_auth_login_status_logout_never_print_the_key(hermetic_env: Path) -> None:
    key = "sk-ant-test-0123456789abcdef"
    login = earshot("auth", "login", "anthropic", stdin=key + "\n")
    assert login.returncode == 0, login.stderr
    stored = json.loads((hermetic_env / ".config/earshot/auth.json").read_text())
    assert stored["keys"]["anthropic"]["key"] == key
    status = earshot("auth", "status")
    assert "anthropic" in status.stdout
    line = next(r for r in status.stdout.splitlines() if r.startswith("anthropic "))
    assert "auth.json" in line
    providers = json.loads(earshot("providers", "--json").stdout)
    assert next(p for p in providers if p["id"] == "anthropic")["key_source"] == "auth.json"
    logout = earshot("auth", "logout", "anthropic")
    assert logout.returncode == 0
    for done in (login, status, logout):
        assert key not in done.stdout + done.stderr
    assert (
        "anthropic"
        not in json.loads((hermetic_env / ".config/earshot/auth.json").read_text())["keys"]
    )


def test_auth_login_for_an_unknown_provider_stores_nothing(hermetic_env: Path) -> None:
    done = earshot("auth", "login", "antropic", stdin="k\n")
    assert done.returncode == 2
    assert "anthropic" in done.stderr
    assert not (hermetic_env / ".config/earshot/auth.json").exists()


def test_malformed_settings_exit_2_naming_file_line_and_column(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    settings = tmp_path / ".earshot" / "settings.json"
    settings.parent.mkdir()
    text = '{\n  "providers": {\n    "groq": {"base_url": "http://x",}\n  }\n}\n'
    settings.write_text(text)
    done = earshot("providers", cwd=tmp_path)
    assert done.returncode == 2
    assert f"{settings}:3:" in done.stderr
    assert settings.read_text() == text


def test_models_refresh_fetches_the_live_catalog_into_the_cache(hermetic_env: Path) -> None:
    import http.server
    import threading

    api = {
        "anthropic": {
            "id": "anthropic",
            "name": "Anthropic",
            "env": ["ANTHROPIC_API_KEY"],
            "npm": "@ai-sdk/anthropic",
            "models": {
                "claude-next-9": {
                    "id": "claude-next-9",
                    "name": "Claude Next 9",
                    "attachment": True,
                    "reasoning": True,
                    "tool_call": True,
                    "release_date": "2026-11-01",
                    "modalities": {"input": ["text", "image"], "output": ["text"]},
                    "limit": {"context": 500000, "output": 64000},
                    "cost": {"input": 4.0, "output": 20.0},
                }
            },
        }
    }
    body = json.dumps(api).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/api.json"
        done = earshot(
            "models", "anthropic", "--refresh", "--json", env={"EARSHOT_CATALOG_URL": url}
        )
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    assert done.returncode == 0, done.stderr
    assert "refreshed the model catalog: 1 models" in done.stderr
    rows = {row["id"]: row for row in json.loads(done.stdout)}
    assert rows["anthropic/claude-next-9"]["cost_per_million"]["input"] == 4.0
    assert (hermetic_env / ".cache/earshot/catalog.json").exists()
    assert "anthropic/claude-next-9" in earshot("models", "anthropic").stdout


def test_models_refresh_failure_keeps_the_catalog_and_exits_1() -> None:
    done = earshot(
        "models", "--refresh", env={"EARSHOT_CATALOG_URL": "http://127.0.0.1:9/api.json"}
    )
    assert done.returncode == 1
    assert "catalog refresh" in done.stderr
    assert "anthropic/" in earshot("models", "anthropic").stdout


def test_a_closed_pipe_ends_every_command_quietly(tmp_path: Path) -> None:
    """`earshot ... | head` where head has already gone: no traceback, the SIGPIPE status."""
    for args in (
        ["--version"],
        ["--help"],
        ["providers"],
        ["models"],
        ["auth", "status"],
        ["sessions", "list"],
        ["doctor"],
        ["permissions", "list"],
    ):
        process = subprocess.Popen(
            [sys.executable, "-m", "earshot", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
        )
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()  # the reader goes away before earshot writes a byte
        err = process.stderr.read().decode()
        process.stderr.close()
        assert process.wait(timeout=60) == 141, (args, err)
        assert "Traceback" not in err, (args, err)
        assert "BrokenPipeError" not in err, (args, err)
