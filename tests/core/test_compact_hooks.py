"""``PreCompact`` hooks run before an automatic compaction too (``trigger: "auto"``), not
only before ``/compact``: over a real AgentSession and the fake provider, with a real
shell-script hook that logs its stdin."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from earshot.core.agent_session import AgentSession
from earshot.core.config.options import SessionOptions
from earshot.core.loop.events import CompactionEnded, HookRan
from tests.fake_provider import FakeProvider, anthropic

pytestmark = pytest.mark.anyio

SUMMARY = "<summary>The user asked twice; keep going.</summary>"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_an_automatic_compaction_runs_the_pre_compact_hooks_first(
    fake_provider: FakeProvider, repo_env: Path, tmp_path: Path
) -> None:
    log = tmp_path / "compact.log"
    hook = {"hooks": [{"type": "command", "command": f"cat >> {log}; echo >> {log}"}]}
    settings = Path(os.environ["XDG_CONFIG_HOME"]) / "earshot" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"hooks": {"PreCompact": [hook]}}))
    fake_provider.script(
        anthropic.text_turn("first"),
        anthropic.error_reply(400, "prompt is too long: 250000 tokens > 200000 maximum"),
        anthropic.text_turn(SUMMARY),
        anthropic.text_turn("recovered"),
    )
    session = AgentSession.open(SessionOptions(cwd=repo_env, model="anthropic/claude-sonnet-4-6"))
    try:
        [_ async for _ in session.prompt("one")]
        events = [e async for e in session.prompt("two")]
    finally:
        await session.close()
    payload = json.loads(log.read_text())
    assert payload["hook_event_name"] == "PreCompact"
    assert payload["trigger"] == "auto"
    ran = next(i for i, e in enumerate(events) if isinstance(e, HookRan))
    compacted = next(i for i, e in enumerate(events) if isinstance(e, CompactionEnded))
    assert ran < compacted
