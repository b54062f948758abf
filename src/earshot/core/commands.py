"""The slash commands: one table over ``AgentSession``, rendered by every front-end.

::

    COMMANDS: name -> Command(about, hint, everywhere, run)
    extra(session) -> [Command]                    those the session's tool sources add
    find(text) -> (Command, argument) | None       "/name rest"
    run(session, text) -> CommandReply | None      None: not a command, send it as typed

The TUI offers every command (with completion and ``/help``); ACP announces the
``everywhere`` ones in ``available_commands_update``; ``earshot -p "/cost"`` answers those
too. A reply says what to show (``text``, ``error``) and what the front-end should do
next: adopt a new ``session`` (the old one is closed), show ``events`` (``/compact``),
``send`` a prompt (``/init``), put ``edit`` back in the input box (``/rewind``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from earshot._base.errors import UserError
from earshot.core.agent_session import AgentSession, error_text
from earshot.core.command_prompts import INIT_PROMPT, with_argument
from earshot.core.extend.mdcommands import MdCommand, expand
from earshot.core.extend.skills import Skill
from earshot.core.extensions import ExtraCommand
from earshot.core.loop.events import AgentEvent
from earshot.core.permissions import MODES
from earshot.providers.effort import EFFORT_LEVELS
from earshot.providers.errors import ProviderError
from earshot.providers.types import text_of


@dataclass(frozen=True, kw_only=True)
class CommandReply:
    text: str = ""
    error: bool = False
    session: AgentSession | None = None
    """The session to continue in; the one the command ran on is closed."""
    events: AsyncIterator[AgentEvent] | None = None
    send: str | None = None
    edit: str | None = None
    replay: bool = False
    """Show the (new) session's history: it was resumed."""


Run = Callable[[AgentSession, str], Awaitable[CommandReply]]


@dataclass(frozen=True)
class Command:
    name: str
    about: str
    run: Run
    hint: str = ""
    """What the argument is, for an editor's input hint ("" when it takes none)."""
    everywhere: bool = False
    """Also offered where there is no terminal: to editors (ACP) and to ``-p``."""
    source: str = ""
    """Where it comes from: "" for earshot's own, else "project" or "user" and the file."""


def _say(text: str) -> CommandReply:
    return CommandReply(text=text)


def _error(text: str) -> CommandReply:
    return CommandReply(text=text, error=True)


def _money(value: float) -> str:
    return f"${value:.4f}"


async def cmd_model(session: AgentSession, arg: str) -> CommandReply:
    if not arg:
        listed = "\n".join(f"  {ref}" for ref in session.model_choices()[:12])
        return _say(
            f"Current model: {session.model}\nswitch with /model provider/model, e.g.\n{listed}"
        )
    wanted, _, level = arg.partition(" ")
    ref = await session.switch_model(wanted)
    lines = [f"Switched model: {ref} (from the next model call)"]
    if level.strip():
        choice = await session.set_effort(level)
        lines.append(f"Effort: {choice.summary}")
    elif session.effort is not None:
        lines.append(f"Effort: {session.effort.summary}")
    return _say("\n".join(lines))


async def cmd_effort(session: AgentSession, arg: str) -> CommandReply:
    if arg:
        choice = await session.set_effort(arg)
        return _say(f"Effort: {choice.summary} (from the next model call)")
    if session.effort is None:
        return _error("this session has no reasoning effort to set")
    levels = ", ".join(EFFORT_LEVELS)
    return _say(f"Effort: {session.effort.summary}\nset with /effort LEVEL ({levels})")


async def cmd_mode(session: AgentSession, arg: str) -> CommandReply:
    if arg:
        session.set_mode(arg)
        return _say(f"Permission mode: {session.mode}")
    return _say(f"Permission mode: {session.mode} (one of {', '.join(MODES)})")


