"""The top-level flags (``earshot -p ...``): one table that both parses them and prints them
in ``--help``.

Headless runs are what scripts and CI start many times a day, so their command line is
parsed here, without the cyclopts machinery (about 150 ms of imports and introspection)
that the subcommands use. Each flag appears once, below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, NamedTuple

from earshot._base.errors import UserError

if TYPE_CHECKING:
    from pathlib import Path

    from earshot.core.config.options import SessionOptions

Kind = Literal["str", "int", "float", "bool", "list"]


class Flag(NamedTuple):  # not a dataclass: importing dataclasses costs --help 15 ms
    names: tuple[str, ...]
    dest: str
    kind: Kind
    metavar: str
    help: str


FLAGS: tuple[Flag, ...] = (
    Flag(
        ("-p", "--print"),
        "prompt",
        "str",
        "PROMPT",
        "Run one turn headless. PROMPT left out (or '-'): stdin is the prompt; given, "
        "piped stdin is appended to it as context.",
    ),
    Flag(
        ("-m", "--model"),
        "model",
        "str",
        "PROVIDER/MODEL",
        "The model, or an alias such as sonnet, opus or gpt (default: settings, else a "
        "provider with a key).",
    ),
    Flag(
        ("--effort",),
        "effort",
        "str",
        "LEVEL",
        "Reasoning effort: off, low, medium, high or max (default: settings, else medium "
        "for models that reason).",
    ),
    Flag(
        ("--output-format",),
        "output_format",
        "str",
        "FORMAT",
        "text, json or stream-json (earshot.v1; json@v1 also accepted).",
    ),
    Flag(
        ("--permission-mode",),
        "permission_mode",
        "str",
        "MODE",
        "plan, ask, accept-edits, auto or yolo.",
    ),
    Flag(
        ("--sandbox",),
        "sandbox",
        "str",
        "MODE",
        "OS sandbox for shell commands: auto, required or off.",
    ),
    Flag(
        ("--allow",), "allow", "list", "RULE", "Allow calls matching RULE, e.g. 'Bash(npm test)'."
    ),
    Flag(("--ask",), "ask", "list", "RULE", "Ask before calls matching RULE."),
    Flag(("--deny",), "deny", "list", "RULE", "Refuse calls matching RULE."),
    Flag(("--max-turns",), "max_turns", "int", "N", "Stop after N model calls."),
    Flag(
        ("--max-budget-usd",),
        "max_budget_usd",
        "float",
        "USD",
        "Stop before a call once the session cost reaches USD.",
    ),
    Flag(("--image",), "images", "list", "PATH_OR_URL", "Attach an image (repeatable)."),
    Flag(("--cwd",), "cwd", "str", "DIR", "Work in DIR instead of the current directory."),
    Flag(
        ("--append-system-prompt",),
        "append_system_prompt",
        "str",
        "TEXT",
        "Add TEXT to the system prompt.",
    ),
    Flag(
        ("-c", "--continue"),
        "continue_latest",
        "bool",
        "",
        "Continue the latest session of this directory.",
    ),
    Flag(("-r", "--resume"), "resume", "str", "ID", "Resume a session (an id prefix is enough)."),
    Flag(
        ("--fork-session",),
        "fork_session",
        "bool",
        "",
        "With --continue/--resume: branch into a new session.",
    ),
    Flag(("--verbose",), "verbose", "bool", "", "Describe tool calls and usage on stderr."),
)

_BY_NAME = {name: flag for flag in FLAGS for name in flag.names}

FlagValue = str | int | float | bool | list[str]


class FlagError(UserError, ValueError):
    """A malformed command line; the message says what and how to fix it."""


def parse_flags(args: list[str]) -> dict[str, FlagValue]:
    """The values given, by ``dest``. Values may follow as the next word or after ``=``."""
    values: dict[str, FlagValue] = {}
    i = 0
    while i < len(args):
        token = args[i]
        name, eq, inline = token.partition("=") if token.startswith("--") else (token, "", "")
        flag = _BY_NAME.get(name)
        if flag is None:
            hint = " (options come before nothing else: earshot -p PROMPT [OPTIONS])"
            what = "option" if token.startswith("-") and token != "-" else "argument"
            raise FlagError(f"unknown {what} {token!r}{hint if what == 'argument' else ''}")
        i += 1
        if flag.kind == "bool":
            if eq:
                raise FlagError(f"{name} takes no value")
            values[flag.dest] = True
            continue
        if eq:
            raw = inline
        elif i < len(args) and (not args[i].startswith("-") or args[i] == "-"):
            raw = args[i]
            i += 1
        else:
            raise FlagError(f"{name} needs a value ({flag.metavar})")
        values[flag.dest] = _convert(flag, name, raw, values.get(flag.dest))
    return values


def text_flag(values: dict[str, FlagValue], key: str) -> str | None:
    value = values.get(key)
    return value if isinstance(value, str) else None


def words_flag(values: dict[str, FlagValue], key: str) -> tuple[str, ...]:
    value = values.get(key)
    return tuple(value) if isinstance(value, list) else ()


def session_options(values: dict[str, FlagValue], cwd: Path) -> SessionOptions:
    """The session flags every front-end shares, as ``SessionOptions``."""
    from earshot.core.config.options import SessionOptions

    max_turns = values.get("max_turns")
    budget = values.get("max_budget_usd")
    if values.get("fork_session") is True and not (
        values.get("resume") or values.get("continue_latest") is True
    ):
        raise FlagError("--fork-session branches a session: add -c or -r ID")
    return SessionOptions(
        cwd=cwd,
        model=text_flag(values, "model"),
        effort=text_flag(values, "effort"),
        permission_mode=text_flag(values, "permission_mode"),
        sandbox=text_flag(values, "sandbox"),
        allow=words_flag(values, "allow"),
        ask=words_flag(values, "ask"),
        deny=words_flag(values, "deny"),
        resume=text_flag(values, "resume"),
        continue_latest=values.get("continue_latest") is True,
        fork=values.get("fork_session") is True,
        max_turns=max_turns if isinstance(max_turns, int) else None,
        max_budget_usd=float(budget) if isinstance(budget, int | float) else None,
        append_system_prompt=text_flag(values, "append_system_prompt") or "",
    )


def _convert(flag: Flag, name: str, raw: str, previous: FlagValue | None) -> FlagValue:
    if flag.kind == "int":
        try:
            number = int(raw)
        except ValueError:
            raise FlagError(f"{name} needs a whole number, not {raw!r}") from None
        if number < 1:
            raise FlagError(f"{name} must be at least 1")
        return number
    if flag.kind == "float":
        try:
            amount = float(raw)
        except ValueError:
            raise FlagError(f"{name} needs a number, not {raw!r}") from None
        if amount <= 0:
            raise FlagError(f"{name} must be above 0")
        return amount
    if flag.kind == "list":
        return [*(previous if isinstance(previous, list) else []), raw]
    return raw


HEADLESS_ONLY = ("prompt", "output_format", "max_turns", "verbose")
"""The flags of a headless run only; the others apply to the interactive UI too."""


def flags_help(*, headless: bool) -> list[str]:
    """The help of the flags for both front-ends (``headless`` False) or of the headless
    run only (True)."""
    lines: list[str] = []
    for flag in FLAGS:
        if (flag.dest in HEADLESS_ONLY) != headless:
            continue
        spelled = ", ".join(flag.names) + (f" {flag.metavar}" if flag.metavar else "")
        lines.append(f"  {spelled}\n      {flag.help}")
    return lines


__all__ = [
    "FLAGS",
    "HEADLESS_ONLY",
    "Flag",
    "FlagError",
    "FlagValue",
    "flags_help",
    "parse_flags",
    "session_options",
    "text_flag",
    "words_flag",
]
