"""Slash commands: ``/name [argument]`` typed in the input box.

Each command is an async function of the running ``Tui`` and the argument text; what it
has to say is printed into the scrollback like everything else. ``COMMANDS`` lists them
with a one-line description (``/help`` and the completer read it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from earshot.core.factory import UndoRecorder
from earshot.core.permissions import MODES, PermissionGate, parse_mode
from earshot.core.session import MessageEntry, SessionStore
from earshot.core.targets import load_catalog, target_for
from earshot.tui._session import fresh, resuming
from earshot.tui.render import message_text

if TYPE_CHECKING:
    from earshot.tui.app import Tui

Handler = Callable[["Tui", str], Awaitable[None]]

INIT_PROMPT = (
    "Look at this repository (its layout, build and test commands, conventions, and any "
    "existing README or contributor notes) and write a concise AGENTS.md at its root for "
    "coding agents and people working on it: how to build, test and lint, the layout, and "
    "the do's and don'ts you can infer. If AGENTS.md exists, improve it instead."
)


async def cmd_help(tui: Tui, arg: str) -> None:
    width = max(len(name) for name in COMMANDS) + 2
    rows = [f"/{name.ljust(width)}{about}" for name, (about, _) in COMMANDS.items()]
    rows += [
        "",
        "Enter sends · Alt-Enter, Ctrl-J or a trailing \\ adds a line · @path names a file",
        "Esc interrupts · Ctrl-C twice or Ctrl-D exits · Shift-Tab cycles the permission mode",
        "Typing while earshot works queues the message; it is sent between model calls.",
    ]
    tui.say("\n".join(rows))


async def cmd_model(tui: Tui, arg: str) -> None:
    agent = tui.setup.agent
    settings = tui.setup.settings
    if not arg:
        catalog = load_catalog(settings)
        provider = agent.target.provider
        refs = [info.ref for info in catalog.models(provider)][:12]
        listed = "\n".join(f"  {ref}" for ref in refs)
        tui.say(f"model: {agent.target.ref}\nswitch with /model provider/model, e.g.\n{listed}")
        return
    ref, _, level = arg.strip().partition(" ")
    try:
        target = target_for(ref, settings=settings, catalog=load_catalog(settings))
    except Exception as exc:
        tui.error(str(exc))
        return
    await agent.switch_model(target)
    tui.say(f"model: {target.ref} (from the next model call)")
    if level.strip():
        await cmd_effort(tui, level)
    elif agent.effort is not None:
        tui.say(f"effort: {agent.effort.choice.summary}")


async def cmd_effort(tui: Tui, arg: str) -> None:
    from earshot.providers.effort import EFFORT_LEVELS, parse_effort

    agent = tui.setup.agent
    if agent.effort is None:
        tui.error("this session has no reasoning effort to set")
        return
    if not arg:
        levels = ", ".join(EFFORT_LEVELS)
        tui.say(f"effort: {agent.effort.choice.summary}\nset with /effort LEVEL ({levels})")
        return
    try:
        level = parse_effort(arg, where="/effort")
    except ValueError as exc:
        tui.error(str(exc))
        return
    choice = await agent.effort.set(level, agent.target, agent.transcript)
    tui.options = replace(tui.options, effort=level)  # /clear and /fork keep it
    tui.say(f"effort: {choice.summary} (from the next model call)")
    tui.app.invalidate()


async def cmd_mode(tui: Tui, arg: str) -> None:
    if not arg:
        tui.say(f"permission mode: {tui.mode()} (one of {', '.join(MODES)}; Shift-Tab cycles)")
        return
    try:
        mode = parse_mode(arg.strip())
    except ValueError as exc:
        tui.error(str(exc))
        return
    tui.set_mode(mode)
    tui.say(f"permission mode: {mode}")


async def cmd_cost(tui: Tui, arg: str) -> None:
    agent = tui.setup.agent
    usage = agent.total_usage
    total = agent.total_cost_usd
    spent = "unknown (no prices for this model)" if total is None else f"${total:.4f}"
    earlier = f"; earlier in this session ${tui.base_cost:.4f}" if tui.base_cost else ""
    tui.say(
        f"this run: {spent}{earlier}\n"
        f"tokens: {usage.input:,} in, {usage.output:,} out, {usage.cache_read:,} cache read, "
        f"{usage.cache_write:,} cache write, {usage.reasoning:,} reasoning"
    )


def _tokens(chars: int) -> int:
    return (chars + 3) // 4


async def cmd_context(tui: Tui, arg: str) -> None:
    agent = tui.setup.agent
    info = agent.target.info
    window = info.context if info is not None and info.context else 0
    system = _tokens(len(agent.system))
    tools = _tokens(sum(len(str(tool.spec())) for tool in agent.tools.values()))
    by_role: dict[str, int] = {}
    for message in agent.history:
        size = sum(len(str(part)) for part in message.parts)
        by_role[message.role] = by_role.get(message.role, 0) + _tokens(size)
    estimate = system + tools + sum(by_role.values())
    rows = [
        f"{'system prompt':<20}~{system:,} tokens",
        f"{'tool definitions':<20}~{tools:,} tokens",
        *(f"{role + ' messages':<20}~{n:,} tokens" for role, n in sorted(by_role.items())),
        f"{'total (estimate)':<20}~{estimate:,} tokens"
        + (f" of {window:,} ({100 * estimate / window:.0f}%)" if window else ""),
    ]
    measured = tui.live_feed().context_tokens
    if measured:
        rows.append(f"{'last call (measured)':<20}{measured:,} tokens")
    tui.say("\n".join(rows))


async def cmd_undo(tui: Tui, arg: str) -> None:
    if tui.agent_running:
        tui.error("wait for the turn to finish (or press Esc) before /undo")
        return
    recorder = tui.setup.agent.undo
    if not isinstance(recorder, UndoRecorder):
        tui.error("undo is off in this session (git was not found on PATH)")
        return
    result = await recorder.undo.undo()
    changed = [
        *(f"  restored {p}" for p in result.restored),
        *(f"  removed {p}" for p in result.removed),
    ]
    text = "\n".join([result.message, *changed[:20]])
    if result.ok:
        tui.say(text)
    else:
        tui.error(text)


async def cmd_clear(tui: Tui, arg: str) -> None:
    if await tui.replace_session(fresh(tui.options)):
        tui.say(f"new session {tui.setup.session.id}")


async def cmd_exit(tui: Tui, arg: str) -> None:
    tui.exit()


async def cmd_compact(tui: Tui, arg: str) -> None:
    if tui.agent_running:
        tui.error("wait for the turn to finish (or press Esc) before /compact")
        return
    await tui.stream_events(tui.setup.agent.compact(arg))


def _user_turns(tui: Tui) -> list[MessageEntry]:
    return [
        entry
        for entry in tui.setup.session.tree.path()
        if isinstance(entry, MessageEntry)
        and entry.message.role == "user"
        and message_text(entry.message).strip()
    ]


async def cmd_rewind(tui: Tui, arg: str) -> None:
    if tui.agent_running:
        tui.error("wait for the turn to finish (or press Esc) before /rewind")
        return
    turns = _user_turns(tui)
    if not turns:
        tui.say("nothing to rewind: no message yet")
        return
    if not arg.strip().isdigit():
        rows = [
            f"  {i}. {message_text(e.message).strip().splitlines()[0][:70]}"
            for i, e in enumerate(turns, 1)
        ]
        tui.say("rewind to before which message? /rewind N\n" + "\n".join(rows[-15:]))
        return
    index = int(arg.strip())
    if not 1 <= index <= len(turns):
        tui.error(f"no message {index}; pick 1 to {len(turns)}")
        return
    entry = turns[index - 1]
    session = tui.setup.session
    await session.rewind_to(entry.parent_id)
    # Reopen the session so the agent's history and its transcript ids follow the branch.
    if not await tui.replace_session(resuming(tui.options, session.id)):
        return
    tui.buffer.text = message_text(entry.message)
    tui.buffer.cursor_position = len(tui.buffer.text)
    tui.say(f"rewound to before message {index}; it is back in the input box to edit")


async def cmd_fork(tui: Tui, arg: str) -> None:
    old = tui.setup.session.id
    if await tui.replace_session(resuming(tui.options, old, fork=True)):
        tui.say(f"forked {old[:8]} into new session {tui.setup.session.id}")


def _sessions(tui: Tui) -> list[str]:
    infos = SessionStore(tui.options.cwd).list()
    rows: list[str] = []
    for index, info in enumerate(infos[:20], 1):
        here = " (this one)" if info.id == tui.setup.session.id else ""
        rows.append(
            f"  {index:>2}. {info.id[:8]}  {info.updated[:16]}  {info.turns} turns  "
            f"{info.title[:40]}{here}"
        )
    return rows


async def cmd_sessions(tui: Tui, arg: str) -> None:
    rows = _sessions(tui)
    tui.say(
        "sessions in this directory (newest first):\n" + "\n".join(rows)
        if rows
        else "no sessions in this directory yet"
    )


async def cmd_resume(tui: Tui, arg: str) -> None:
    infos = SessionStore(tui.options.cwd).list()
    choice = arg.strip()
    if not choice:
        rows = _sessions(tui)
        tui.say(
            "resume which? /resume N or /resume ID\n" + "\n".join(rows)
            if rows
            else "no sessions in this directory yet"
        )
        return
    target = choice
    if choice.isdigit() and 1 <= int(choice) <= min(20, len(infos)):
        target = infos[int(choice) - 1].id
    if target == tui.setup.session.id:
        tui.say("that is this session")
        return
    if await tui.replace_session(resuming(tui.options, target)):
        history = tui.setup.agent.history
        tui.say(f"resumed {tui.setup.session.id} ({len(history)} messages)")
        tui.replay(history)


async def cmd_init(tui: Tui, arg: str) -> None:
    tui.send("/init", INIT_PROMPT + (f"\n\nAlso: {arg}" if arg else ""))


async def cmd_permissions(tui: Tui, arg: str) -> None:
    gate = tui.setup.agent.gate
    if not isinstance(gate, PermissionGate):
        tui.say(f"permission mode: {tui.mode()}")
        return
    rows = [f"permission mode: {gate.mode}"]
    for action in ("deny", "ask", "allow"):
        rules = [r for r in gate.rules.rules if r.action == action]
        rows.append(f"{action}:" + ("" if rules else " (none)"))
        rows += [f"  {r.text}  ({r.source})" for r in rules]
    rows.append("allowed for this session:" + ("" if gate.grants else " (none)"))
    rows += [f"  {g.text}" for g in gate.grants]
    rows.append(
        "rules live in settings.json (allow/ask/deny); `earshot permissions check` "
        "explains a decision"
    )
    tui.say("\n".join(rows))


async def cmd_todos(tui: Tui, arg: str) -> None:
    todos = tui.setup.agent.state.todos
    if not todos:
        tui.say("no todos")
        return
    marks = {"completed": "✓", "in_progress": "▸", "pending": "○"}
    tui.say("\n".join(f"  {marks.get(t.status, '·')} {t.content}" for t in todos))


COMMANDS: dict[str, tuple[str, Handler]] = {
    "help": ("show the commands and keys", cmd_help),
    "model": ("show or switch the model: /model provider/model [EFFORT]", cmd_model),
    "effort": ("show or set the reasoning effort: /effort off|low|medium|high|max", cmd_effort),
    "mode": ("show or set the permission mode (Shift-Tab cycles)", cmd_mode),
    "cost": ("what this session has cost", cmd_cost),
    "context": ("what fills the context window", cmd_context),
    "undo": ("restore the files from before the last tool batch", cmd_undo),
    "rewind": ("go back to before an earlier message: /rewind N", cmd_rewind),
    "fork": ("continue in a new session branched from this one", cmd_fork),
    "resume": ("resume another session: /resume N or ID", cmd_resume),
    "sessions": ("list this directory's sessions", cmd_sessions),
    "clear": ("start a new, empty session", cmd_clear),
    "compact": ("summarise the conversation to free the window", cmd_compact),
    "init": ("write an AGENTS.md after looking at the repository", cmd_init),
    "permissions": ("the mode, the rules and this session's grants", cmd_permissions),
    "todos": ("the agent's todo list", cmd_todos),
    "exit": ("leave earshot", cmd_exit),
}
ALIASES = {"quit": "exit", "q": "exit", "new": "clear", "?": "help"}


def find(text: str) -> tuple[Handler, str] | None:
    """The command ``text`` names (``/name rest``), or None when it names none."""
    if not text.startswith("/"):
        return None
    name, _, rest = text[1:].partition(" ")
    name = ALIASES.get(name.strip(), name.strip())
    found = COMMANDS.get(name)
    if found is None:
        return None
    return found[1], rest.strip()


def looks_like_command(text: str) -> bool:
    """``/word ...`` with no other slash in the word: a mistyped command, not a path."""
    word = text.strip().split()[0] if text.strip() else ""
    return word.startswith("/") and len(word) > 1 and "/" not in word[1:]


__all__ = ["ALIASES", "COMMANDS", "INIT_PROMPT", "find", "looks_like_command"]
