"""Gateways and local servers from the command line: real earshot processes against the fake
provider on loopback, configured the way docs/providers.md tells people to."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from earshot.providers.types import JSONValue
from tests.fake_provider import FakeProvider, RawReply, openai_chat, openai_responses

KEY = "sk-test-gateway-0123456789abcdef"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    return work


def settings(repo: Path, data: JSONValue) -> Path:
    path = repo / ".earshot" / "settings.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def earshot(repo: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "earshot", *args],
        capture_output=True,
        text=True,
        cwd=repo,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **env},
        timeout=60,
        check=False,
    )


def ask(fake: FakeProvider, repo: Path, model: str, **env: str) -> subprocess.CompletedProcess[str]:
    return earshot(
        repo,
        "--model",
        model,
        "-p",
        "hi",
        "--output-format",
        "json",
        OPENAI_API_KEY=KEY,
        OPENAI_BASE_URL=f"{fake.base_url}/v1",
        **env,
    )


def error_message(done: subprocess.CompletedProcess[str]) -> str:
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["success"] is False
    message = result["error"]["message"]
    assert isinstance(message, str)
    return message


# --- earshot models for open providers ---------------------------------------------------


@pytest.mark.parametrize("ref", ["openai-compatible/gw-gpt", "ollama/qwen3:8b"])
def test_models_tells_what_is_assumed_for_a_model_of_an_open_provider(repo: Path, ref: str) -> None:
    done = earshot(repo, "models", ref)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith(f"{ref} is not in the model catalog")
    assert "context window  128,000 tokens" in out
    assert "output limit    none sent" in out
    assert "price           unknown" in out
    provider, model = ref.split("/", 1)
    assert f'"models":{{"{provider}":{{"{model}":{{"context"' in out
    assert str(repo / ".earshot" / "settings.json") in out


def test_models_json_for_an_open_provider_names_the_settings_key(repo: Path) -> None:
    settings(repo, {"providers": {"lmstudio": {"wire": "anthropic-messages"}}})
    done = earshot(repo, "models", "lmstudio/my-local", "--json")
    assert done.returncode == 0, done.stderr
    (record,) = json.loads(done.stdout)
    assert record["in_catalog"] is False
    assert (record["wire"], record["context"], record["max_output"]) == (
        "anthropic-messages",
        128000,
        8192,
    )
    assert record["cost_per_million"] is None
    assert record["settings_key"] == "models.lmstudio.my-local"


def test_a_model_entry_in_settings_makes_it_a_catalog_model(repo: Path) -> None:
    entry: JSONValue = {"context": 40960, "max_output": 8192, "cost": {"input": 0, "output": 0}}
    settings(repo, {"models": {"ollama": {"qwen3:8b": entry}}})
    done = earshot(repo, "models", "ollama/qwen3:8b")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()  # one model: shown in detail
    assert lines[0] == "ollama/qwen3:8b"
    assert "  context window  40,960 tokens" in lines
    assert "  output limit    8,192 tokens" in lines


def test_a_closed_provider_still_refuses_an_unknown_model(repo: Path) -> None:
    done = earshot(repo, "models", "groq/not-a-model")
    assert done.returncode == 2
    assert "unknown model 'groq/not-a-model'" in done.stderr


# --- the wire setting ----------------------------------------------------------------------


def test_provider_wire_setting_switches_openai_to_chat_completions(
    fake_provider: FakeProvider, repo: Path
) -> None:
    settings(repo, {"providers": {"openai": {"wire": "openai-chat"}}})
    fake_provider.script(openai_chat.text_turn("over chat"))
    done = ask(fake_provider, repo, "openai/gpt-5.4")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["text"] == "over chat"
    assert [r.path for r in fake_provider.requests] == ["/v1/chat/completions"]


def test_model_wire_setting_beats_the_provider_setting(
    fake_provider: FakeProvider, repo: Path
) -> None:
    settings(
        repo,
        {
            "providers": {"openai-compatible": {"wire": "openai-chat"}},
            "models": {"openai-compatible": {"gw-gpt": {"wire": "openai-responses"}}},
        },
    )
    fake_provider.script(openai_responses.text_turn("over responses"))
    done = earshot(
        repo,
        "--model",
        "openai-compatible/gw-gpt",
        "-p",
        "hi",
        OPENAI_COMPATIBLE_BASE_URL=f"{fake_provider.base_url}/v1",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "over responses\n"
    assert [r.path for r in fake_provider.requests] == ["/v1/responses"]


def test_shape_still_works_as_the_older_name_of_wire(
    fake_provider: FakeProvider, repo: Path
) -> None:
    settings(repo, {"models": {"openai": {"gpt-5.4": {"shape": "completions"}}}})
    fake_provider.script(openai_chat.text_turn("shaped"))
    done = ask(fake_provider, repo, "openai/gpt-5.4")
    assert done.returncode == 0, done.stderr
    assert [r.path for r in fake_provider.requests] == ["/v1/chat/completions"]


def test_providers_lists_the_wire_a_setting_chose(repo: Path) -> None:
    settings(repo, {"providers": {"openai": {"wire": "openai-chat"}}})
    done = earshot(repo, "providers", "--json")
    assert done.returncode == 0, done.stderr
    wires = {p["id"]: p["wire"] for p in json.loads(done.stdout)}
    assert (wires["openai"], wires["anthropic"]) == ("openai-chat", "anthropic-messages")


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"providers": {"openai": {"wire": "chat"}}}, '"providers.openai.wire"'),
        ({"models": {"openai": {"gpt-5.4": {"wire": 3}}}}, '"models.openai.gpt-5.4.wire"'),
    ],
)
def test_an_unknown_wire_name_is_refused_naming_file_and_field(
    fake_provider: FakeProvider, repo: Path, data: JSONValue, field: str
) -> None:
    path = settings(repo, data)
    done = ask(fake_provider, repo, "openai/gpt-5.4")
    assert done.returncode == 2
    assert f"{path}: {field}: must be one of anthropic-messages, openai-chat" in done.stderr
    assert fake_provider.requests == []


# --- maxRetries ------------------------------------------------------------------------------


def test_max_retries_zero_makes_one_attempt(fake_provider: FakeProvider, repo: Path) -> None:
    settings(repo, {"maxRetries": 0})
    down = openai_responses.error_reply(503, "upstream unavailable")
    fake_provider.script(down, down, down)
    done = ask(fake_provider, repo, "openai/gpt-5.4")
    assert done.returncode == 1
    assert error_message(done).startswith("openai: upstream unavailable")
    assert len(fake_provider.requests) == 1


def test_the_environment_variable_beats_the_setting(
    fake_provider: FakeProvider, repo: Path
) -> None:
    settings(repo, {"maxRetries": 0})
    down = openai_responses.error_reply(503, "upstream unavailable")
    fake_provider.script(down, down, down, down)
    done = ask(fake_provider, repo, "openai/gpt-5.4", EARSHOT_MAX_RETRIES="1")
    assert done.returncode == 1
    assert len(fake_provider.requests) == 2


@pytest.mark.parametrize("value", ["many", "-1", "11"])
def test_a_bad_retry_count_is_refused_naming_the_variable(
    fake_provider: FakeProvider, repo: Path, value: str
) -> None:
    done = ask(fake_provider, repo, "openai/gpt-5.4", EARSHOT_MAX_RETRIES=value)
    assert done.returncode == 2
    assert f"EARSHOT_MAX_RETRIES={value!r}: must be a whole number from 0 to 10" in done.stderr
    assert fake_provider.requests == []


def test_a_bad_max_retries_setting_names_the_file(repo: Path) -> None:
    path = settings(repo, {"maxRetries": "3"})
    done = earshot(repo, "--model", "openai/gpt-5.4", "-p", "hi", OPENAI_API_KEY=KEY)
    assert done.returncode == 2
    assert f'{path}: "maxRetries": must be a whole number from 0 to 10' in done.stderr


# --- no key sent -----------------------------------------------------------------------------


def test_a_gateway_that_wants_a_key_gets_told_which_variable_holds_it(
    fake_provider: FakeProvider, repo: Path
) -> None:
    refused: JSONValue = {
        "error": {
            "message": "Authentication Error, No api key passed in.",
            "type": "auth_error",
            "param": "None",
            "code": "401",
        }
    }
    fake_provider.script(*[RawReply.json(401, refused)] * 3)
    done = earshot(
        repo,
        "--model",
        "openai-compatible/gw-gpt",
        "-p",
        "hi",
        "--output-format",
        "json",
        OPENAI_COMPATIBLE_BASE_URL=f"{fake_provider.base_url}/v1",
    )
    assert done.returncode == 1
    message = error_message(done)
    assert message.startswith("openai-compatible: the server wants an API key and earshot sent")
    assert "set OPENAI_COMPATIBLE_API_KEY" in message
    assert len(fake_provider.requests) == 1
    assert "authorization" not in fake_provider.requests[0].headers