async def cmd_cost(session: AgentSession, arg: str) -> CommandReply:
    cost = session.cost()
    usage = cost.usage
    if cost.total_usd is None:
        spent = "unknown (no prices for this model)"
    else:
        spent = _money(cost.total_usd)
        if cost.earlier_usd:
            spent += f" (earlier runs {_money(cost.earlier_usd)})"
    return _say(
        f"Session cost: {spent}\n"
        f"Tokens in this run: {usage.input:,} input, {usage.output:,} output, "
        f"{usage.cache_read:,} cache read, {usage.cache_write:,} cache write, "
        f"{usage.reasoning:,} reasoning"
    )


def _tokens(chars: int) -> int:
    return (chars + 3) // 4


async def cmd_context(session: AgentSession, arg: str) -> CommandReply:
    agent = session.agent
    window = session.window
    system = _tokens(len(agent.system))
    tools = _tokens(sum(len(str(tool.spec())) for tool in agent.tools.values()))
    by_role: dict[str, int] = {}
    for message in session.history:
        size = sum(len(str(part)) for part in message.parts)
        by_role[message.role] = by_role.get(message.role, 0) + _tokens(size)
    estimate = system + tools + sum(by_role.values())
    rows = [
        f"{'system prompt':<22}~{system:,} tokens",
        f"{'tool definitions':<22}~{tools:,} tokens",
        *(f"{role + ' messages':<22}~{n:,} tokens" for role, n in sorted(by_role.items())),
        f"{'total (estimate)':<22}~{estimate:,} tokens"
        + (f" of {window:,} ({100 * estimate / window:.0f}%)" if window else ""),
    ]
    if session.context_tokens:
        rows.append(f"{'last call (measured)':<22}{session.context_tokens:,} tokens")
    return _say("\n".join(rows))


async def cmd_undo(session: AgentSession, arg: str) -> CommandReply:
    result = await session.undo()
    changed = [
        *(f"  restored {p}" for p in result.restored),
        *(f"  removed {p}" for p in result.removed),
    ]
    return CommandReply(text="\n".join([result.message, *changed[:20]]), error=not result.ok)


async def cmd_rewind(session: AgentSession, arg: str) -> CommandReply:
    turns = session.user_turns()
    if not turns:
        return _say("nothing to rewind: no message yet")
    if not arg.isdigit():
        rows = [
            f"  {i}. {text_of(e.message).strip().splitlines()[0][:70]}"
            for i, e in enumerate(turns, 1)
        ]
        return _say("rewind to before which message? /rewind N\n" + "\n".join(rows[-15:]))
    index = int(arg)
    if not 1 <= index <= len(turns):
        return _error(f"no message {index}; pick 1 to {len(turns)}")
    entry = turns[index - 1]
    await session.rewind(entry)
    return CommandReply(
        text=f"rewound to before message {index}; it is back in the input box to edit",
        edit=text_of(entry.message),
    )


def _replaced(
    old: AgentSession, new: AgentSession, error: str | None, text: str, replay: bool = False
) -> CommandReply:
    """The reply of a command that reopens; an error that left ``old`` open adopts
    nothing (the conversation goes on where it was)."""
    if error is not None:
        kept = new is old
        return CommandReply(
            text=error + ("; this session goes on" if kept else ""),
            error=True,
            session=None if kept else new,
        )
    return CommandReply(text=text, session=new, replay=replay)


async def cmd_clear(session: AgentSession, arg: str) -> CommandReply:
    new, error = await session.reopen()
    return _replaced(session, new, error, f"new session {new.id}")


async def cmd_fork(session: AgentSession, arg: str) -> CommandReply:
    old = session.short_id
    new, error = await session.fork()
    return _replaced(session, new, error, f"forked {old} into new session {new.id}")


