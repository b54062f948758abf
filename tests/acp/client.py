"""The editor's side for the ACP tests: the protocol library's client over a real
``earshot acp`` process, recording every update and answering prompts as scripted.

::

    Editor                     an ``acp.Client``: updates, permission requests, elicitations
      .permission_answers      option ids to answer with, in order (None: cancelled);
                               empty means wait until ``release`` is set (a person thinking)
      .elicitation_answers     answers to form elicitations, in order (None: decline)
      .texts(kind)             the concatenated text of every update of one kind
    start_earshot(...)         spawn ``python -m earshot acp`` with the library's client
    RawPeer / start_raw(...)   the same process spoken to line by line (for garbage)
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import cast

import acp
from acp.client.connection import ClientSideConnection
from acp.interfaces import Client
from acp.schema import (
    AcceptElicitationResponse,
    AgentMessageChunk,
    AgentThoughtChunk,
    AllowedOutcome,
    AudioContentBlock,
    ClientCapabilities,
    DeclineElicitationResponse,
    DeniedOutcome,
    ElicitationCapabilities,
    ElicitationFormCapabilities,
    ElicitationMode,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    PermissionOption,
    RequestPermissionResponse,
    ResourceContentBlock,
    TextContentBlock,
    ToolCallUpdate,
    UserMessageChunk,
)

from tests.fake_provider import FakeProvider

MODEL = "anthropic/claude-sonnet-4-6"


def child_env(fake: FakeProvider) -> dict[str, str]:
    return {
        **os.environ,
        "ANTHROPIC_API_KEY": "sk-ant-test-key-0123456789",
        "ANTHROPIC_BASE_URL": fake.base_url,
        "PYTHONUNBUFFERED": "1",
    }


class Editor:
    def __init__(self) -> None:
        self.updates: list[tuple[str, object]] = []
        self.permission_requests: list[ToolCallUpdate] = []
        self.permission_options: list[list[PermissionOption]] = []
        self.permission_answers: deque[str | None] = deque()
        self.asked = asyncio.Event()
        self.release = asyncio.Event()
        self.elicitations: list[tuple[str, ElicitationMode]] = []
        self.elicitation_answers: deque[str | None] = deque()
        self.first_chunk = asyncio.Event()

    def on_connect(self, conn: object) -> None:
        pass

    async def session_update(self, session_id: str, update: object, **kwargs: object) -> None:
        self.updates.append((session_id, update))
        if isinstance(update, AgentMessageChunk):
            self.first_chunk.set()

    async def request_permission(
        self,
        options: list[PermissionOption],
        session_id: str,
        tool_call: ToolCallUpdate,
        **kwargs: object,
    ) -> RequestPermissionResponse:
        self.permission_requests.append(tool_call)
        self.permission_options.append(options)
        self.asked.set()
        if not self.permission_answers:
            await self.release.wait()
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        answer = self.permission_answers.popleft()
        if answer is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=answer)
        )

    async def create_elicitation(
        self, message: str, mode: ElicitationMode, **kwargs: object
    ) -> AcceptElicitationResponse | DeclineElicitationResponse:
        self.elicitations.append((message, mode))
        answer = self.elicitation_answers.popleft() if self.elicitation_answers else None
        if answer is None:
            return DeclineElicitationResponse(action="decline")
        return AcceptElicitationResponse(action="accept", content={"answer": answer})

    def of(self, kind: type[object]) -> list[object]:
        return [u for _, u in self.updates if isinstance(u, kind)]

    def texts(self, kind: type[AgentMessageChunk | AgentThoughtChunk | UserMessageChunk]) -> str:
        out: list[str] = []
        for update in self.of(kind):
            content = getattr(update, "content", None)
            if isinstance(content, TextContentBlock):
                out.append(content.text)
        return "".join(out)

    def tool_updates(self, call_id: str) -> list[object]:
        return [u for _, u in self.updates if getattr(u, "tool_call_id", None) == call_id]


def capabilities(*, forms: bool = False) -> ClientCapabilities:
    if not forms:
        return ClientCapabilities()
    return ClientCapabilities(
        elicitation=ElicitationCapabilities(form=ElicitationFormCapabilities())
    )


@asynccontextmanager
async def start_earshot(
    fake: FakeProvider,
    cwd: Path,
    editor: Editor,
    *args: str,
    log: Path,
) -> AsyncIterator[tuple[ClientSideConnection, asyncio.subprocess.Process]]:
    with log.open("ab") as err:
        # The editor implements the requests earshot sends; the rest of acp.Client (files,
        # terminals) earshot never calls, and the library answers them "method not found".
        async with acp.spawn_agent_process(
            cast(Client, editor),
            sys.executable,
            "-m",
            "earshot",
            "acp",
            *args,
            env=child_env(fake),
            cwd=cwd,
            transport_kwargs={"stderr": err.fileno(), "shutdown_timeout": 10.0},
            use_unstable_protocol=True,
        ) as (conn, process):
            yield conn, process


class RawPeer:
    """JSON-RPC lines to and from the process, without the library."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.seen: list[dict[str, object]] = []

    async def send(self, message: dict[str, object] | bytes) -> None:
        assert self.process.stdin is not None
        data = message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n"
        self.process.stdin.write(data)
        await self.process.stdin.drain()

    async def reply(self, ident: object) -> dict[str, object]:
        """The response to request ``ident`` (everything read on the way is kept)."""
        for message in self.seen:
            if message.get("id") == ident and "method" not in message:
                return message
        assert self.process.stdout is not None
        while True:
            line = await self.process.stdout.readline()
            assert line, "earshot acp closed stdout"
            message = cast(dict[str, object], json.loads(line))
            self.seen.append(message)
            if message.get("id") == ident and "method" not in message:
                return message


@asynccontextmanager
async def start_raw(fake: FakeProvider, cwd: Path, *args: str, log: Path) -> AsyncIterator[RawPeer]:
    with log.open("ab") as err:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "earshot",
            "acp",
            *args,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=err.fileno(),
            env=child_env(fake),
            cwd=cwd,
        )
        peer = RawPeer(process)
        try:
            yield peer
        finally:
            assert process.stdin is not None
            process.stdin.close()
            await process.wait()


PromptBlocks = list[
    TextContentBlock
    | ImageContentBlock
    | AudioContentBlock
    | ResourceContentBlock
    | EmbeddedResourceContentBlock
]


def prompt_text(text: str) -> PromptBlocks:
    return [acp.text_block(text)]


def user_blocks(fake: FakeProvider, index: int) -> list[tuple[str, str]]:
    """``(type, text)`` of each block of the last user message of request ``index``."""
    messages = fake.requests[index].json()["messages"]
    assert isinstance(messages, list)
    last = messages[-1]
    assert isinstance(last, dict) and last["role"] == "user"
    content = last["content"]
    assert isinstance(content, list)
    blocks: list[tuple[str, str]] = []
    for block in content:
        assert isinstance(block, dict)
        kind, text = block.get("type"), block.get("text", "")
        blocks.append((str(kind), text if isinstance(text, str) else ""))
    return blocks


__all__ = [
    "MODEL",
    "Editor",
    "PromptBlocks",
    "RawPeer",
    "capabilities",
    "child_env",
    "prompt_text",
    "start_earshot",
    "start_raw",
    "user_blocks",
]
