"""What the input box needs before it is first drawn: the UI's own modules and a lean
prompt_toolkit, none of the agent's (they load on the warm-up thread, after the paint).

A fresh interpreter imports what ``earshot`` imports on its way to the first paint (the
entry, the trust check, the application drawn once), then says which modules it holds;
then it completes the lean packages as the warm-up thread does and uses them whole.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROBE = """
import asyncio, json, sys
from pathlib import Path

from earshot.tui import _lean

_lean.install()
import earshot.cli.tui_cmd, earshot.tui.main
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from earshot.cli.trust_cmd import ask_once
from earshot.core.config.options import SessionOptions
from earshot.tui._layout import build_application
from earshot.tui.app import Tui

ask_once(Path.cwd())
report = {}


async def first_paint() -> None:
    with create_pipe_input() as keys:
        options = SessionOptions(cwd=Path.cwd(), model="anthropic/claude-sonnet-4-6")
        tui = Tui(options, input=keys, output=DummyOutput(), build=build_application)

        def painted(_: object) -> None:
            report.setdefault("status", tui.status())
            report.setdefault("modules", sorted(sys.modules))
            tui.leave(0)

        async def start() -> None:
            pass

        tui.app.after_render += painted
        await tui.run(start)


asyncio.run(first_paint())
_lean.complete()
from prompt_toolkit import HTML, PromptSession
from wcwidth import wcswidth, wcwidth as width_of
import wcwidth as package
import wcwidth.wcwidth

legacy = sys.modules["wcwidth.wcwidth"]
report["widths"] = [width_of("中"), wcswidth("a中"), package.wcwidth("中"), legacy.wcwidth("中")]
report["whole"] = [callable(package.wcwidth), PromptSession.__name__, HTML.__name__]
print(json.dumps(report))
"""

AGENT = (
    "msgspec",
    "httpx",
    "rich",
    "earshot.core.config.settings",
    "earshot.core.agent_session",
    "earshot.providers.registry",
)
LEAN = ("prompt_toolkit.shortcuts", "prompt_toolkit.widgets", "wcwidth.textwrap", "secrets")


def test_the_input_box_is_drawn_before_the_agent_loads_and_the_lean_packages_complete(
    tmp_path: Path,
) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert "claude-sonnet-4-6" in report["status"]
    modules: list[str] = report["modules"]
    assert [m for m in modules if m.startswith(AGENT)] == []
    assert [m for m in modules if m.startswith(LEAN)] == []
    assert report["widths"] == [2, 3, 2, 2]
    assert report["whole"] == [True, "PromptSession", "HTML"]
