"""The UI's start: the input box is drawn before the agent loads and takes what is typed
while the session opens, and what was entered meanwhile is sent once it is open, in order;
keys typed before the box is drawn wait unechoed, Enter included, for the box to read.

What the input box needs before it is first drawn: the UI's own modules and a lean
prompt_toolkit, none of the agent's (they load on the warm-up thread, after the paint). A
fresh interpreter imports what ``earshot`` imports on its way to the first paint (the
entry, the trust check, the application drawn once), then says which modules it holds;
it types, with an editing key of prompt_toolkit's defaults, before they are built; then it
completes the lean packages as the warm-up thread does and uses them whole.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import termios
from pathlib import Path

from earshot.tui._early import keys_held
from tests.fake_provider import FakeProvider, anthropic
from tests.tui.terminal import MODEL, Terminal, earshot_env

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
            if "modules" not in report:
                report["status"] = tui.status()
                report["modules"] = sorted(sys.modules)
                keys.send_text("hi\x01X")  # Ctrl-A: an editing key of the defaults

        def typed(_: object) -> None:
            report["typed"] = tui.buffer.text
            if tui.buffer.text == "Xhi":
                tui.leave(0)

        async def start() -> None:
            await asyncio.sleep(20)  # a hang guard: the keys end it
            tui.leave(0)

        tui.buffer.on_text_changed += typed

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
from prompt_toolkit.key_binding.defaults import load_key_bindings

report["whole"] = [callable(package.wcwidth), PromptSession.__name__, HTML.__name__]
report["default keys"] = len(load_key_bindings().bindings)
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
LEAN = (
    "prompt_toolkit.shortcuts",
    "prompt_toolkit.widgets",
    "prompt_toolkit.key_binding.bindings.emacs",
    "prompt_toolkit.key_binding.bindings.vi",
    "wcwidth.textwrap",
    "secrets",
)


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
    assert report["typed"] == "Xhi"
    modules: list[str] = report["modules"]
    assert [m for m in modules if m.startswith(AGENT)] == []
    assert [m for m in modules if m.startswith(LEAN)] == []
    assert report["widths"] == [2, 3, 2, 2]
    assert report["whole"] == [True, "PromptSession", "HTML"]
    assert report["default keys"] > 500


SLOW_GIT = """#!/bin/sh
# git, except that `git status` (the session opening asks it once) waits for a file
if [ "$1" = status ]; then
    while [ ! -e "{release}" ]; do sleep 0.02; done
fi
exec "{git}" "$@"
"""


def test_what_is_typed_while_the_session_opens_is_drawn_and_then_sent_in_order(
    fake_provider: FakeProvider, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    release = tmp_path / "release"
    git = shutil.which("git")
    assert git is not None
    (bin_dir / "git").write_text(SLOW_GIT.format(release=release, git=git))
    (bin_dir / "git").chmod(0o755)
    env = earshot_env(fake_provider.base_url, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    fake_provider.script(anthropic.text_turn("Answer: ORCA."))
    with Terminal(["--model", MODEL], cwd=repo, env=env) as term:
        term.wait_for(lambda: MODEL in term.display() and "›" in term.display(), "the prompt")
        term.send("draft")
        term.wait_for(lambda: "draft" in term.box(), "the draft drawn while the session opens")
        term.proc.send_signal(signal.SIGINT)  # ignored, as Ctrl-C's signal always was
        term.send("\x7f" * len("draft"))
        term.type_line("first question")
        term.type_line("second question")
        term.wait_for("queued: second question")
        assert "/help for commands" not in term.text()  # the session is still opening
        assert fake_provider.requests == []
        release.touch()
        term.wait_for("ORCA")
        term.wait_for(term.idle, "the turn to end")
        text = term.text()
        assert text.index("first question") < text.index("second question") < text.index("ORCA")
        # Both go with the first request, as a message sent while the agent works would.
        assert len(fake_provider.requests) == 1
        first = str(fake_provider.requests[0].json()["messages"])
        assert first.index("first question") < first.index("second question")
        assert "draft" not in first
        assert term.exit() == 0
    fake_provider.assert_protocol_invariants()


def test_keys_typed_before_the_box_is_drawn_wait_unechoed_with_enter_kept() -> None:
    master, slave = os.openpty()
    try:
        settings = termios.tcgetattr(slave)
        with keys_held(slave):
            os.write(master, b"hello\r")
            assert os.read(slave, 64) == b"hello\r"  # as typed: no newline for Enter
            echoed, _, _ = select.select([master], [], [], 0)
            assert echoed == []  # and nothing echoed onto the screen
        assert termios.tcgetattr(slave) == settings
    finally:
        os.close(master)
        os.close(slave)
