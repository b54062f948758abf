"""``earshot acp`` answers ``initialize`` before the protocol library loads (``_early``):
the reply is the one the library's models would send, the version is the schema's, and a
first line that is anything else still reaches the library."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import acp
import pytest
from acp.schema import Implementation, InitializeResponse

from earshot import __version__
from earshot.acp._early import initialize_result
from earshot.acp._protocol import PROTOCOL_VERSION
from earshot.acp._server import CAPABILITIES
from earshot.cli._entry import _acp_flags
from tests.acp.client import MODEL, start_raw
from tests.fake_provider import FakeProvider

pytestmark = pytest.mark.anyio
ROOT = Path(__file__).resolve().parents[2]


def request(ident: int, method: str, params: dict[str, object]) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}


def test_the_early_reply_is_what_the_library_would_send() -> None:
    library = InitializeResponse(
        protocol_version=acp.PROTOCOL_VERSION,
        agent_capabilities=CAPABILITIES,
        auth_methods=[],
        agent_info=Implementation(name="earshot", title="earshot", version=__version__),
    ).model_dump(mode="json", by_alias=True, exclude_none=True, exclude_unset=True)
    assert initialize_result() == library


def test_the_protocol_version_is_generated_from_the_schema_the_library_was_built_from(
    tmp_path: Path,
) -> None:
    assert PROTOCOL_VERSION == acp.PROTOCOL_VERSION
    (tmp_path / "meta.json").write_text(json.dumps({"version": acp.PROTOCOL_VERSION}))
    out = tmp_path / "_protocol.py"
    script = ROOT / "scripts" / "gen_acp_protocol.py"
    subprocess.run([sys.executable, str(script), str(tmp_path), str(out)], check=True)
    committed = ROOT / "src" / "earshot" / "acp" / "_protocol.py"
    assert out.read_text(encoding="utf-8") == committed.read_text(encoding="utf-8")


async def test_a_first_line_that_is_not_initialize_is_answered_by_the_library(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    async with start_raw(fake_provider, repo, "--model", MODEL, log=log) as peer:
        await peer.send(b"\n")
        await peer.send(b"not json\n")
        await peer.send(request(2, "initialize", {"protocolVersion": "one"}))
        await peer.send(request(3, "initialize", {"protocolVersion": 1}))
        # the library reads a version it cannot parse as its own (1) and answers alike
        by_library = await peer.reply(2)
        again = await peer.reply(3)
    garbage = next(m["error"] for m in peer.seen if m.get("id") is None)
    assert isinstance(garbage, dict)
    assert garbage["code"] == -32700
    assert by_library["result"] == again["result"] == initialize_result()


async def test_a_session_can_be_opened_without_initialize_first(
    fake_provider: FakeProvider, repo: Path, log: Path
) -> None:
    async with start_raw(fake_provider, repo, "--model", MODEL, log=log) as peer:
        await peer.send(request(1, "session/new", {"cwd": str(repo), "mcpServers": []}))
        new = (await peer.reply(1))["result"]
    assert isinstance(new, dict)
    assert isinstance(new["sessionId"], str)


@pytest.mark.parametrize(
    ("args", "flags"),
    [
        ([], {"model": None, "permission_mode": None}),
        (["-m", "a/b"], {"model": "a/b", "permission_mode": None}),
        (["--model=a/b", "--permission-mode", "ask"], {"model": "a/b", "permission_mode": "ask"}),
        (["--help"], None),
        (["--model"], None),
        (["--model", "a/b", "--model", "c/d"], None),
        (["--mode", "ask"], None),
    ],
)
def test_acp_flags_skip_the_command_parser_only_when_they_are_plainly_valid(
    args: list[str], flags: dict[str, str | None] | None
) -> None:
    assert _acp_flags(args) == flags


def test_a_bad_acp_flag_is_still_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "earshot", "acp", "--modle", "x"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 2
    assert "--modle" in done.stderr + done.stdout
