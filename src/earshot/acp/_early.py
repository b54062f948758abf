"""The reply to ``initialize`` before the protocol library is loaded.

Importing the ACP library builds its pydantic models: hundreds of milliseconds, more from
the frozen binary. An editor waits for the ``initialize`` reply before it shows the agent
as ready, so ``earshot acp`` reads the first line itself and, when it is a well-formed
``initialize`` request, answers it from plain JSON; the library is imported after the
reply and takes every later line. Anything else in the first line (another method,
garbage, a shape this check does not vouch for) goes to the library unchanged, which
answers or rejects it exactly as before.

The reply is the one the library's models would build (``tests/acp`` compare the two): the
protocol version generated from the schema (``_protocol``), ``CAPABILITIES``, no auth
methods, earshot's name and version. Nothing here imports more than ``json``.
"""

from __future__ import annotations

import json
import os

from earshot import __version__
from earshot.acp._protocol import PROTOCOL_VERSION

# typing costs an import before the first reply; mypy honours a TYPE_CHECKING of our own.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

CAPABILITIES: dict[str, object] = {
    "loadSession": True,
    "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
    "mcpCapabilities": {"http": False, "sse": False},
    "sessionCapabilities": {"list": {}, "resume": {}, "close": {}},
}
"""The capabilities announced in ``initialize`` (wire form). ``_server.CAPABILITIES`` is the
same as library models; a test keeps the two equal."""

_PARAMS = {"protocolVersion", "clientCapabilities", "clientInfo", "_meta"}
_UINT16 = 65535


class Early:
    """What the first line of input turned out to be.

    ``answered``: an ``initialize`` request, already replied to; ``forms`` is whether the
    client offered form elicitation, ``client`` who it said it was and ``protocol`` the
    version it asked for. Otherwise ``pending`` is the line (None at end of input), for
    the library to read first. (A plain class: ``dataclasses`` costs an import here.)"""

    __slots__ = ("answered", "client", "forms", "pending", "protocol")

    def __init__(
        self,
        *,
        answered: bool = False,
        forms: bool = False,
        client: str = "an unnamed client",
        protocol: int = 0,
        pending: bytes | None = None,
    ) -> None:
        self.answered = answered
        self.forms = forms
        self.client = client
        self.protocol = protocol
        self.pending = pending


def initialize_result() -> dict[str, object]:
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "agentCapabilities": CAPABILITIES,
        "authMethods": [],
        "agentInfo": {"name": "earshot", "title": "earshot", "version": __version__},
    }


def answer_initialize(infile: BinaryIO, out_fd: int) -> Early:
    """Read lines up to the first non-blank one; reply to it when it is ``initialize``."""
    line = infile.readline()
    while line and not line.strip():
        line = infile.readline()
    if not line:
        return Early()
    early = _initialize(line)
    if early is None:
        return Early(pending=line)
    ident, found = early
    reply = {"jsonrpc": "2.0", "id": ident, "result": initialize_result()}
    data = json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(out_fd, view) :]
    except OSError:
        return Early()  # the client has gone: the library sees the end of input
    return found


def _initialize(line: bytes) -> tuple[str | int, Early] | None:
    """The request's id and what it says, when the line is an ``initialize`` request of a
    shape the library would accept; None for anything this does not vouch for."""
    try:
        value = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(value, dict) or value.get("method") != "initialize":
        return None
    ident = value.get("id")
    if value.get("jsonrpc") != "2.0" or isinstance(ident, bool):
        return None
    if not isinstance(ident, str | int):
        return None
    params = value.get("params")
    if not isinstance(params, dict) or not set(params) <= _PARAMS:
        return None
    version = params.get("protocolVersion")
    if isinstance(version, bool) or not isinstance(version, int) or not 0 <= version <= _UINT16:
        return None
    capabilities = params.get("clientCapabilities")
    info = params.get("clientInfo")
    if not _plain_capabilities(capabilities) or not _plain_info(info):
        return None
    forms = False
    if isinstance(capabilities, dict):
        elicitation = capabilities.get("elicitation")
        forms = isinstance(elicitation, dict) and elicitation.get("form") is not None
    client = "an unnamed client"
    if isinstance(info, dict):
        client = f"{info['name']} {info['version']}"
    return ident, Early(answered=True, forms=forms, client=client, protocol=version)


def _plain_capabilities(value: object) -> bool:
    """None, or an object whose known fields have the schema's simple shapes."""
    if value is None:
        return True
    if not isinstance(value, dict):
        return False
    fs = value.get("fs")
    if fs is not None and not (
        isinstance(fs, dict) and all(isinstance(v, bool) for k, v in fs.items() if k != "_meta")
    ):
        return False
    terminal = value.get("terminal")
    if terminal is not None and not isinstance(terminal, bool):
        return False
    elicitation = value.get("elicitation")
    if elicitation is not None and not isinstance(elicitation, dict):
        return False
    if isinstance(elicitation, dict):
        form = elicitation.get("form")
        url = elicitation.get("url")
        if not all(x is None or isinstance(x, dict) for x in (form, url)):
            return False
    return True


def _plain_info(value: object) -> bool:
    if value is None:
        return True
    if not isinstance(value, dict):
        return False
    title = value.get("title")
    return (
        isinstance(value.get("name"), str)
        and isinstance(value.get("version"), str)
        and (title is None or isinstance(title, str))
    )


__all__ = ["CAPABILITIES", "Early", "answer_initialize", "initialize_result"]
