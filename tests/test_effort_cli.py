"""``earshot -p --effort LEVEL`` on every wire: a real process against the fake provider,
whose scripted model thinks as hard as the request asks (``fake_provider.thinking``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic, openai_responses
from tests.fake_provider.anthropic import DEFAULT_SIGNATURE as SIGNATURE
from tests.fake_provider.openai_responses import DEFAULT_ENCRYPTED_CONTENT as ENCRYPTED
from tests.fake_provider.thinking import ANSWER_TOKENS, LEVEL_TOKENS, thinking_turn

Record = dict[str, object]

# provider/model -> the key and base-URL variables that point it at the fake provider.
ENV: dict[str, tuple[str, str]] = {
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "google": ("GEMINI_API_KEY", "GEMINI_BASE_URL"),
    "groq": ("GROQ_API_KEY", "GROQ_BASE_URL"),
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    return work


def run(
    fake: FakeProvider, cwd: Path, model: str, *args: str, prompt: str = "Think about it."
) -> subprocess.CompletedProcess[str]:
    key, base = ENV[model.partition("/")[0]]
    env = {**os.environ, key: "test-key-0123456789", base: fake.base_url}
    return subprocess.run(
        [sys.executable, "-m", "earshot", "-p", prompt, "--model", model, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
        check=False,
    )


def streamed(
    fake: FakeProvider, cwd: Path, model: str, *args: str
) -> tuple[list[Record], subprocess.CompletedProcess[str]]:
    fake.script(thinking_turn())
    done = run(fake, cwd, model, "--output-format", "stream-json", *args)
    assert done.returncode == 0, done.stderr
    records: list[Record] = [json.loads(line) for line in done.stdout.splitlines()]
    return records, done


def of(records: list[Record], kind: str) -> Record:
    return next(r for r in records if r["type"] == kind)


def effort_of(records: list[Record]) -> dict[str, object]:
    effort = of(records, "init")["effort"]
    assert isinstance(effort, dict)
    return effort


def reasoning_fields(body: Mapping[str, object]) -> dict[str, object]:
    keys = ("thinking", "output_config", "reasoning", "reasoning_effort")
    out = {k: body[k] for k in keys if k in body}
    generation = body.get("generationConfig")
    if isinstance(generation, dict) and "thinkingConfig" in generation:
        out["thinkingConfig"] = generation["thinkingConfig"]
    return out


HIGH: dict[str, dict[str, object]] = {
    "anthropic/claude-sonnet-4-6": {
        "thinking": {"type": "adaptive", "display": "summarized"},
        "output_config": {"effort": "high"},
    },
    "openai/gpt-5.4": {"reasoning": {"effort": "high", "summary": "auto"}},
    "google/gemini-3.1-pro-preview": {
        "thinkingConfig": {"thinkingLevel": "HIGH", "includeThoughts": True}
    },
    "groq/openai/gpt-oss-120b": {"reasoning_effort": "high"},
}


@pytest.mark.parametrize("model", sorted(HIGH))
def test_effort_high_thinks_on_every_wire(
    fake_provider: FakeProvider, repo: Path, model: str
) -> None:
    records, _ = streamed(fake_provider, repo, model, "--effort", "high")
    body = fake_provider.requests[0].json()
    assert reasoning_fields(body) == HIGH[model]
    effort = effort_of(records)
    assert (effort["level"], effort["default"]) == ("high", False)
    assert of(records, "reasoning")["text"] == f"Thinking with {LEVEL_TOKENS['high']} tokens."
    usage = of(records, "usage")
    assert usage["reasoning_tokens"] == LEVEL_TOKENS["high"]
    assert usage["output_tokens"] == LEVEL_TOKENS["high"] + ANSWER_TOKENS
    assert isinstance(usage["cost_usd"], float) and usage["cost_usd"] > 0


def test_openai_chat_completions_thinks_too(fake_provider: FakeProvider, repo: Path) -> None:
    settings = repo / ".earshot" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"models": {"openai": {"gpt-5.4": {"shape": "completions"}}}}))
    records, _ = streamed(fake_provider, repo, "openai/gpt-5.4", "--effort", "high")
    assert fake_provider.requests[0].path.endswith("/chat/completions")
    assert reasoning_fields(fake_provider.requests[0].json()) == {"reasoning_effort": "high"}
    assert of(records, "usage")["reasoning_tokens"] == LEVEL_TOKENS["high"]


def test_reasoning_models_think_at_medium_by_default(
    fake_provider: FakeProvider, repo: Path
) -> None:
    records, _ = streamed(fake_provider, repo, "openai/gpt-5.4")
    assert reasoning_fields(fake_provider.requests[0].json()) == {
        "reasoning": {"effort": "medium", "summary": "auto"}
    }
    effort = effort_of(records)
    assert (effort["level"], effort["default"], effort["sent"]) == (
        "medium",
        True,
        "reasoning.effort medium",
    )


def test_a_model_that_cannot_reason_gets_no_default_and_ignores_a_level_with_a_notice(
    fake_provider: FakeProvider, repo: Path
) -> None:
    records, quiet = streamed(fake_provider, repo, "openai/gpt-4.1")
    assert reasoning_fields(fake_provider.requests[0].json()) == {}
    assert effort_of(records)["level"] is None
    assert "effort" not in quiet.stderr
    records, told = streamed(fake_provider, repo, "openai/gpt-4.1", "--effort", "high")
    assert reasoning_fields(fake_provider.requests[1].json()) == {}
    assert "openai/gpt-4.1 does not reason; effort high is ignored" in told.stderr
    assert effort_of(records)["note"] == "openai/gpt-4.1 does not reason; effort high is ignored"


OFF: dict[str, dict[str, object]] = {
    "anthropic/claude-sonnet-4-6": {},
    "openai/gpt-5.4": {"reasoning": {"effort": "none", "summary": "auto"}},
    "google/gemini-2.5-flash": {"thinkingConfig": {"thinkingBudget": 0}},
}


@pytest.mark.parametrize("model", sorted(OFF))
def test_effort_off_sends_no_reasoning(fake_provider: FakeProvider, repo: Path, model: str) -> None:
    records, _ = streamed(fake_provider, repo, model, "--effort", "off")
    assert reasoning_fields(fake_provider.requests[0].json()) == OFF[model]
    assert of(records, "usage")["reasoning_tokens"] == 0
    assert not [r for r in records if r["type"] == "reasoning"]
    assert "note" not in effort_of(records)


def test_a_level_the_model_lacks_maps_to_the_nearest_and_says_so(
    fake_provider: FakeProvider, repo: Path
) -> None:
    records, done = streamed(fake_provider, repo, "openai/gpt-5", "--effort", "max")
    assert reasoning_fields(fake_provider.requests[0].json())["reasoning"] == {
        "effort": "high",
        "summary": "auto",
    }
    effort = effort_of(records)
    assert (effort["level"], effort["value"]) == ("max", "high")
    assert effort["note"] == "openai/gpt-5 has no max effort; the nearest it offers, high, is sent"
    assert "the nearest it offers, high" in done.stderr


def test_setting_per_model_setting_and_flag_agree_in_that_order(
    fake_provider: FakeProvider, repo: Path
) -> None:
    model = "anthropic/claude-sonnet-4-6"
    settings = repo / ".earshot" / "settings.json"
    settings.parent.mkdir()

    def sent(*args: str) -> object:
        records, _ = streamed(fake_provider, repo, model, *args)
        config = reasoning_fields(fake_provider.requests[-1].json()).get("output_config")
        value = config.get("effort") if isinstance(config, dict) else None
        assert effort_of(records)["value"] == value
        return value

    settings.write_text(json.dumps({"reasoningEffort": "low"}))
    assert sent() == "low"
    per_model = {"claude-sonnet-4-6": {"reasoningEffort": "high"}}
    settings.write_text(json.dumps({"reasoningEffort": "low", "models": {"anthropic": per_model}}))
    assert sent() == "high"
    assert sent("--effort", "max") == "max"


def test_a_bad_level_is_a_usage_error_naming_the_choices(
    fake_provider: FakeProvider, repo: Path
) -> None:
    done = run(fake_provider, repo, "openai/gpt-5.4", "--effort", "extreme")
    assert done.returncode == 2
    assert (
        "--effort: unknown effort 'extreme'; use one of off, low, medium, high, max" in done.stderr
    )
    assert fake_provider.requests == []
    settings = repo / ".earshot" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"reasoningEffort": 3}))
    bad = run(fake_provider, repo, "openai/gpt-5.4")
    assert bad.returncode == 2
    assert f'{settings}: "reasoningEffort": must be one of' in bad.stderr


def test_the_effort_is_in_the_transcript_and_survives_resume(
    fake_provider: FakeProvider, repo: Path
) -> None:
    model = "openai/gpt-5.4"
    first, _ = streamed(fake_provider, repo, model, "--effort", "low")
    again, _ = streamed(fake_provider, repo, model, "--continue")
    assert of(again, "init")["session_id"] == of(first, "init")["session_id"]
    assert effort_of(again)["level"] == "low"
    assert reasoning_fields(fake_provider.requests[1].json())["reasoning"] == {
        "effort": "low",
        "summary": "auto",
    }
    files = list((Path(os.environ["XDG_DATA_HOME"])).rglob("*.jsonl"))
    lines = [json.loads(line) for path in files for line in path.read_text().splitlines()]
    assert [line["effort"] for line in lines if line["type"] == "effort"] == ["low"]


def test_reasoning_goes_back_with_its_signature_between_tool_calls(
    fake_provider: FakeProvider, repo: Path
) -> None:
    (repo / "notes.txt").write_text("alpha\n")
    call = [ToolCallSpec("t1", "read", {"path": "notes.txt"})]
    fake_provider.script(
        anthropic.tool_calls_turn(call, reasoning="Read the notes first."),
        anthropic.text_turn("It says alpha."),
        openai_responses.tool_calls_turn(call, reasoning="Read the notes first."),
        openai_responses.text_turn("It says alpha."),
    )
    for model in ("anthropic/claude-sonnet-4-5", "openai/gpt-5.4"):
        done = run(fake_provider, repo, model, "--effort", "high", prompt="read notes.txt")
        assert done.returncode == 0, done.stderr
    claude_first, claude_next, gpt_first, gpt_next = fake_provider.requests
    # Claude 4 on budget thinking thinks between tool calls only with the interleaved beta.
    for sent in (claude_first, claude_next):
        assert sent.headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"
        assert sent.json()["thinking"] == {"type": "enabled", "budget_tokens": 16384}
    thinking = {"type": "thinking", "thinking": "Read the notes first.", "signature": SIGNATURE}
    assert thinking in _blocks(claude_next.json()["messages"])
    items = gpt_next.json()["input"]
    assert isinstance(items, list)
    reasoning = [i for i in items if isinstance(i, dict) and i.get("type") == "reasoning"]
    assert [i["encrypted_content"] for i in reasoning] == [ENCRYPTED]
    assert gpt_first.json()["reasoning"] == {"effort": "high", "summary": "auto"}


def _blocks(messages: object) -> list[object]:
    """Every content block of an Anthropic message list."""
    assert isinstance(messages, list)
    return [b for m in messages if isinstance(m, dict) for b in m.get("content", [])]
