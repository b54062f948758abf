"""Long sessions: shapers, compaction that keeps the user's words, overflow recovery, resume,
memory files, verification and budgets, over the fake provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earshot.core.agent_session import AgentSession
from earshot.core.config.memory import load_memory
from earshot.core.config.options import SessionOptions
from earshot.core.config.settings import Settings
from earshot.core.loop.agent import Agent, AgentConfig, AgentPorts
from earshot.core.loop.context import ContextPolicy, Kept, estimate, shape
from earshot.core.loop.events import (
    AgentEvent,
    CompactionEnded,
    TurnEnded,
    VerificationRan,
)
from earshot.core.session import Session, SessionStore
from earshot.core.session.entries import MessageEntry
from earshot.core.tools.registry import builtin_tools
from earshot.providers import types as pt
from earshot.providers.models import Cost, ModelInfo
from earshot.providers.pricing import cost_usd
from tests.core.support import FAST_MODEL, WIRES, ScriptedGate, run
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


pytestmark = pytest.mark.anyio

SUMMARY = "## Goal and instructions\n- keep tabs\n## Current step\n- step"


def _small_window_agent(
    fake: FakeProvider, cwd: Path, window: int, transcript: Session | None = None
) -> Agent:
    target = WIRES[0].target(fake)
    assert target.info is not None
    small = ModelInfo(
        id=target.info.id, provider=target.info.provider, context=window, cost=target.info.cost
    )
    from dataclasses import replace

    return Agent(
        AgentConfig(
            target=replace(target, info=small),
            tools=builtin_tools(["read"]),
            cwd=cwd,
            policy=ContextPolicy(keep_turns=1, prune_after=2, max_result_chars=2_000),
        ),
        AgentPorts(gate=ScriptedGate(), model=FAST_MODEL, transcript=transcript),
    )


def _tool_result(text: str) -> pt.Message:
    return pt.Message(
        role="tool",
        parts=[pt.ToolResultPart(call_id="c", name="read", content=[pt.TextPart(text=text)])],
    )


def test_results_are_capped_and_old_ones_pruned_in_the_request_only() -> None:
    big = "x" * 10_000
    history = [
        pt.Message(role="user", parts=[pt.TextPart(text="one")]),
        _tool_result(big),
        pt.Message(role="user", parts=[pt.TextPart(text="two")]),
        _tool_result(big),
        pt.Message(role="user", parts=[pt.TextPart(text="three")]),
        _tool_result(big),
    ]
    shaped = shape(history, ContextPolicy(prune_after=2, max_result_chars=3_000))
    texts = [
        pt.text_of(pt.Message(role="tool", parts=list(m.parts[0].content)))  # type: ignore[union-attr]  # tool messages hold results
        for m in shaped
        if m.role == "tool"
    ]
    assert "pruned to save context" in texts[0]
    assert "characters" in texts[1] and "cut from this tool result" in texts[1]
    assert len(texts[2]) < 3_500
    assert history[1].parts[0].content[0].text == big  # type: ignore[union-attr]  # untouched
    assert estimate(shaped) < estimate(history)


def test_a_session_that_grows_sends_what_a_fresh_shaping_would() -> None:
    """Shaping kept between requests (each request starts from the whole history) gives
    the request a first shaping of the same history gives, as results age past the cap
    and the pruning lines."""
    policy = ContextPolicy(
        prune_after=3,
        cap_after_batches=2,
        prune_after_batches=5,
        batch_step=2,
        max_result_chars=3_000,
        old_result_chars=1_000,
    )
    tools = [tool.spec() for tool in builtin_tools(["read", "bash"])]
    kept = Kept()
    history: list[pt.Message] = []
    for step in range(14):
        if step % 4 == 0:
            history.append(pt.Message(role="user", parts=[pt.TextPart(text=f"prompt {step}")]))
        history.append(
            pt.Message(
                role="assistant",
                parts=[pt.ToolCallPart(id=f"c{step}", name="read", input={"path": "a"})],
            )
        )
        history.append(_tool_result(str(step) * (500 + 700 * (step % 5))))
        shaped = shape(history, policy, kept)
        assert shaped == shape(history, policy)
        assert estimate(shaped, system="s", tools=tools, kept=kept) == estimate(
            shape(history, policy), system="s", tools=tools
        )
    said = [
        pt.text_of(pt.Message(role="user", parts=list(p.content)))
        for m in shaped
        for p in m.parts
        if isinstance(p, pt.ToolResultPart)
    ]
    assert any("pruned to save context" in text for text in said)
    assert any("cut from this tool result" in text for text in said)


async def test_compaction_keeps_the_users_instructions_and_the_transcript_keeps_all(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    store = SessionStore(tmp_path)
    session = store.create(model="anthropic/test-model")
    agent = _small_window_agent(fake_provider, tmp_path, 3_000, transcript=session)
    filler = "lorem ipsum " * 1_000
    fake_provider.script(
        anthropic.text_turn("ok one"),
        anthropic.text_turn(filler),
        anthropic.text_turn(SUMMARY),
        anthropic.text_turn("ok three"),
    )
    await run(agent, "Always indent with tabs, never spaces.")
    await run(agent, "Write a long essay.")
    events = await run(agent, "What is next?")
    ended = [e for e in events if isinstance(e, CompactionEnded)]
    assert len(ended) == 1
    assert ended[0].ok
    assert ended[0].tokens_after < ended[0].tokens_before
    summary_request = fake_provider.requests[2].json()
    assert "Summarise this coding session" in json.dumps(summary_request["messages"])
    after = json.dumps(fake_provider.requests[3].json()["messages"])
    assert "Always indent with tabs, never spaces." in after
    assert "keep tabs" in after
    assert filler.strip() not in after
    assert "What is next?" in after
    session.close()
    reopened = store.open(session.id)
    resumed = json.dumps([pt.text_of(m) for m in reopened.history()])
    assert "lorem" not in resumed
    assert "keep tabs" in resumed
    stored = [e for e in reopened.entries() if isinstance(e, MessageEntry)]
    assert any(pt.text_of(e.message) == filler for e in stored)
    reopened.close()


async def test_context_overflow_compacts_and_retries_once(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    agent = _small_window_agent(fake_provider, tmp_path, 100_000)
    fake_provider.script(
        anthropic.text_turn("first"),
        anthropic.error_reply(400, "prompt is too long: 250000 tokens > 200000 maximum"),
        anthropic.text_turn(SUMMARY),
        anthropic.text_turn("recovered"),
    )
    await run(agent, "Remember: the answer is 7.")
    events = await run(agent, "And now?")
    end = events[-1]
    assert isinstance(end, TurnEnded)
    assert end.reason == "end_turn"
    assert end.text == "recovered"
    compaction = next(e for e in events if isinstance(e, CompactionEnded))
    assert compaction.reason == "overflow"
    assert "the answer is 7" in json.dumps(fake_provider.requests[-1].json()["messages"])


async def test_resume_rebuilds_the_compacted_request(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    fake_provider.script(anthropic.text_turn("a"), anthropic.text_turn("b"))
    session = AgentSession.open(SessionOptions(cwd=repo_env, model="anthropic/claude-sonnet-4-6"))
    async for _ in session.prompt("turn one"):
        pass
    async for _ in session.prompt("turn two"):
        pass
    agent = session.agent
    agent.policy = ContextPolicy(keep_turns=1)
    fake_provider.script(anthropic.text_turn(SUMMARY))
    events = [e async for e in agent.compact("focus on tabs")]
    assert isinstance(events[-1], CompactionEnded)
    assert events[-1].ok
    assert "focus on tabs" in json.dumps(fake_provider.requests[-1].json()["messages"])
    live = [m for m in agent.history]
    await session.close()
    resumed = AgentSession.open(SessionOptions(cwd=repo_env, continue_latest=True))
    assert resumed.history == live
    await resumed.close()


async def test_verification_failure_goes_back_to_the_model_until_it_passes(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    check = "test -f fixed.txt"
    fake_provider.script(
        anthropic.tool_calls_turn(
            [ToolCallSpec("b1", "bash", {"command": "echo draft > draft.txt"})]
        ),
        anthropic.text_turn("done, I think"),
        anthropic.tool_calls_turn([ToolCallSpec("b2", "bash", {"command": "touch fixed.txt"})]),
        anthropic.text_turn("fixed"),
    )
    agent = Agent(
        AgentConfig(
            target=WIRES[0].target(fake_provider),
            tools=builtin_tools(["bash"]),
            cwd=tmp_path,
            verify=[check],
        ),
        AgentPorts(gate=ScriptedGate(), model=FAST_MODEL),
    )
    events = await run(agent, "make it pass")
    checks = [e for e in events if isinstance(e, VerificationRan)]
    assert [(c.round, c.passed) for c in checks] == [(1, False), (2, True)]
    end = events[-1]
    assert isinstance(end, TurnEnded)
    assert end.verification == "passed"
    assert end.text == "fixed"
    assert "verification checks failed" in json.dumps(fake_provider.requests[2].json())


async def test_denied_verification_is_blocked_not_success(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("b1", "bash", {"command": "true"})]),
        anthropic.text_turn("done"),
    )
    agent = Agent(
        AgentConfig(
            target=WIRES[0].target(fake_provider),
            tools=builtin_tools(["bash"]),
            cwd=tmp_path,
            verify=["pytest -q"],
        ),
        AgentPorts(gate=ScriptedGate(deny_commands={"pytest -q"}), model=FAST_MODEL),
    )
    events = await run(agent, "go")
    end = events[-1]
    assert isinstance(end, TurnEnded)
    assert end.verification == "blocked"


def test_cost_prices_cache_reads_and_writes_separately() -> None:
    info = ModelInfo(
        id="m",
        provider="p",
        cost=Cost(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
    )
    usage = pt.Usage(input=1_000, output=2_000, cache_read=10_000, cache_write=4_000)
    expected = (1_000 * 3.0 + 2_000 * 15.0 + 10_000 * 0.3 + 4_000 * 3.75) / 1_000_000
    assert cost_usd(usage, info) == pytest.approx(expected)
    assert cost_usd(usage, ModelInfo(id="m", provider="p")) is None


def test_memory_files_from_config_root_and_cwd_with_imports(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "AGENTS.md").write_text("user rule")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "AGENTS.md").write_text("root rule\nsee @docs/style.md\n")
    (repo / "docs").mkdir()
    (repo / "docs" / "style.md").write_text("tabs only")
    sub = repo / "pkg"
    sub.mkdir()
    (sub / "CLAUDE.md").write_text("legacy rule")
    (sub / "big").mkdir()
    files = load_memory(sub, config_dir=config)
    assert [f.path for f in files] == [
        config / "AGENTS.md",
        repo / "AGENTS.md",
        repo / "docs" / "style.md",
        sub / "CLAUDE.md",
    ]
    (sub / "EARSHOT.md").write_text("x" * 50_000)
    files = load_memory(sub, config_dir=config)
    assert files[-1].path == sub / "EARSHOT.md"
    assert files[-1].truncated
    assert "only the first" in files[-1].text


async def test_budget_from_settings_stops_before_the_next_call(
    fake_provider: FakeProvider, repo_env: Path
) -> None:
    fake_provider.script(
        anthropic.tool_calls_turn(
            [ToolCallSpec("r", "read", {"path": "x"})],
            usage=anthropic.Usage(input_tokens=1_000_000, output_tokens=0),
        ),
        anthropic.text_turn("never"),
    )
    settings = Settings(max_budget_usd=0.5)
    session = AgentSession.open(
        SessionOptions(cwd=repo_env, model="anthropic/claude-sonnet-4-6"), settings=settings
    )
    events: list[AgentEvent] = [e async for e in session.prompt("spend")]
    end = events[-1]
    assert isinstance(end, TurnEnded)
    assert end.reason == "budget"
    assert len(fake_provider.requests) == 1
    await session.close()


def test_a_likely_check_is_detected_from_the_project(tmp_path: Path) -> None:
    from earshot.core.loop.verify import suggest

    assert suggest(tmp_path) is None
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    assert suggest(tmp_path) == "pytest -q"
    node = tmp_path / "web"
    node.mkdir()
    (node / "package.json").write_text('{"scripts": {"test": "vitest"}}')
    assert suggest(node) == "npm test"


async def test_an_unconfigured_project_is_shown_its_likely_check_once(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    from earshot.core.loop.events import Notice

    fake_provider.script(
        anthropic.tool_calls_turn([ToolCallSpec("b1", "bash", {"command": "touch a"})]),
        anthropic.text_turn("done"),
    )
    agent = Agent(
        AgentConfig(
            target=WIRES[0].target(fake_provider),
            tools=builtin_tools(["bash"]),
            cwd=tmp_path,
            verify_suggestion="pytest -q",
        ),
        AgentPorts(gate=ScriptedGate(), model=FAST_MODEL),
    )
    events = await run(agent, "change something")
    notices = [e for e in events if isinstance(e, Notice)]
    assert len(notices) == 1
    assert '"verify": ["pytest -q"]' in notices[0].message
    end = events[-1]
    assert isinstance(end, TurnEnded)
    assert end.verification == "not_configured"
    assert len(fake_provider.requests) == 2
