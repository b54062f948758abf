"""Every path a tool touches reaches the gate, resolved as the OS will open it.

Each case drives the real tool (``prepare``: the request it hands the gate) through a real
``PermissionGate`` with rules parsed from settings text, so a spelling the gate does not
resolve shows up as a secret read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from earshot.core.permissions import Mode, PermissionGate
from earshot.core.permissions.paths import forms, ignores_case, lexical
from earshot.core.tools.base import AnyTool, ToolContext
from earshot.core.tools.registry import builtin_tools
from earshot.core.tools.state import ToolState
from earshot.providers.types import JSONValue
from tests.permissions.helpers import ruleset

DENY = ["Read(./.env)", "Read(~/.ssh/**)", "Read(*.pem)", "Read(secrets/**)"]
TOOLS: dict[str, AnyTool] = {t.name: t for t in builtin_tools()}


@pytest.fixture
def repo(tmp_path: Path, hermetic_env: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src/deep").mkdir(parents=True)
    (root / "secrets").mkdir()
    (root / ".env").write_text("TOKEN=env-secret\n")
    (root / "secrets/api.txt").write_text("api-secret\n")
    (root / "certs").mkdir()
    (root / "certs/server.pem").write_text("pem-secret\n")
    (root / "README.md").write_text("hello\n")
    ssh = hermetic_env / ".ssh"
    ssh.mkdir()
    (ssh / "id_rsa").write_text("ssh-secret\n")
    (root / "env-link").symlink_to(root / ".env")
    (root / "keys").symlink_to(ssh)
    (root / "src/up").symlink_to(root)
    (root / "hidden").symlink_to(root / "secrets")
    return root


def decide_call(repo: Path, tool: str, args: dict[str, JSONValue], mode: Mode = "ask") -> str:
    gate = PermissionGate(ruleset(repo, deny=DENY), mode, repo)
    request = TOOLS[tool].prepare(args, ToolContext(cwd=repo, state=ToolState())).request
    return gate.check(request, read_only=TOOLS[tool].read_only).outcome


SPELLINGS = [
    ".env",
    "./.env",
    ".//.env",
    "././.env",
    "src/../.env",
    "src/deep/../../.env",
    ".env/",
    "env-link",
    "src/up/.env",
    "src/up/src/up/.env",
    "{repo}/.env",
    "/{repo}/.env",
    "{repo}//./.env",
    "~/.ssh/id_rsa",
    "~/.ssh/../.ssh/id_rsa",
    "~//.ssh/id_rsa",
    "{home}/.ssh/id_rsa",
    "//{home}/.ssh/id_rsa",
    "keys/id_rsa",
    "keys/./id_rsa",
    "certs/server.pem",
    "src/up/certs/server.pem",
    "secrets/api.txt",
    "hidden/api.txt",
    "src/deep/../../hidden/api.txt",
]


def spelled(text: str, repo: Path) -> str:
    """``text`` with ``{repo}`` and ``{home}`` filled in; a spelling that starts with one of
    them is absolute (and one that starts ``/{repo}`` begins with ``//``)."""
    home = os.path.expanduser("~").lstrip("/")
    path = text.format(repo=repo.as_posix().lstrip("/"), home=home)
    return "/" + path if text.startswith(("{repo}", "{home}")) else path


@pytest.mark.parametrize("text", SPELLINGS)
@pytest.mark.parametrize("mode", ["ask", "auto", "yolo"])
def test_read_of_a_denied_file_is_refused_however_it_is_spelled(
    repo: Path, text: str, mode: Mode
) -> None:
    assert decide_call(repo, "read", {"path": spelled(text, repo)}, mode) == "deny"


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("ls", {"path": "secrets"}),
        ("ls", {"path": "hidden/"}),
        ("ls", {"path": "~/.ssh"}),
        ("ls", {"path": "keys"}),
        ("glob", {"pattern": "*", "path": "keys"}),
        ("glob", {"pattern": "secrets/*"}),
        ("grep", {"pattern": "secret", "path": "hidden"}),
        ("grep", {"pattern": "secret", "path": ".env"}),
        ("grep", {"pattern": "secret", "path": "src/up/.env"}),
        ("edit", {"path": "env-link", "old_string": "TOKEN", "new_string": "X"}),
        ("multi_edit", {"path": ".env", "edits": [{"old_string": "T", "new_string": "X"}]}),
    ],
)
def test_every_file_tool_is_refused_a_denied_path(
    repo: Path, tool: str, args: dict[str, JSONValue]
) -> None:
    assert decide_call(repo, tool, args, "yolo") == "deny"


