"""The printed blocks and how they are painted: pure functions from text to ANSI text at
a width, no terminal and no events (``render.Feed`` decides when each is printed).

::

    Painter             rich renderables -> ANSI text at a width (colour off for NO_COLOR)
    markdown            an answer's Markdown: headings at the left, code blocks without
                        blank padding rows
    user_block, command_block, assistant_block
    tool_block          a tool call's first line (``tool_head``: a path relative to the
                        directory, the verb said once) and its result collapsed to head and
                        tail, or its diff coloured
    tail_text           the live view of running calls: each one's last lines of output
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from rich.console import Console, ConsoleOptions, JustifyMethod, RenderableType, RenderResult
from rich.markdown import CodeBlock, Heading, Markdown, MarkdownElement
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

RESULT_LINES = 6
RESULT_TAIL_LINES = 2
DIFF_LINES = 40
TAIL_LINES = 5
EXPAND_KEY = "Ctrl-O"
"""The key the scrollback names for a full view of what it shortened."""
_TRAILING = re.compile(r"[ ]+((?:\x1b\[[0-9;]*m)*)$", re.MULTILINE)


class Painter:
    """Renders rich objects to ANSI text for a terminal ``width`` columns wide."""

    def __init__(self, width: int = 80, *, color: bool = True) -> None:
        self.width = max(20, width)
        self.color = color

    def render(self, *items: RenderableType) -> str:
        buf = io.StringIO()
        console = Console(
            file=buf,
            width=self.width,
            force_terminal=True,
            color_system="256" if self.color else None,
            no_color=not self.color,
            highlight=False,
            emoji=False,
            legacy_windows=False,
            force_jupyter=False,
        )
        for item in items:
            console.print(item)
        return _TRAILING.sub(r"\1", buf.getvalue())


class _Heading(Heading):
    """Every heading level left-aligned (Rich centres ``#`` across the whole width)."""

    LEVEL_ALIGN: ClassVar[dict[str, JustifyMethod]] = dict.fromkeys(Heading.LEVEL_ALIGN, "left")


class _CodeBlock(CodeBlock):
    """A code block with a column of padding at each side and none above or below: the
    blank line around it is the one between blocks, not two."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        yield Syntax(code, self.lexer_name, theme=self.theme, word_wrap=True, padding=(0, 1))


class _Markdown(Markdown):
    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "heading_open": _Heading,
        "fence": _CodeBlock,
        "code_block": _CodeBlock,
    }


def markdown(text: str) -> Markdown:
    return _Markdown(text, code_theme="monokai", hyperlinks=False)


def user_block(p: Painter, text: str, *, note: str = "") -> str:
    line = Text()
    line.append("› ", style="bold cyan")
    # continuation lines are indented under the first, as the input box shows them
    line.append(text.rstrip("\n").replace("\n", "\n  "), style="bold")
    if note:
        line.append(f"  ({note})", style="dim")
    return p.render(Text(""), line)


def command_block(p: Painter, text: str) -> str:
    """A slash command as typed, dim: the scrollback shows what asked for the reply."""
    return p.render(Text(""), Text(f"› {text.strip()}", style="dim"))


def assistant_block(p: Painter, text: str) -> str:
    if not text.strip():
        return ""
    return p.render(markdown(text.strip("\n")))


def collapse(text: str, lines: int = RESULT_LINES) -> tuple[list[str], int]:
    """The first ``lines`` lines of ``text`` and how many were left out."""
    rows = text.rstrip("\n").splitlines()
    if len(rows) <= lines:
        return rows, 0
    return rows[:lines], len(rows) - lines


def collapse_ends(
    text: str, lines: int = RESULT_LINES, tail: int = RESULT_TAIL_LINES
) -> tuple[list[str], int, list[str]]:
    """``text`` in at most ``lines`` lines: all of it, or its first lines, how many were
    left out, and its last ``tail`` lines (where a test summary and an exit code are)."""
    rows = text.rstrip("\n").splitlines()
    if len(rows) <= lines:
        return rows, 0, []
    keep = max(lines - tail, 1)
    return rows[:keep], len(rows) - keep - tail, rows[len(rows) - tail :]


def _rows(rows: list[str], width: int) -> str:
    """Rows for a folding column: tabs expanded first (a column measures a tab as one cell,
    so an unexpanded tab makes every ``read`` line wrap), each cut at four screen lines."""
    return "\n".join(row.expandtabs(8)[: width * 4] for row in rows)


def diff_text(diff: str, lines: int = DIFF_LINES) -> Text:
    """A unified diff, coloured: additions green, removals red, hunks cyan."""
    out = Text()
    rows, hidden = collapse(diff, lines)
    for row in rows:
        style = ""
        if row.startswith(("+++", "---")):
            style = "bold"
        elif row.startswith("+"):
            style = "green"
        elif row.startswith("-"):
            style = "red"
        elif row.startswith("@@"):
            style = "cyan"
        out.append("    " + row + "\n", style=style)
    if hidden:
        out.append(f"    … {hidden} more diff lines\n", style="dim")
    out.rstrip()  # the block ends with its last line, not a blank one
    return out


_FILE_BRIEF = re.compile(
    r"(?:Read|Edited|Wrote|Created|Listed) (?P<name>\S+)(?: \((?P<what>[^()]*)\))?"
)


def short_path(path: Path, cwd: Path | None) -> str:
    """``path`` relative to ``cwd`` when inside it, else with ``~`` for the home directory."""
    if cwd is not None and path.is_relative_to(cwd) and path != cwd:
        return str(path.relative_to(cwd))
    home = Path.home()
    if path.is_relative_to(home) and path != home:
        return "~/" + str(path.relative_to(home))
    return str(path)


def tool_head(title: str, brief: str, cwd: Path | None = None) -> tuple[str, str]:
    """``(title, brief)`` as a tool block's first line shows them, saying nothing twice: a
    file tool's path relative to ``cwd`` and its brief without the verb and the file's name
    (``read: src/calc.py  lines 1-4 of 4``, not ``read: /home/u/repo/src/calc.py  Read
    calc.py (lines 1-4 of 4)``); a brief that repeats a command loses the command."""
    name, sep, subject = title.partition(": ")
    if sep and subject.startswith("/") and "," not in subject:
        path = Path(subject)
        title = f"{name}: {short_path(path, cwd)}"
        said = _FILE_BRIEF.fullmatch(brief)
        if said is not None and (subject + "/").endswith("/" + said["name"].strip("/") + "/"):
            brief = said["what"] or ""
    elif subject and brief.startswith(subject):
        brief = brief[len(subject) :].strip()
    return title, brief


def tool_block(
    p: Painter,
    title: str,
    result: str,
    *,
    is_error: bool = False,
    brief: str = "",
    diff: str = "",
    cwd: Path | None = None,
) -> str:
    title, brief = tool_head(title, brief, cwd)
    head = Text()
    head.append("● ", style="red" if is_error else "green")
    head.append(title, style="bold")
    if brief:
        head.append(f"  {brief}", style="dim")
    if diff:
        return p.render(head, diff_text(diff))
    first, hidden, last = collapse_ends(result)
    if not first:
        return p.render(head)
    style = "red" if is_error else "dim"
    body = Text(_rows(first, p.width), style=style)
    if hidden:
        body.append(f"\n… +{hidden} lines", style="dim")
        body.append("\n" + _rows(last, p.width), style=style)
    grid = Table.grid(padding=0)
    grid.add_column(width=4, no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    grid.add_row(Text("  ⎿ ", style="dim"), body)
    return p.render(head, grid)


def shown_result(text: str, brief: str) -> str:
    """A result as the scrollback shows it: a last ``exit code: N`` line is left out when
    the title already says ``(exit N)``."""
    head, _, last = text.rstrip("\n").rpartition("\n")
    if last.startswith("exit code: ") and f"(exit {last[11:].split()[0]})" in brief:
        return head if head.strip() else ""
    return text


def tail_text(tails: Sequence[str], width: int, lines: int = TAIL_LINES) -> str:
    """Running calls' latest output, the last ``lines`` lines of each, under a ``⎿``
    like a printed result's, each line cut to the width (so the region never wraps)."""
    rows: list[str] = []
    for tail in tails:
        for row in tail.splitlines()[-lines:]:
            lead = "  ⎿ " if not rows else "    "
            rows.append(lead + row.expandtabs(8)[: max(10, width - 5)])
    return "\n".join(rows)


__all__ = [
    "DIFF_LINES",
    "EXPAND_KEY",
    "RESULT_LINES",
    "RESULT_TAIL_LINES",
    "TAIL_LINES",
    "Painter",
    "assistant_block",
    "collapse",
    "collapse_ends",
    "command_block",
    "diff_text",
    "markdown",
    "short_path",
    "shown_result",
    "tail_text",
    "tool_block",
    "tool_head",
    "user_block",
]
