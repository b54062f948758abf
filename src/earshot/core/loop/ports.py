"""The ports of the agent loop: what core needs from its collaborators, as protocols.

::

    ModelClient  streams one model call (core.model.ProviderModel; ScriptedModel)
    Gate         the permission gate (core.permissions.PermissionGate)
    Snapshotter  takes an undo snapshot before a mutating batch (core.undo.recorder.UndoRecorder)
    Recorder     records what happened (core.session.Session)

Tests and other front-ends may pass their own implementations; conformance is structural.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from earshot.core.permissions import Mode
from earshot.core.tools.base import PermissionRequest
from earshot.core.tools.state import Todo
from earshot.providers import types as pt
from earshot.providers.target import Target


class ModelClient(Protocol):
    """One model call as a stream: deltas, then exactly one ``Finish`` or ``ErrorEvent``
    (a failure is an event, never an exception); ``request.abort`` ends it as aborted."""

    def stream(self, request: pt.ModelRequest, target: Target) -> AsyncIterator[pt.StreamEvent]: ...


class CommandPart(Protocol):
    @property
    def command(self) -> str: ...


class GateDecision(Protocol):
    @property
    def outcome(self) -> str: ...

    @property
    def commands(self) -> Sequence[CommandPart]: ...

    @property
    def reason(self) -> str: ...

    @property
    def rule(self) -> str | None: ...

    @property
    def changes_nothing(self) -> bool:
        """The call changes no file (a shell line of read-only programs): no undo
        snapshot is taken for it."""
        ...


class Gate(Protocol):
    mode: Mode
    """The permission mode in force; front-ends switch it (``/mode``, ACP modes)."""

    def check(self, request: PermissionRequest, *, read_only: bool) -> GateDecision: ...

    def grant_session(self, request: PermissionRequest) -> None: ...

    def denies_reads(self, tool: str) -> bool:
        """Whether any deny rule could keep ``tool`` from reading some path."""
        ...

    def read_denial(self, tool: str, path: Path, *, real: bool = False) -> str | None:
        """The deny rule that keeps ``tool`` from reading ``path``: grep, glob and ls ask
        it about every entry below the directory the gate let them into."""
        ...


class Snapshotter(Protocol):
    async def snapshot(self, label: str = "") -> str | None: ...

    def prefetch(self) -> None:
        """A mutating call has begun streaming: start capturing the tree for the batch's
        snapshot now, while the model still writes it."""
        ...

    def discard(self) -> None:
        """Forget a capture ``prefetch`` started that no snapshot used."""
        ...


class Recorder(Protocol):
    """Where the loop records what happened (``core.session.Session``)."""

    async def append_message(
        self,
        message: pt.Message,
        *,
        usage: pt.Usage | None = None,
        cost_usd: float | None = None,
        model: str | None = None,
        incomplete: bool = False,
    ) -> str: ...

    async def append_model_switch(self, model: str) -> str: ...

    async def append_effort(self, effort: str, sent: str = "") -> str: ...

    async def append_todos(self, todos: list[Todo]) -> str: ...

    async def append_compaction(
        self, preamble: list[pt.Message], *, first_kept: str | None, tokens_before: int | None
    ) -> str: ...

    async def end_turn(self) -> None: ...


class BranchingRecorder(Recorder, Protocol):
    """A recorder that can also hold the transcripts of subagents (a session file, or a
    subagent's branch of one: ``core.session.Session``/``SubagentBranch``)."""

    async def subagent(self, call_id: str, agent: str, description: str) -> BranchingRecorder:
        """Where the child that the ``task`` call ``call_id`` runs records, starting now."""
        ...


if TYPE_CHECKING:  # the real implementations conform (checked by mypy, never run)
    from earshot.core.loop.model import ProviderModel, ScriptedModel
    from earshot.core.permissions.gate import PermissionGate
    from earshot.core.session import Session

    def _conformance(
        gate: PermissionGate, session: Session, real: ProviderModel, scripted: ScriptedModel
    ) -> tuple[Gate, BranchingRecorder, ModelClient, ModelClient]:
        return gate, session, real, scripted


__all__ = [
    "BranchingRecorder",
    "CommandPart",
    "Gate",
    "GateDecision",
    "ModelClient",
    "Recorder",
    "Snapshotter",
]