def test_a_glob_with_an_absolute_pattern_is_checked_where_it_walks(
    repo: Path, hermetic_env: Path
) -> None:
    pattern = f"{hermetic_env.as_posix()}/.ssh/*"
    assert decide_call(repo, "glob", {"pattern": pattern}, "yolo") == "deny"
    assert decide_call(repo, "glob", {"pattern": "keys/*"}, "yolo") == "deny"
    assert decide_call(repo, "glob", {"pattern": "src/../secrets/*.txt"}, "yolo") == "deny"


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("read", {"path": "README.md"}),
        ("ls", {"path": "."}),
        ("grep", {"pattern": "x", "path": "."}),
        ("glob", {"pattern": "**/*"}),
        ("read", {"path": "/etc/hostname"}),
    ],
)
def test_read_only_tools_still_never_prompt(
    repo: Path, tool: str, args: dict[str, JSONValue]
) -> None:
    assert decide_call(repo, tool, args, "ask") == "allow"


def test_an_edit_is_not_a_read_so_write_deny_rules_alone_do_not_stop_reading(repo: Path) -> None:
    gate = PermissionGate(ruleset(repo, deny=["Edit(README.md)"]), "ask", repo)
    ctx = ToolContext(cwd=repo, state=ToolState())
    read = TOOLS["read"].prepare({"path": "README.md"}, ctx).request
    assert gate.check(read, read_only=True).outcome == "allow"


def test_paths_are_normalised_the_way_the_kernel_reads_them(repo: Path) -> None:
    cwd = repo.as_posix()
    assert lexical(cwd, "//x//y/./z/") == "/x/y/z"
    assert lexical(cwd, "a/../b") == f"{cwd}/b"
    assert lexical(cwd, "~/k") == f"{cwd}/~/k"  # the tools expand ~ before the gate
    literal, real = forms(cwd, "src/up/src/deep/../../.env")
    assert literal == f"{cwd}/src/up/.env"
    assert real == f"{os.path.realpath(cwd)}/.env"


def test_a_case_sensitive_file_system_is_told_apart(repo: Path) -> None:
    assert not ignores_case((repo / ".env").as_posix())
    assert not ignores_case((repo / "README.MD").as_posix())
    decision = decide_call(repo, "read", {"path": ".ENV"}, "ask")
    assert decision == "allow"  # another file here: the file system tells the names apart


def test_where_two_spellings_name_one_file_a_deny_covers_both(repo: Path) -> None:
    # A hard link stands in for a case-insensitive file system: ".ENV" and ".env" are one
    # file, which is what a lookup on macOS or a casefold directory answers.
    os.link(repo / ".env", repo / ".ENV")
    assert ignores_case((repo / ".ENV").as_posix())
    assert decide_call(repo, "read", {"path": ".ENV"}, "yolo") == "deny"


@pytest.mark.parametrize("text", SPELLINGS)
def test_permissions_check_and_the_read_tool_agree(
    repo: Path, text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from earshot.cli.permissions_cmd import check

    (repo / ".earshot").mkdir(exist_ok=True)
    (repo / ".earshot/settings.json").write_text(json.dumps({"permissions": {"deny": DENY}}))
    path = spelled(text, repo)
    assert check(f"Read({path})", mode="yolo", as_json=True, cwd=repo) == 0
    said = json.loads(capsys.readouterr().out)["decision"]
    assert said == decide_call(repo, "read", {"path": path}, "yolo") == "deny"
