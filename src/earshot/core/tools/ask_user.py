"""The ``ask_user`` tool: a question to the person running the session, with optional
choices, answered through ``ctx.ask``.

::

    ctx.ask is None (headless)      error: no one to ask; proceed on your own judgment and
                                    state your assumptions
    ask returns None (dismissed)    error: the user declined to answer
    choices, free text not allowed  an answer outside the choices is refused (one that
                                    differs only in case or surrounding spaces counts as it)
    otherwise                       "The user answered: ..."

It changes nothing (it only asks), so it is ``read_only``; waiting for the answer ends
when ``ctx.abort`` is set.
"""

from __future__ import annotations

from typing import Annotated

import anyio
import msgspec

from earshot._base.aio import race
from earshot.core.tools.base import AskFn, Question, ToolContext, ToolError, ToolResult, define_tool
from earshot.core.tools.display import Answered

DESCRIPTION = """
Ask the user and wait, only for a decision or fact only they have (a design choice, a
credential's name, a risky step), never for what code or commands can tell you. One clear
question; offer `choices` when the likely answers are known. Headless it fails: proceed on
your judgment, state assumptions.
"""


class AskUserInput(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    question: str
    choices: list[str] = msgspec.field(default_factory=list)
    allow_free_text: Annotated[
        bool,
        msgspec.Meta(description="Let the user answer in their own words"),
    ] = True


NO_ONE_TO_ASK = (
    "There is no one to ask: this session runs without a user who can answer questions. "
    "Do not ask again. Proceed on your own best judgment, and state the assumptions you "
    "made in your answer so the user can correct them later."
)


def _choices(args: AskUserInput) -> tuple[str, ...]:
    choices = tuple(c.strip() for c in args.choices)
    if any(not c for c in choices):
        raise ToolError("a choice is empty; give every choice some text", "empty choice")
    if len({c.casefold() for c in choices}) != len(choices):
        raise ToolError("choices repeat; give each choice once", "repeated choices")
    if not choices and not args.allow_free_text:
        raise ToolError(
            "allow_free_text is false but no choices were given; offer choices or allow free text",
            "nothing to answer with",
        )
    return choices


async def _ask(ask: AskFn, question: Question, abort: anyio.Event) -> str | None:
    """The answer, or ``ToolError`` when ``abort`` is set first. A failure of ``ask``
    itself is raised as it is (not inside an exception group)."""
    answer, aborted = await race(lambda: ask(question), abort)
    if aborted:
        raise ToolError("interrupted while waiting for the user's answer", "interrupted")
    return answer


def _matching(answer: str, choices: tuple[str, ...]) -> str | None:
    wanted = answer.strip().casefold()
    return next((c for c in choices if c.casefold() == wanted), None)


async def _execute(args: AskUserInput, ctx: ToolContext) -> ToolResult:
    text = args.question.strip()
    if not text:
        raise ToolError("the question is empty; write the question to ask", "empty question")
    choices = _choices(args)
    if ctx.ask is None:
        raise ToolError(NO_ONE_TO_ASK, "no user to ask")
    answer = await _ask(
        ctx.ask,
        Question(text=text, choices=choices, allow_free_text=args.allow_free_text),
        ctx.abort,
    )
    if answer is None:
        raise ToolError(
            "The user declined to answer this question. Do not ask it again; proceed on "
            "your best judgment and state your assumptions, or stop and explain what you "
            "need to continue.",
            "user declined to answer",
        )
    chosen = _matching(answer, choices) if choices else None
    if choices and chosen is None and not args.allow_free_text:
        listed = ", ".join(repr(c) for c in choices)
        raise ToolError(
            f"The user answered {answer.strip()!r}, which is not one of the choices "
            f"({listed}). Treat it as a comment on the question: ask again with choices "
            "that fit, or allow free text.",
            "answer outside the choices",
        )
    final = chosen if chosen is not None else answer.strip()
    reply = f"The user answered: {final}" if final else "The user answered with an empty reply."
    display = Answered(question=text, answer=final, choices=list(choices))
    return ToolResult.text(reply, brief=f"User answered: {final or '(empty)'}", display=display)


TOOL = define_tool(
    name="ask_user",
    description=DESCRIPTION,
    input_type=AskUserInput,
    execute=_execute,
    read_only=True,
    touches_files=False,
)

__all__ = ["DESCRIPTION", "NO_ONE_TO_ASK", "TOOL", "AskUserInput"]
