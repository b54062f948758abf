"""``/scope`` in the terminal: show the declared scope, then open it in the user's editor.

The editor is ``$EDITOR``, else ``$VISUAL`` (a command line: ``code -w`` works); with
neither set, ``/scope`` only shows the scope and says how to set one. The UI is suspended
while the editor runs (prompt-toolkit's ``run_in_terminal``: the live region is erased,
the terminal is in cooked mode, the input detached) and drawn again after. On save the
edit applies to the session's one scope contract (``core.scope_edit``: a person's edit
applies directly, widening included). A bad edit changes nothing: the error names the line,
and the next ``/scope`` opens the text as it was left, so no typing is lost. The scope is
edited between turns only; during a turn ``/scope`` shows it.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from earshot.core.scope_edit import ScopeEditError, edit_scope, scope_document

if TYPE_CHECKING:
    from earshot.tui._ui import Tui

NO_EDITOR = (
    "set $EDITOR (or $VISUAL) to edit the scope here, e.g. export EDITOR=nano; "
    "until then /scope only shows it"
)
_DRAFTS: dict[str, str] = {}
"""A bad edit's text by session id: the next ``/scope`` opens it again."""


@dataclass(frozen=True)
class Edited:
    text: str
    exit_code: int
    failed: str = ""
    """Why the editor could not start (then ``text`` is what went in)."""


def editor_command(env: Mapping[str, str]) -> list[str] | None:
    """The editor's command line: ``$EDITOR``, else ``$VISUAL``; None when neither is set."""
    for name in ("EDITOR", "VISUAL"):
        value = env.get(name, "").strip()
        if value:
            try:
                words = shlex.split(value)
            except ValueError:
                words = value.split()
            if words:
                return words
    return None


def run_editor(command: Sequence[str], text: str, cwd: Path) -> Edited:
    """Write ``text`` to a temporary file, run the editor on it in the terminal, and
    return what the file holds after (blocking: run it in a worker thread)."""
    with tempfile.TemporaryDirectory(prefix="earshot-scope-") as folder:
        path = Path(folder) / "scope.txt"
        path.write_text(text, encoding="utf-8")
        try:
            done = subprocess.run([*command, str(path)], cwd=cwd, check=False)
        except OSError as exc:
            return Edited(text, -1, failed=f"{command[0]}: {exc.strerror or exc}")
        return Edited(path.read_text(encoding="utf-8", errors="replace"), done.returncode)


async def cmd_scope(tui: Tui, arg: str) -> None:
    from prompt_toolkit.application import run_in_terminal

    session = tui.session
    scope = session.gate.scope
    tui.say(scope.text())
    if session.running:
        tui.say("the scope can be edited between turns: /scope again once this one ends")
        return
    command = editor_command(os.environ)
    if command is None:
        tui.say(NO_EDITOR)
        return
    before = _DRAFTS.pop(session.id, None) or scope_document(scope)
    edited = await run_in_terminal(
        lambda: run_editor(command, before, session.cwd), in_executor=True
    )
    if edited.failed:
        tui.error(f"the editor did not start ({edited.failed}); the scope is unchanged")
        return
    if edited.exit_code != 0:
        tui.error(f"the editor exited with status {edited.exit_code}; the scope is unchanged")
        return
    try:
        change = await edit_scope(session, edited.text)
    except ScopeEditError as exc:
        _DRAFTS[session.id] = edited.text
        tui.error(f"the scope is unchanged: {exc}. /scope opens your text again to fix it")
        return
    if change.changed:
        tui.say(f"{change.text()}\n{scope.text()}")
    else:
        tui.say(change.text())


__all__ = ["NO_EDITOR", "Edited", "cmd_scope", "editor_command", "run_editor"]
