"""What a tool is, and what it is given.

::

    Tool              name, description, input type (a msgspec Struct), read_only,
                      execute(args, ctx) -> ToolResult, permission(args, ctx) -> PermissionRequest
    define_tool(...)  builds a Tool; refuses a mutating tool with no permission()
    ToolContext       cwd, injected FileOps and ProcessOps, the session's ToolState, abort, ask,
                      progress (report how a running call is going: a ToolProgress event)
    ToolResult        content for the model (text and images), is_error, a brief for the UI,
                      and what front-ends show (``display``: a tagged union, see display.py)
    ToolError         raised by execute: ``message`` is for the model (say what to do instead),
                      ``brief`` for the UI; the loop turns it into an error result

A tool never ends a turn: whatever it raises becomes an error result the model reads.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, Literal, Protocol, TypeVar

import anyio
import msgspec

from earshot.core.tools.contract import ScopeContract
from earshot.core.tools.display import Display, FileChange
from earshot.core.tools.ops import FileOps, LocalFileOps, LocalProcessOps, ProcessOps
from earshot.core.tools.state import ToolState
from earshot.providers.types import ImagePart, JSONObject, JSONValue, TextPart, ToolSpec

PermissionKind = Literal["read", "edit", "execute", "fetch", "ask", "other"]


@dataclass(frozen=True, kw_only=True)
class PermissionRequest:
    """What a call would do, in the terms the permission gate decides on.

    ``paths`` are the files a call reads or changes (absolute, symlinks not yet resolved:
    the gate resolves them as the OS will); ``reads`` the files it also reads besides those
    (``edit`` reads the file it changes), checked against ``Read`` deny rules;
    ``command`` is the shell command of ``bash``; ``domain`` the host of ``web_fetch``;
    ``detail`` is what a person approving it must see (the command, or the diff of an edit);
    ``change`` the whole file change a file tool would make, when it can be worked out.
    """

    tool: str
    kind: PermissionKind
    paths: tuple[Path, ...] = ()
    reads: tuple[Path, ...] = ()
    command: str | None = None
    domain: str | None = None
    detail: str = ""
    change: FileChange | None = None
    scope_paths: tuple[str, ...] = ()
    """``declare_scope``: the path globs a new declaration adds to the declared ones."""


@dataclass(frozen=True, kw_only=True)
class Question:
    """What ``ask_user`` asks. With ``allow_free_text`` false, only a choice is an answer."""

    text: str
    choices: tuple[str, ...] = ()
    allow_free_text: bool = True


AskFn = Callable[[Question], Awaitable[str | None]]
SpawnFn = Callable[[str, str, str, "str | None"], Awaitable["ToolResult"]]
"""Run a subagent: (the task call's id, description, prompt, agent name or None) -> the
child's result."""

EscalateFn = Callable[[PermissionRequest, str], Awaitable[bool]]
"""Ask a person whether ``request`` may run outside the OS sandbox (the text says why it
seems to need to); True only when they allowed it."""


class ProgressFn(Protocol):
    """Report how a running call is going: a status ``message`` and/or ``progress`` of
    ``total`` (None when unknown). Never blocks; call it from the event loop's thread. The
    loop sends the latest report of each call as a ``ToolProgress`` event while the call
    runs and drops reports made after it finished."""

    def __call__(
        self, message: str = "", progress: float | None = None, total: float | None = None
    ) -> None: ...


def no_progress(
    message: str = "", progress: float | None = None, total: float | None = None
) -> None:
    """The ``progress`` of a context nobody listens to."""


class ReadGuard(Protocol):
    """What a tool that walks directories asks before it opens or lists a file (the
    session's permission gate): the deny rules it must honour below the path it was given."""

    def denies_reads(self, tool: str) -> bool:
        """Whether any deny rule could keep ``tool`` from reading some path."""
        ...

    def read_denial(self, tool: str, path: Path, *, real: bool = False) -> str | None:
        """The deny rule (its text) that keeps ``tool`` from reading ``path``, or None.
        ``real``: ``path`` has no symlink in it."""
        ...


@dataclass(kw_only=True)
class ToolContext:
    cwd: Path
    state: ToolState
    files: FileOps = field(default_factory=LocalFileOps)
    procs: ProcessOps = field(default_factory=LocalProcessOps)
    abort: anyio.Event = field(default_factory=anyio.Event)
    ask: AskFn | None = None
    escalate: EscalateFn | None = None
    vision: bool = False
    guard: ReadGuard | None = None
    """The session's gate, for tools that walk directories (``grep``, ``glob``, ``ls``)."""
    scope: ScopeContract | None = None
    """The session's scope contract (the gate's; shared with every subagent)."""
    spawn: SpawnFn | None = None
    """Runs a subagent (``task``); None where no more nesting is allowed."""
    call_id: str = ""
    """The id of the call this context was prepared for (empty outside a tool batch)."""
    progress: ProgressFn = no_progress
    """This call's progress reporter: the tool batch gives each call a context of its own
    whose reports become that call's ``ToolProgress`` events."""

    def resolve(self, path: str) -> Path:
        """``path`` as an absolute path; relative paths are relative to the cwd, ``~``
        expands to the home directory."""
        p = Path(path).expanduser()
        return p if p.is_absolute() else self.cwd / p


@dataclass(frozen=True, kw_only=True)
class ToolResult:
    content: list[TextPart | ImagePart]
    is_error: bool = False
    brief: str = ""
    display: Display = None
    denied: str | None = None
    """Why a permission the call needed while it ran was refused (the OS sandbox stopped
    a command and nobody allowed running it outside): the turn lists the call among its
    permission denials, as it does a call the gate refused. A refusal by the OS sandbox
    begins with ``SANDBOX_REFUSAL``."""

    @classmethod
    def text(cls, text: str, *, brief: str = "", display: Display = None) -> ToolResult:
        return cls(content=[TextPart(text=text)], brief=brief, display=display)

    @classmethod
    def error(cls, message: str, *, brief: str = "") -> ToolResult:
        return cls(content=[TextPart(text=message)], is_error=True, brief=brief or message)


SANDBOX_REFUSAL = "the OS sandbox stopped it"
"""How ``ToolResult.denied`` begins when the OS sandbox stopped a command and nobody let it
run outside: front-ends tell it apart from the gate's refusals to suggest the right way out."""


class ToolError(Exception):
    """A failure the model should read. ``message`` states the fix; ``brief`` is for a UI."""

    def __init__(self, message: str, brief: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.brief = brief or message


class ToolDefinitionError(Exception):
    """A tool that must not exist as defined (raised when it is defined)."""


A = TypeVar("A", bound=msgspec.Struct)

Execute = Callable[[A, ToolContext], Awaitable[ToolResult]]
Permission = Callable[[A, ToolContext], PermissionRequest]


@dataclass(frozen=True)
class Tool(Generic[A]):
    name: str
    description: str
    input_type: type[A]
    execute: Execute[A]
    read_only: bool
    permission: Permission[A] | None
    input_schema: JSONObject

    def spec(self) -> ToolSpec:
        return ToolSpec(
            name=self.name, description=self.description, input_schema=self.input_schema
        )

    def parse(self, raw: JSONValue) -> A:
        """Validated arguments, or ``ToolError`` naming the field at fault."""
        if isinstance(raw, str):
            raise ToolError(
                f"arguments for {self.name} were not valid JSON: {raw[:200]!r}; "
                "send a JSON object matching the tool's schema",
                "invalid arguments",
            )
        try:
            return msgspec.convert(raw, self.input_type)
        except msgspec.ValidationError as exc:
            raise ToolError(
                f"invalid arguments for {self.name}: {exc}", "invalid arguments"
            ) from exc

    def describe(self, args: A, ctx: ToolContext) -> PermissionRequest:
        if self.permission is not None:
            return self.permission(args, ctx)
        return PermissionRequest(tool=self.name, kind="read")

    def prepare(self, raw: JSONValue, ctx: ToolContext) -> PreparedCall:
        """Validate ``raw`` and bind it: what the gate sees and how to run it. Raises
        ``ToolError`` for arguments the model must fix."""
        args = self.parse(raw)
        request = self.describe(args, ctx)

        async def run() -> ToolResult:
            return await self.execute(args, ctx)

        return PreparedCall(request=request, run=run)


@dataclass(frozen=True)
class PreparedCall:
    """A validated call: its ``PermissionRequest``, and ``run`` to execute it."""

    request: PermissionRequest
    run: Callable[[], Awaitable[ToolResult]]


class AnyTool(Protocol):
    """Any tool, whatever its argument type: what a registry of tools holds."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def read_only(self) -> bool: ...

    def spec(self) -> ToolSpec: ...

    def prepare(self, raw: JSONValue, ctx: ToolContext) -> PreparedCall: ...


def _inline(node: JSONValue, defs: dict[str, JSONValue], depth: int = 0) -> JSONValue:
    if isinstance(node, list):
        return [_inline(item, defs, depth) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and depth < 16:
        target = defs.get(ref.removeprefix("#/$defs/"))
        if isinstance(target, dict):
            merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
            return _inline(merged, defs, depth + 1)
    return {k: _inline(v, defs, depth) for k, v in node.items() if k not in ("$defs", "title")}


_NULL: JSONValue = {"type": "null"}


def _off(value: JSONValue) -> bool:
    return value is False or value == "" or value == []


def _compact(node: JSONValue) -> JSONValue:
    """The same contract in fewer bytes, sent with every request: an optional field that
    may be null (``anyOf: [X, null]``, ``default: null``) becomes plain ``X`` left out of
    ``required`` (absent and null decode alike); defaults that mean "off" or "none"
    (``false``, ``""``, ``[]``) and an empty ``required`` go; so does
    ``additionalProperties: false``: an unknown field is still refused, with an error that
    names it (``Tool.parse``). So does an integer's lower bound of 0 or 1 (a count or a
    1-based line), with a default equal to it: no model sends a negative count, and
    ``Tool.parse`` still refuses one, naming the field."""
    if isinstance(node, list):
        return [_compact(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _compact(v) for k, v in node.items()}
    any_of = out.get("anyOf")
    if (
        isinstance(any_of, list)
        and len(any_of) == 2
        and _NULL in any_of
        and "default" in out
        and out["default"] is None
    ):
        (kept,) = [option for option in any_of if option != _NULL]
        if isinstance(kept, dict):
            rest = {k: v for k, v in out.items() if k not in ("anyOf", "default")}
            out = {**rest, **kept}
    if "default" in out and _off(out["default"]):
        del out["default"]
    if out.get("required") == []:
        del out["required"]
    if out.get("additionalProperties") is False:
        del out["additionalProperties"]
    low = out.get("minimum")
    if out.get("type") == "integer" and type(low) is int and low in (0, 1):
        del out["minimum"]
        if out.get("default") == low:
            del out["default"]
    return out


def _inline_schema(input_type: type[msgspec.Struct]) -> JSONObject:
    """The JSON Schema of ``input_type`` with every ``$ref`` into ``$defs`` inlined: a plain
    object schema, which every vendor and compatible server accepts, compacted (``_compact``)."""
    schema: JSONObject = msgspec.json.schema(input_type)
    raw_defs = schema.get("$defs")
    defs: dict[str, JSONValue] = raw_defs if isinstance(raw_defs, dict) else {}
    inlined = _compact(_inline(schema, defs))
    result: JSONObject = inlined if isinstance(inlined, dict) else {}
    result.setdefault("properties", {})
    return result


def _unwrap(text: str) -> str:
    """``text`` with its source line wrapping undone: a line starting ``- `` begins a new
    line (a list item), every other line continues the one before. The model reads the
    same words; the request carries fewer bytes."""
    lines: list[str] = []
    for line in text.strip().splitlines():
        stripped = line.strip()
        if lines and stripped and not stripped.startswith("- ") and lines[-1]:
            lines[-1] = f"{lines[-1]} {stripped}"
        else:
            lines.append(stripped)
    return "\n".join(lines)


def define_tool(
    *,
    name: str,
    description: str,
    input_type: type[A],
    execute: Execute[A],
    read_only: bool,
    permission: Permission[A] | None = None,
    touches_files: bool = True,
) -> Tool[A]:
    """Build a tool. Every tool must describe itself to the permission gate: a tool that
    mutates, or reads files, hands it every path it will touch through ``permission`` (a
    ``Read`` deny rule refuses even a read-only tool). Only a read-only tool that touches no
    file may say so (``touches_files=False``) and go without; omission is refused, so no
    tool skips the gate by forgetting it."""
    if not read_only and permission is None:
        raise ToolDefinitionError(
            f"tool {name!r} mutates but has no permission(): the gate could not see what it does"
        )
    if touches_files and permission is None:
        raise ToolDefinitionError(
            f"tool {name!r} has no permission(): hand the gate the paths it reads, or pass "
            "touches_files=False if it touches no file"
        )
    return Tool(
        name=name,
        description=_unwrap(description),
        input_type=input_type,
        execute=execute,
        read_only=read_only,
        permission=permission,
        input_schema=_inline_schema(input_type),
    )


__all__ = [
    "SANDBOX_REFUSAL",
    "AnyTool",
    "AskFn",
    "EscalateFn",
    "PermissionKind",
    "PermissionRequest",
    "PreparedCall",
    "ProgressFn",
    "Question",
    "ReadGuard",
    "SpawnFn",
    "Tool",
    "ToolContext",
    "ToolDefinitionError",
    "ToolError",
    "ToolResult",
    "define_tool",
    "no_progress",
]