def _session_rows(session: AgentSession) -> list[str]:
    rows: list[str] = []
    infos = session.sessions()[:20]
    short = session.short_ids()
    width = max((len(short.get(i.id, i.id)) for i in infos), default=8)
    for index, info in enumerate(infos, 1):
        here = " (this one)" if info.id == session.id else ""
        turns = f"{info.turns} turn{'' if info.turns == 1 else 's'}"
        rows.append(
            f"  {index:>2}. {short.get(info.id, info.id).ljust(width)}  {info.updated[:16]}  "
            f"{turns:<9}  {info.title[:40]}{here}"
        )
    return rows


async def cmd_sessions(session: AgentSession, arg: str) -> CommandReply:
    rows = _session_rows(session)
    if not rows:
        return _say("no sessions in this directory yet")
    return _say("sessions in this directory (newest first):\n" + "\n".join(rows))


async def cmd_resume(session: AgentSession, arg: str) -> CommandReply:
    if not arg:
        rows = _session_rows(session)
        if not rows:
            return _say("no sessions in this directory yet")
        return _say("resume which? /resume N or /resume ID\n" + "\n".join(rows))
    infos = session.sessions()
    target = arg
    if arg.isdigit() and 1 <= int(arg) <= min(20, len(infos)):
        target = infos[int(arg) - 1].id
    if target == session.id:
        return _say("that is this session")
    new, error = await session.reopen(resume=target)
    return _replaced(
        session, new, error, f"resumed {new.id} ({len(new.history)} messages)", replay=True
    )


async def cmd_compact(session: AgentSession, arg: str) -> CommandReply:
    return CommandReply(events=session.compact(arg))


async def cmd_init(session: AgentSession, arg: str) -> CommandReply:
    return CommandReply(send=with_argument(INIT_PROMPT, arg))


async def cmd_permissions(session: AgentSession, arg: str) -> CommandReply:
    gate = session.gate
    rows = [f"Permission mode: {gate.mode}"]
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
    return _say("\n".join(rows))


async def cmd_todos(session: AgentSession, arg: str) -> CommandReply:
    todos = session.todos
    if not todos:
        return _say("no todos")
    marks = {"completed": "✓", "in_progress": "▸", "pending": "○"}
    return _say("\n".join(f"  {marks.get(t.status, '·')} {t.content}" for t in todos))


async def cmd_scope(session: AgentSession, arg: str) -> CommandReply:
    return _say(session.gate.scope.text())


async def cmd_skills(session: AgentSession, arg: str) -> CommandReply:
    if not session.skills:
        return _say(
            "no skills; add one as .earshot/skills/<name>/SKILL.md (front matter name and "
            "description)"
        )
    rows = [f"  /{s.name}  {s.description}  ({s.source}: {s.path})" for s in session.skills]
    return _say(
        "skills (the model loads one with the skill tool; /<name> asks it to):\n" + "\n".join(rows)
    )


def _file_command(found: MdCommand) -> Command:
    async def run_file(session: AgentSession, arg: str) -> CommandReply:
        prompt = expand(found, arg, session.cwd, session.gate)
        session.for_next_turn(model=found.model, allowed_tools=found.allowed_tools)
        return CommandReply(send=prompt)

    return Command(
        found.name,
        found.about or f"({found.path.name})",
        run_file,
        hint=found.hint,
        everywhere=True,
        source=f"{found.source}: {found.path}",
    )


def _skill_command(skill: Skill) -> Command:
    async def run_skill(session: AgentSession, arg: str) -> CommandReply:
        ask = f"Use the skill {skill.name!r} (load it with the skill tool) for this"
        return CommandReply(send=ask + (f": {arg}" if arg else "."))

    return Command(
        skill.name,
        f"skill: {skill.description}",
        run_skill,
        hint="what to do",
        everywhere=True,
        source=f"{skill.source} skill: {skill.path}",
    )


