"""The ACP agent: each ACP request as ``create_session`` and ``Agent.run_turn``.

::

    initialize          protocol version from the library, earshot's version in agentInfo,
                        CAPABILITIES (exactly what works; locked by a test)
    session/new         create_session(cwd) -> a new JSONL transcript; its id is the ACP id
    session/load        the id must be a session of that cwd; opened for append (its lock
                        taken), history replayed as updates, then the response
    session/resume      the same without the replay
    session/list        the transcripts of a cwd (or of every cwd), newest first
    session/close       abort, close the agent, release the transcript
    session/prompt      content -> parts -> run_turn; events -> updates (``_updates``);
                        TurnEnded.reason -> stop reason; a failed model call is an error
    session/cancel      agent.abort(): the model stream, running tools, and a pending
                        permission request or question (answered as cancelled)
    session/set_mode    the gate's mode (+ current_mode_update)
    set_config_option   "model": switch_model, "effort": the reasoning effort
                        (+ config_option_update)

Client MCP servers and additional directories are refused with an error that says what to
do instead: a capability not declared is never silently taken. Failures a person can fix
(settings, keys, unknown models, an unknown session) come back as JSON-RPC errors whose
message is earshot's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import anyio
from acp import PROTOCOL_VERSION, RequestError
from acp.interfaces import Client
from acp.schema import (
    AcpMcpServer,
    AgentCapabilities,
    AvailableCommandsUpdate,
    ClientCapabilities,
    CloseSessionResponse,
    ConfigOptionUpdate,
    CurrentModeUpdate,
    ForkSessionResponse,
    HttpMcpServer,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    McpServerStdio,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResumeSessionResponse,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionInfo,
    SessionListCapabilities,
    SessionResumeCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    SseMcpServer,
)

from earshot import __version__
from earshot.acp._content import PromptBlock, PromptError, prompt_text, turn_parts
from earshot.acp._interact import Prompter
from earshot.acp._options import (
    COMMANDS,
    EFFORT_OPTION,
    MODEL_OPTION,
    effort_option,
    mode_state,
    model_option,
)
from earshot.acp._prompting import run_command, run_prompt
from earshot.acp._updates import Update, plan_update, replay
from earshot.core.factory import SessionSetup, SessionSetupError, create_session
from earshot.core.permissions import Mode, PermissionGate, parse_mode
from earshot.core.session import SessionError, SessionStore
from earshot.core.settings import SettingsError
from earshot.core.targets import NoModelError, load_catalog
from earshot.providers.catalog import CatalogError, ModelCatalog
from earshot.providers.errors import ProviderError
from earshot.providers.types import JSONValue

log = logging.getLogger("earshot.acp")

McpServer = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio

CAPABILITIES = AgentCapabilities(
    load_session=True,
    prompt_capabilities=PromptCapabilities(image=True, audio=False, embedded_context=True),
    mcp_capabilities=McpCapabilities(http=False, sse=False),
    session_capabilities=SessionCapabilities(
        list=SessionListCapabilities(),
        resume=SessionResumeCapabilities(),
        close=SessionCloseCapabilities(),
    ),
)
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RESOURCE_NOT_FOUND = -32002
MCP_REFUSED = (
    "earshot does not start MCP servers sent by the editor; configure them in earshot's "
    "settings (~/.config/earshot/settings.json or .earshot/settings.json) and send an "
    "empty mcpServers list"
)
SHUTDOWN_GRACE_S = 10.0


def fail(code: int, message: str) -> NoReturn:
    raise RequestError(code, message, None)


@dataclass
class Live:
    """One open session: its agent and transcript, and whether a prompt is running."""

    setup: SessionSetup
    cwd: Path
    prompter: Prompter
    idle: anyio.Event = field(default_factory=anyio.Event)
    running: bool = False

    @property
    def id(self) -> str:
        return self.setup.session.id


class EarshotAcpAgent:
    """The server's state: the client connection, its capabilities, the open sessions."""

    def __init__(self, *, model: str | None, permission_mode: str | None) -> None:
        self.model = model
        self.permission_mode = permission_mode
        self.client: Client | None = None
        self.forms = False
        self.sessions: dict[str, Live] = {}
        self._catalog: ModelCatalog | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    # --- lifecycle ---------------------------------------------------------------------------

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: object,
    ) -> InitializeResponse:
        elicitation = client_capabilities.elicitation if client_capabilities else None
        self.forms = elicitation is not None and elicitation.form is not None
        who = f"{client_info.name} {client_info.version}" if client_info else "an unnamed client"
        log.info("initialize from %s (protocol %s)", who, protocol_version)
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=CAPABILITIES,
            auth_methods=[],
            agent_info=Implementation(name="earshot", title="earshot", version=__version__),
        )

    async def authenticate(self, method_id: str, **kwargs: object) -> None:
        fail(
            INVALID_PARAMS,
            "earshot offers no ACP authentication methods: set the provider's key in the "
            "environment or run `earshot auth login PROVIDER`",
        )

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **kwargs: object,
    ) -> NewSessionResponse:
        where = self._checked(cwd, mcp_servers, additional_directories)
        live = self._open(where, resume=None, model=self.model)
        self._after_reply(live)
        return NewSessionResponse(
            session_id=live.id,
            modes=mode_state(live.setup.mode),
            config_options=self._options(live),
        )

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[McpServer] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: object,
    ) -> LoadSessionResponse:
        live = self._reopen(cwd, session_id, mcp_servers, additional_directories)
        updates: list[Update] = replay(live.setup.session.history(), live.cwd)
        todos: list[JSONValue] = [
            {"content": t.content, "status": t.status} for t in live.setup.agent.state.todos
        ]
        plan = plan_update(todos) if todos else None
        if plan is not None:
            updates.append(plan)
        for update in updates:
            await self.send(live, update)
        self._after_reply(live)
        return LoadSessionResponse(
            modes=mode_state(self._mode(live)), config_options=self._options(live)
        )

    async def resume_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **kwargs: object,
    ) -> ResumeSessionResponse:
        live = self._reopen(cwd, session_id, mcp_servers, additional_directories)
        self._after_reply(live)
        return ResumeSessionResponse(
            modes=mode_state(self._mode(live)), config_options=self._options(live)
        )

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: object
    ) -> ListSessionsResponse:
        if cwd is not None:
            infos = SessionStore(self._directory(cwd)).list()
        else:
            infos = SessionStore(Path.cwd()).list_all()
        return ListSessionsResponse(
            sessions=[
                SessionInfo(
                    session_id=info.id,
                    cwd=info.cwd,
                    title=info.title or None,
                    updated_at=info.updated,
                )
                for info in infos
            ]
        )

    async def close_session(self, session_id: str, **kwargs: object) -> CloseSessionResponse:
        live = self._live(session_id)
        await self._close(live)
        return CloseSessionResponse()

    async def fork_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **kwargs: object,
    ) -> ForkSessionResponse:
        raise RequestError.method_not_found("session/fork")

    async def ext_method(self, method: str, params: dict[str, object]) -> dict[str, object]:
        raise RequestError.method_not_found(f"_{method}")

    async def ext_notification(self, method: str, params: dict[str, object]) -> None:
        log.info("ignored notification _%s", method)

    async def shutdown(self) -> None:
        """The client has gone: stop every turn, let each finish its transcript, close."""
        for live in self.sessions.values():
            live.setup.agent.abort()
        with anyio.move_on_after(SHUTDOWN_GRACE_S):
            for live in list(self.sessions.values()):
                if live.running:
                    await live.idle.wait()
        for live in list(self.sessions.values()):
            await self._close(live)

    # --- turns -------------------------------------------------------------------------------

    async def prompt(
        self, session_id: str, prompt: Sequence[PromptBlock], **kwargs: object
    ) -> PromptResponse:
        live = self._live(session_id)
        if live.running:
            fail(-32600, "a prompt is already running in this session; cancel it first")
        try:
            parts = turn_parts(prompt)
        except PromptError as exc:
            fail(INVALID_PARAMS, str(exc))
        live.running, live.idle = True, anyio.Event()
        try:
            typed = prompt_text(parts)
            handled = await run_command(self, live, typed) if typed is not None else False
            if handled:
                return PromptResponse(stop_reason="end_turn")
            return PromptResponse(stop_reason=await run_prompt(self, live, parts))
        finally:
            live.running = False
            live.idle.set()

    async def cancel(self, session_id: str, **kwargs: object) -> None:
        live = self.sessions.get(session_id)
        if live is not None:
            live.setup.agent.abort()

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: object
    ) -> SetSessionModeResponse:
        live = self._live(session_id)
        await self.set_mode(live, mode_id)
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: object
    ) -> SetSessionConfigOptionResponse:
        live = self._live(session_id)
        if config_id not in (MODEL_OPTION, EFFORT_OPTION) or not isinstance(value, str):
            fail(
                INVALID_PARAMS,
                f"earshot has no option {config_id!r} of that type; it has 'model' and 'effort'",
            )
        if config_id == EFFORT_OPTION:
            await self.set_effort(live, value)
        else:
            await self.switch_model(live, value)
        return SetSessionConfigOptionResponse(config_options=self._options(live))

    async def set_effort(self, live: Live, value: str) -> None:
        from earshot.providers.effort import parse_effort

        effort = live.setup.agent.effort
        try:
            level = parse_effort(value)
        except ValueError as exc:
            fail(INVALID_PARAMS, str(exc))
        if effort is None:  # pragma: no cover - create_session always sets one
            fail(INTERNAL_ERROR, "this session has no reasoning effort")
        await effort.set(level, live.setup.agent.target, live.setup.agent.transcript)
        update = ConfigOptionUpdate(
            session_update="config_option_update", config_options=self._options(live)
        )
        await self.send(live, update)

    async def set_mode(self, live: Live, mode_id: str) -> None:
        try:
            mode = parse_mode(mode_id)
        except ValueError as exc:
            fail(INVALID_PARAMS, str(exc))
        gate = live.setup.agent.gate
        if not isinstance(gate, PermissionGate):  # pragma: no cover - create_session builds one
            fail(INTERNAL_ERROR, "this session's permission gate has no modes")
        gate.mode = mode
        await self.send(
            live, CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode)
        )

    async def switch_model(self, live: Live, ref: str) -> None:
        from earshot.core.targets import target_for

        try:
            target = target_for(ref, settings=live.setup.settings, catalog=self.catalog(live))
        except (CatalogError, ProviderError, SettingsError) as exc:
            fail(INVALID_PARAMS, _message(exc))
        await live.setup.agent.switch_model(target)
        live.setup.model_ref = target.ref
        update = ConfigOptionUpdate(
            session_update="config_option_update", config_options=self._options(live)
        )
        await self.send(live, update)

    async def send(self, live: Live, update: Update) -> None:
        """One ``session/update``; a client that has gone is not an error for the turn."""
        if self.client is None:
            return
        with contextlib.suppress(ConnectionError):
            await self.client.session_update(session_id=live.id, update=update)

    # --- helpers -----------------------------------------------------------------------------

    def catalog(self, live: Live) -> ModelCatalog:
        if self._catalog is None:
            self._catalog = load_catalog(live.setup.settings)
        return self._catalog

    def _options(self, live: Live) -> list[SessionConfigOptionSelect | SessionConfigOptionBoolean]:
        """The model, and beside it the reasoning effort."""
        options: list[SessionConfigOptionSelect | SessionConfigOptionBoolean]
        options = [self._model_option(live)]
        effort = live.setup.agent.effort
        if effort is not None:
            options.append(effort_option(effort.choice))
        return options

    def _model_option(self, live: Live) -> SessionConfigOptionSelect:
        return model_option(live.setup.agent.target.ref, live.setup.settings, self.catalog(live))

    def _mode(self, live: Live) -> Mode:
        gate = live.setup.agent.gate
        return gate.mode if isinstance(gate, PermissionGate) else live.setup.mode

    def _live(self, session_id: str) -> Live:
        live = self.sessions.get(session_id)
        if live is None:
            fail(
                RESOURCE_NOT_FOUND,
                f"no open session {session_id!r}: create one with session/new or load it",
            )
        return live

    def _directory(self, cwd: str) -> Path:
        path = Path(cwd)
        if not path.is_absolute():
            fail(INVALID_PARAMS, f"cwd must be an absolute path, not {cwd!r}")
        if not path.is_dir():
            fail(INVALID_PARAMS, f"cwd {cwd} is not a directory")
        return path.resolve()

    def _checked(
        self, cwd: str, mcp_servers: list[McpServer] | None, directories: list[str] | None
    ) -> Path:
        if mcp_servers:
            names = ", ".join(server.name for server in mcp_servers)
            fail(INVALID_PARAMS, f"{MCP_REFUSED} (received: {names})")
        if directories:
            fail(
                INVALID_PARAMS,
                "earshot does not take additional directories over ACP; start the session "
                "in the directory that holds the work",
            )
        return self._directory(cwd)

    def _reopen(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[McpServer] | None,
        directories: list[str] | None,
    ) -> Live:
        where = self._checked(cwd, mcp_servers, directories)
        live = self.sessions.get(session_id)
        if live is not None:
            if live.cwd != where:
                fail(RESOURCE_NOT_FOUND, f"no session {session_id!r} in {where}")
            return live
        if session_id not in SessionStore(where).ids():
            fail(
                RESOURCE_NOT_FOUND,
                f"no session {session_id!r} in {where}; session/list shows this directory's",
            )
        return self._open(where, resume=session_id, model=None)

    def _open(self, cwd: Path, *, resume: str | None, model: str | None) -> Live:
        prompter = Prompter(self.client, "", forms=self.forms)
        try:
            setup = create_session(
                cwd=cwd,
                model=model,
                permission_mode=self.permission_mode,
                resume=resume,
                approve=prompter.approve,
                ask=prompter.ask,
            )
        except (SessionSetupError, SessionError) as exc:
            fail(INVALID_PARAMS, str(exc))
        except (SettingsError, CatalogError, ProviderError, NoModelError) as exc:
            fail(INTERNAL_ERROR, _message(exc))
        for warning in setup.warnings:
            log.warning("%s", warning)
        prompter.session_id = setup.session.id
        live = Live(setup=setup, cwd=cwd, prompter=prompter)
        live.idle.set()
        self.sessions[live.id] = live
        log.info("session %s %s in %s", live.id, "loaded" if resume else "created", cwd)
        return live

    def _after_reply(self, live: Live) -> None:
        """Send what follows a session's creation once its response is out."""

        async def later() -> None:
            await self.send(
                live,
                AvailableCommandsUpdate(
                    session_update="available_commands_update", available_commands=list(COMMANDS)
                ),
            )

        task = asyncio.get_running_loop().create_task(later())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _close(self, live: Live) -> None:
        live.setup.agent.abort()
        self.sessions.pop(live.id, None)
        with anyio.move_on_after(SHUTDOWN_GRACE_S):
            await live.idle.wait()
        with anyio.CancelScope(shield=True):
            await live.setup.agent.close()
        live.setup.session.close()


if TYPE_CHECKING:
    from acp.interfaces import Agent

    _conforms: Agent = EarshotAcpAgent(model=None, permission_mode=None)


def _message(exc: Exception) -> str:
    return exc.message if isinstance(exc, ProviderError) else str(exc)


__all__ = ["CAPABILITIES", "MCP_REFUSED", "EarshotAcpAgent", "Live"]
