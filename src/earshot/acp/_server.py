"""The ACP agent: each ACP request as an ``AgentSession`` operation (``_live.Live``).

::

    initialize          protocol version from the library, earshot's version in agentInfo,
                        CAPABILITIES (exactly what works; locked by a test)
    session/new         AgentSession.open(cwd) -> a new JSONL transcript; its id is the ACP id
    session/load        the id must be a session of that cwd; opened for append (its lock
                        taken), history replayed as updates, then the response
    session/resume      the same without the replay
    session/list        the transcripts of a cwd (or of every cwd), newest first
    session/close       abort, close the session, release the transcript
    session/prompt      a slash command of the session's table, or content -> parts ->
                        AgentSession.prompt; events -> updates (``_updates``);
                        TurnEnded.reason -> stop reason; a failed model call is an error
    session/cancel      AgentSession.abort(): the model stream, running tools, and a
                        pending permission request or question (answered as cancelled)
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
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
from acp import PROTOCOL_VERSION, RequestError
from acp.interfaces import Client
from acp.schema import (
    AcpMcpServer,
    AgentCapabilities,
    AvailableCommandsUpdate,
    ClientCapabilities,
    CloseSessionResponse,
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
    SessionInfo,
    SessionListCapabilities,
    SessionResumeCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    SseMcpServer,
)

from earshot import __version__
from earshot._base.errors import UserError
from earshot.acp._content import PromptBlock, PromptError, prompt_text, turn_parts
from earshot.acp._interact import Prompter
from earshot.acp._live import INTERNAL_ERROR, INVALID_PARAMS, SHUTDOWN_GRACE_S, Live, fail
from earshot.acp._options import EFFORT_OPTION, MODEL_OPTION, available_commands, mode_state
from earshot.acp._updates import Update, plan_update, replay, scope_plan
from earshot.core.agent_session import (
    AgentSession,
    SessionSetupError,
    error_text,
    list_sessions,
    session_exists,
)
from earshot.core.config.options import SessionOptions
from earshot.core.extensions import SourceFactory
from earshot.core.session import SessionError
from earshot.core.tools.display import ScopeView
from earshot.providers.errors import ProviderError
from earshot.providers.types import TextPart

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
RESOURCE_NOT_FOUND = -32002
MCP_REFUSED = (
    "earshot does not start MCP servers sent by the editor; add them to earshot with "
    "`earshot mcp add NAME -- COMMAND ARGS...` (or .mcp.json, then `earshot trust`) and "
    "send an empty mcpServers list"
)


class EarshotAcpAgent:
    """The server's state: the client connection, its capabilities, the open sessions."""

    def __init__(
        self,
        *,
        model: str | None,
        permission_mode: str | None,
        sources: SourceFactory | None = None,
    ) -> None:
        self.model = model
        self.permission_mode = permission_mode
        self.sources = sources
        self.client: Client | None = None
        self.forms = False
        self.sessions: dict[str, Live] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    def initialized(self, forms: bool, client: str, protocol: int) -> None:
        """What ``initialize`` records, when ``_early`` answered it before the library."""
        self.forms = forms
        log.info("initialize from %s (protocol %s)", client, protocol)

    # --- lifecycle ---------------------------------------------------------------------------

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: object,
    ) -> InitializeResponse:
        elicitation = client_capabilities.elicitation if client_capabilities else None
        who = f"{client_info.name} {client_info.version}" if client_info else "an unnamed client"
        self.initialized(
            elicitation is not None and elicitation.form is not None, who, protocol_version
        )
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
            modes=mode_state(live.session.mode),
            config_options=live.options(),
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
        updates: list[Update] = replay(live.session.history, live.cwd)
        scope = live.session.gate.scope
        if live.session.todos:
            updates.append(plan_update(live.session.todos))
        elif scope.declared:  # the one plan ACP has: the todo list, else the scope's steps
            view = ScopeView(goal=scope.goal, paths=list(scope.paths), steps=list(scope.steps))
            updates.append(scope_plan(view))
        for update in updates:
            await live.send(update)
        self._after_reply(live)
        return LoadSessionResponse(
            modes=mode_state(live.session.mode), config_options=live.options()
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
            modes=mode_state(live.session.mode), config_options=live.options()
        )

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: object
    ) -> ListSessionsResponse:
        infos = list_sessions(self._directory(cwd) if cwd is not None else None)
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
        self.sessions.pop(live.id, None)
        await live.close()
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
            live.session.abort()
        with anyio.move_on_after(SHUTDOWN_GRACE_S):
            for live in list(self.sessions.values()):
                if live.running:
                    await live.idle.wait()
        for live in list(self.sessions.values()):
            self.sessions.pop(live.id, None)
            await live.close()

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
            answer = await live.command(typed) if typed is not None else False
            if answer is True:
                return PromptResponse(stop_reason="end_turn")
            if isinstance(answer, str):
                parts = [TextPart(text=answer)]
            return PromptResponse(stop_reason=await live.prompt(parts))
        finally:
            live.running = False
            live.idle.set()

    async def cancel(self, session_id: str, **kwargs: object) -> None:
        live = self.sessions.get(session_id)
        if live is not None:
            live.session.abort()

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: object
    ) -> SetSessionModeResponse:
        await self._live(session_id).set_mode(mode_id)
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
            await live.set_effort(value)
        else:
            await live.switch_model(value)
        return SetSessionConfigOptionResponse(config_options=live.options())

    # --- helpers -----------------------------------------------------------------------------

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
        if not session_exists(where, session_id):
            fail(
                RESOURCE_NOT_FOUND,
                f"no session {session_id!r} in {where}; session/list shows this directory's",
            )
        return self._open(where, resume=session_id, model=None)

    def _open(self, cwd: Path, *, resume: str | None, model: str | None) -> Live:
        prompter = Prompter(self.client, "", forms=self.forms)
        options = SessionOptions(
            cwd=cwd, model=model, permission_mode=self.permission_mode, resume=resume
        )
        try:
            source = self.sources(cwd) if self.sources is not None else None
            session = AgentSession.open(
                options,
                approve=prompter.approve,
                ask=prompter.ask,
                sources=[source] if source is not None else [],
            )
        except (SessionSetupError, SessionError) as exc:
            fail(INVALID_PARAMS, str(exc))
        except (UserError, ProviderError) as exc:
            fail(INTERNAL_ERROR, error_text(exc))
        for warning in session.warnings:
            log.warning("%s", warning)
        prompter.session_id = session.id
        live = Live(session=session, prompter=prompter, client=self.client)
        live.idle.set()
        self.sessions[live.id] = live
        log.info("session %s %s in %s", live.id, "loaded" if resume else "created", cwd)
        return live

    def _after_reply(self, live: Live) -> None:
        """Send what follows a session's creation once its response is out."""

        async def later() -> None:
            await live.send(
                AvailableCommandsUpdate(
                    session_update="available_commands_update",
                    available_commands=available_commands(live.session),
                )
            )

        task = asyncio.get_running_loop().create_task(later())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


if TYPE_CHECKING:
    from acp.interfaces import Agent

    _conforms: Agent = EarshotAcpAgent(model=None, permission_mode=None)


__all__ = ["CAPABILITIES", "MCP_REFUSED", "EarshotAcpAgent"]