def table(session: AgentSession | None) -> dict[str, Command]:
    """Every command of ``session``: earshot's own, then its command files' and skills'
    (earshot's own win a name; a command file wins over a skill)."""
    if session is None:
        return dict(COMMANDS)
    listed: dict[str, Command] = {}
    for skill in session.skills:
        listed[skill.name] = _skill_command(skill)
    for found in session.user_commands.values():
        listed[found.name] = _file_command(found)
    for added in extra(session):
        listed[added.name] = added
    return {**listed, **COMMANDS}


COMMANDS: dict[str, Command] = {
    c.name: c
    for c in (
        Command(
            "model",
            "show or switch the model: /model provider/model [EFFORT]",
            cmd_model,
            hint="provider/model",
            everywhere=True,
        ),
        Command(
            "effort",
            "show or set the reasoning effort (" + ", ".join(EFFORT_LEVELS) + ")",
            cmd_effort,
            hint="level",
            everywhere=True,
        ),
        Command(
            "mode",
            "show or set the permission mode (" + ", ".join(MODES) + ")",
            cmd_mode,
            hint="mode",
            everywhere=True,
        ),
        Command("cost", "what this session has cost (USD and tokens)", cmd_cost, everywhere=True),
        Command("context", "what fills the context window", cmd_context),
        Command("undo", "restore the files from before the last tool batch", cmd_undo),
        Command("rewind", "go back to before an earlier message: /rewind N", cmd_rewind),
        Command("fork", "continue in a new session branched from this one", cmd_fork),
        Command("resume", "resume another session: /resume N or ID", cmd_resume),
        Command("sessions", "list this directory's sessions", cmd_sessions),
        Command("clear", "start a new, empty session", cmd_clear),
        Command("compact", "summarise the conversation to free the window", cmd_compact),
        Command("init", "write an AGENTS.md after looking at the repository", cmd_init),
        Command("permissions", "the mode, the rules and this session's grants", cmd_permissions),
        Command("todos", "the agent's todo list", cmd_todos),
        Command("scope", "the declared scope: goal, paths, steps", cmd_scope, everywhere=True),
        Command("skills", "the skills found for this session", cmd_skills, everywhere=True),
    )
}
ALIASES = {"new": "clear"}


def find(
    text: str, *, everywhere: bool = False, session: AgentSession | None = None
) -> tuple[Command, str] | None:
    """The command ``text`` names (``/name rest``), or None when it names none (or, with
    ``everywhere``, none offered outside a terminal). With ``session``, its command files
    and skills too."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, rest = stripped[1:].partition(" ")
    found = table(session).get(ALIASES.get(name.strip(), name.strip()))
    if found is None or (everywhere and not found.everywhere):
        return None
    return found, rest.strip()


def extra(session: AgentSession, *, everywhere: bool = False) -> list[Command]:
    """The commands the session's tool sources add (``/mcp``, ``/mcp__server__prompt``),
    as commands of the table; a built-in name always wins."""
    commands: list[Command] = []
    for added in session.extra_commands():
        if added.name in COMMANDS or (everywhere and not added.everywhere):
            continue

        async def answer(
            _session: AgentSession, arg: str, added: ExtraCommand = added
        ) -> CommandReply:
            reply = await added.run(arg)
            return CommandReply(text=reply.text, error=reply.error, send=reply.send)

        commands.append(Command(added.name, added.about, answer, added.hint, added.everywhere))
    return commands


async def run(session: AgentSession, text: str, *, everywhere: bool = False) -> CommandReply | None:
    """Answer ``text`` when it is a command; a refusal (an unknown mode, a turn still
    running) is an error reply, never an exception."""
    found = find(text, everywhere=everywhere, session=session)
    if found is None:
        return None
    command, arg = found
    try:
        return await command.run(session, arg)
    except (UserError, ProviderError) as exc:
        return _error(error_text(exc))


__all__ = [
    "ALIASES",
    "COMMANDS",
    "INIT_PROMPT",
    "Command",
    "CommandReply",
    "extra",
    "find",
    "run",
    "table",
]
