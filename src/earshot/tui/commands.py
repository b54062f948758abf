"""Slash commands in the terminal: the session's table (``core.commands``) plus the two the
terminal owns (``/help``, ``/exit``).

A command runs as a background task of the running ``Tui``; its reply is shown in the
scrollback like everything else, and what the reply asks for happens here: a new session
is adopted, events are drawn, a prompt is sent, text goes back in the input box.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from earshot.core import commands as session_commands
from earshot.core.agent_session import AgentSession
from earshot.core.commands import CommandReply
from earshot.tui._ui import Tui

Handler = Callable[[Tui, str], Awaitable[None]]


async def cmd_help(tui: Tui, arg: str) -> None:
    listed = command_list(tui.session)
    width = max(len(name) for name in listed) + 2
    rows = [f"/{name.ljust(width)}{about}" for name, about in listed.items()]
    rows += [
        "",
        "Enter sends · Alt-Enter, Ctrl-J or a trailing \\ adds a line · @path attaches a file",
        "Esc interrupts · Ctrl-C clears the box, twice on an empty box exits · Ctrl-D exits",
        "Shift-Tab cycles the permission mode (never into yolo) · Ctrl-O expands the last result",
        "Typing while earshot works queues the message; it is sent between model calls.",
    ]
    tui.say("\n".join(rows))


async def cmd_exit(tui: Tui, arg: str) -> None:
    tui.exit()


async def cmd_scope(tui: Tui, arg: str) -> None:
    from earshot.tui._scope import cmd_scope as edit

    await edit(tui, arg)


LOCAL: dict[str, tuple[str, Handler]] = {
    "help": ("show the commands and keys", cmd_help),
    "exit": ("leave earshot", cmd_exit),
    "scope": ("the declared scope: goal, paths, steps; edit it in $EDITOR", cmd_scope),
}
"""The terminal's own commands; ``scope`` replaces the session's (which only shows it)."""
ALIASES = {"quit": "exit", "q": "exit", "?": "help"}


def _about(command: session_commands.Command) -> str:
    about = f"{command.hint} · {command.about}" if command.hint else command.about
    return f"{about} ({command.source})" if command.source else about


def command_list(session: AgentSession | None = None) -> dict[str, str]:
    """Every command with its argument hint and one-line description (and, for a command
    file or skill, where it comes from), in the order ``/help`` shows them."""
    listed = {"help": LOCAL["help"][0]}
    for name, command in session_commands.table(session).items():
        listed[name] = LOCAL[name][0] if name in LOCAL else _about(command)
    listed["exit"] = LOCAL["exit"][0]
    return listed


def find(text: str, session: AgentSession | None = None) -> tuple[Handler, str] | None:
    """The command ``text`` names (``/name rest``), or None when it names none."""
    if not text.startswith("/"):
        return None
    name, _, rest = text[1:].partition(" ")
    name = ALIASES.get(name.strip(), name.strip())
    local = LOCAL.get(name)
    if local is not None:
        return local[1], rest.strip()
    if session_commands.find(text, session=session) is None:
        return None

    async def run(tui: Tui, arg: str) -> None:
        reply = await session_commands.run(tui.session, text)
        if reply is not None:
            await apply(tui, reply, typed=text)

    return run, rest.strip()


async def apply(tui: Tui, reply: CommandReply, *, typed: str) -> None:
    """Do what a session command's reply asks, then show its text."""
    if reply.session is not None:
        tui.adopt(reply.session)
    if reply.edit is not None:
        tui.buffer.text = reply.edit
        tui.buffer.cursor_position = len(reply.edit)
    if reply.text:
        if reply.error:
            tui.error(reply.text)
        else:
            tui.say(reply.text)
    if reply.replay:
        tui.replay(tui.session.history)
    if reply.events is not None:
        await tui.stream_events(reply.events)
    if reply.send is not None:
        tui.send(typed.split()[0], reply.send)


def looks_like_command(text: str) -> bool:
    """``/word ...`` with no other slash in the word: a mistyped command, not a path."""
    word = text.strip().split()[0] if text.strip() else ""
    return word.startswith("/") and len(word) > 1 and "/" not in word[1:]


__all__ = ["ALIASES", "LOCAL", "apply", "command_list", "find", "looks_like_command"]
