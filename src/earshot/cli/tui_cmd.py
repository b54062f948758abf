"""``earshot [OPTIONS] [PROMPT]`` in a terminal with no ``-p``: the interactive UI.

The top-level flags are the headless ones (``_flags``); one optional positional PROMPT is
sent as the first message. Flags that only make sense for one headless turn
(``--output-format``, ``--max-turns``, ``--verbose``) are refused with a hint.
"""

from __future__ import annotations

from pathlib import Path

from earshot.cli._errors import UsageError
from earshot.cli._flags import HEADLESS_ONLY, parse_flags, session_options, text_flag, words_flag

_HEADLESS_ONLY = tuple(d for d in HEADLESS_ONLY if d != "prompt")


def split_prompt(args: list[str]) -> tuple[list[str], str | None]:
    """The flags, and the one positional PROMPT (a word that is no flag and no flag's
    value; a value is the word after a flag that takes one)."""
    from earshot.cli._flags import FLAGS

    takes_value = {name for flag in FLAGS if flag.kind != "bool" for name in flag.names}
    flags: list[str] = []
    prompt: str | None = None
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--" and i + 1 < len(args):
            rest = " ".join(args[i + 1 :])
            prompt = rest if prompt is None else f"{prompt} {rest}"
            break
        if word.startswith("-") and word != "-":
            flags.append(word)
            if word in takes_value and i + 1 < len(args):
                flags.append(args[i + 1])
                i += 1
        elif prompt is None:
            prompt = word
        else:
            raise UsageError(
                f'unexpected argument {word!r}: quote the prompt (earshot "{prompt} {word}")'
            )
        i += 1
    return flags, prompt


def _resume_without_id(args: list[str]) -> tuple[list[str], bool]:
    """``-r``/``--resume`` with no id after it: left out, and the resume picker opens."""
    out: list[str] = []
    pick = False
    for i, word in enumerate(args):
        if word in ("-r", "--resume"):
            following = args[i + 1] if i + 1 < len(args) else None
            if following is None or following.startswith("-"):
                pick = True
                continue
        out.append(word)
    return out, pick


def main(args: list[str]) -> int:
    args, pick = _resume_without_id(args)
    flags, prompt = split_prompt(args)
    values = parse_flags(flags)
    for dest in _HEADLESS_ONLY:
        if dest in values:
            raise UsageError(f"--{dest.replace('_', '-')} applies to headless runs: add -p PROMPT")

    cwd = Path(text_flag(values, "cwd") or Path.cwd()).resolve()
    if not cwd.is_dir():
        raise UsageError(f"--cwd {cwd}: no such directory")
    effort = text_flag(values, "effort")
    if effort is not None:  # refused before the UI is drawn
        from earshot.providers.effort import parse_effort

        try:
            parse_effort(effort, where="--effort")
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
    from earshot.cli.trust_cmd import ask_once
    from earshot.tui._early import keys_held

    session = session_options(values, cwd)
    ask_once(cwd)  # it may ask on the terminal: before the keys are held for the UI
    with keys_held():
        from earshot.cli._sources import mcp_servers
        from earshot.tui.main import TuiOptions, run

        return run(
            TuiOptions(
                session=session,
                prompt=prompt,
                images=words_flag(values, "images"),
                sources=mcp_servers,
                pick_resume=pick,
            )
        )
