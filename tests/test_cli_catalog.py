"""The catalog and diagnostics as people use them: model aliases and bare model names,
``earshot providers`` and ``earshot models``, ``earshot doctor``'s reachability check,
the base URL in a network error, and the record a JSON reader gets for a usage error.
Real processes, against the fake provider or a closed loopback port."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from earshot.core.config.aliases import ALIASES, alias_target
from earshot.headless.render import load_schema
from earshot.providers.catalog import ModelCatalog
from tests.fake_provider import FakeProvider, anthropic

KEY = "sk-ant-catalog-test-0123456789"


def earshot(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "earshot", *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        timeout=60,
        check=False,
    )


def keyed(fake: FakeProvider) -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url}


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def records(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


# --- aliases and bare names ----------------------------------------------------------------


def test_every_alias_names_a_model_of_the_vendored_catalog() -> None:
    catalog = ModelCatalog.load(use_cache=False)
    for alias, (provider, _) in ALIASES.items():
        target = alias_target(alias, catalog)
        assert target is not None and target.startswith(f"{provider}/"), alias
    assert alias_target("haiku", catalog) == "anthropic/claude-haiku-4-5"  # not a dated twin


def test_an_alias_runs_the_newest_model_of_its_family(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    newest = alias_target("sonnet", ModelCatalog.load(use_cache=False))
    assert newest is not None
    fake_provider.script(anthropic.text_turn("hi there"))
    done = earshot(
        "-p", "hi", "--model", "sonnet", "--output-format", "stream-json",
        cwd=tmp_path, env=keyed(fake_provider),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    init = records(done.stdout)[0]
    assert init["type"] == "init" and init["model"] == newest
    assert fake_provider.requests[0].json()["model"] == newest.partition("/")[2]


def test_a_bare_model_name_is_refused_with_its_provider_model(tmp_path: Path) -> None:
    done = earshot("-p", "hi", "--model", "gpt-4o", cwd=tmp_path)
    assert done.returncode == 2
    assert "did you mean openai/gpt-4o" in done.stderr
    assert "Aliases: " in done.stderr and "sonnet" in done.stderr
    assert done.stdout == ""


# --- a usage error in JSON -----------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["json", "stream-json"])
def test_a_usage_error_gives_a_json_reader_a_failed_result(tmp_path: Path, fmt: str) -> None:
    validator = Draft202012Validator(load_schema())
    unknown = earshot(
        "-p", "hi", "--model", "anthropic/no-such-model", "--output-format", fmt, cwd=tmp_path
    )
    no_key = earshot(
        "-p", "hi", "--model", "anthropic/claude-sonnet-4-6", "--output-format", fmt, cwd=tmp_path
    )
    bad_flag = earshot("-p", "hi", "--max-turns", "abc", "--output-format", fmt, cwd=tmp_path)
    for done, kind in ((unknown, "usage"), (no_key, "auth"), (bad_flag, "usage")):
        assert done.returncode == 2
        written = records(done.stdout)
        for record in written:
            validator.validate(record)
        result = written[-1]
        assert [r["type"] for r in written] == (
            ["result"] if fmt == "json" else ["error", "result"]
        )
        assert result["success"] is False and result["session_id"] == ""
        assert result["error"] == {
            "kind": kind,
            "message": done.stderr.strip().removeprefix("earshot: "),
        }


# --- providers and models ------------------------------------------------------------------


def test_providers_names_each_key_variable(tmp_path: Path) -> None:
    done = earshot("providers", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.splitlines()
    assert "KEY VARIABLE" in header
    anthropic_row = next(r for r in rows if r.startswith("anthropic "))
    assert "ANTHROPIC_API_KEY" in anthropic_row and "missing" in anthropic_row
    google_row = next(r for r in rows if r.startswith("google "))
    assert "GEMINI_API_KEY +2" in google_row


def test_models_lists_keyed_providers_first_newest_first_and_fits(tmp_path: Path) -> None:
    done = earshot("models", cwd=tmp_path, env={"OPENAI_API_KEY": "sk-openai-test-0123"})
    assert done.returncode == 0, done.stderr
    _, *rows = done.stdout.splitlines()
    assert max(len(line) for line in done.stdout.splitlines()) <= 130
    refs = [row.split()[0] for row in rows]
    assert refs[0].startswith("openai/")  # the keyed provider first
    catalog = ModelCatalog.load(use_cache=False)
    openai_refs = [r for r in refs if r.startswith("openai/")]
    dates = [catalog.lookup(r).release_date or "" for r in openai_refs]
    assert dates == sorted(dates, reverse=True)


def test_one_model_or_an_alias_is_shown_in_detail(tmp_path: Path) -> None:
    done = earshot("models", "anthropic/claude-sonnet-4-6", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "anthropic/claude-sonnet-4-6"
    assert any(line.split()[:2] == ["context", "window"] for line in lines)
    assert any("price per 1M" in line for line in lines)
    alias = earshot("models", "haiku", cwd=tmp_path)
    assert alias.stdout.splitlines()[0] == "anthropic/claude-haiku-4-5"


# --- doctor and network errors -------------------------------------------------------------


def test_doctor_says_whether_each_keyed_provider_answers(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    up = earshot("doctor", "--json", cwd=tmp_path, env=keyed(fake_provider))
    (reached,) = json.loads(up.stdout)["reachable"]
    assert reached["id"] == "anthropic" and reached["ok"] is True
    assert reached["url"] == fake_provider.base_url
    port = closed_port()
    down = earshot(
        "doctor", cwd=tmp_path,
        env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}"},
    )  # fmt: skip
    assert down.returncode == 0
    assert (
        f"earshot: warning: anthropic: cannot reach http://127.0.0.1:{port}: "
        f"connection refused by 127.0.0.1:{port}"
    ) in down.stderr
    assert KEY not in down.stdout + down.stderr
    offline = earshot("doctor", "--json", "--offline", cwd=tmp_path, env=keyed(fake_provider))
    assert json.loads(offline.stdout)["reachable"] == []


def test_a_network_error_names_the_base_url_never_the_key(tmp_path: Path) -> None:
    port = closed_port()
    done = earshot(
        "-p", "hi", "--model", "anthropic/claude-sonnet-4-6", "--output-format", "json",
        cwd=tmp_path,
        env={"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}/proxy"},
    )  # fmt: skip
    assert done.returncode == 1
    error = json.loads(done.stdout)["error"]
    assert error["kind"] == "network"
    assert error["message"].endswith(f"(base URL http://127.0.0.1:{port}/proxy)")
    assert KEY not in done.stdout + done.stderr
