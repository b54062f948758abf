"""grep, glob and ls over a directory never open or list what a Read deny rule covers, and
say how many entries they withheld and by which rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from earshot.core.permissions import PermissionGate
from earshot.core.tools import glob, grep, ls
from earshot.core.tools.base import ToolContext, ToolError, ToolResult
from earshot.core.tools.ops import LocalFileOps
from earshot.core.tools.state import ToolState
from earshot.providers.types import JSONValue, TextPart
from tests.permissions.helpers import ruleset

SECRETS = ("env-secret", "pem-secret", "api-secret")


class RecordingFiles(LocalFileOps):
    """The local file operations, noting every file read and directory listed."""

    def __init__(self) -> None:
        self.touched: list[Path] = []

    def read_bytes(self, path: Path) -> bytes:
        self.touched.append(path)
        return super().read_bytes(path)

    def list_dir(self, path: Path) -> list[str]:
        self.touched.append(path)
        return super().list_dir(path)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "secrets/inner").mkdir(parents=True)
    (root / ".env").write_text("TOKEN=env-secret\n")
    (root / "src/server.pem").write_text("pem-secret\n")
    (root / "secrets/inner/api.txt").write_text("api-secret\n")
    (root / "src/app.py").write_text("print('no secret here')\n")
    (root / "src/alias").symlink_to(root / ".env")
    return root


DENY = ["Read(./.env)", "Read(*.pem)", "Read(secrets/**)"]


def context(repo: Path, deny: list[str], files: LocalFileOps | None = None) -> ToolContext:
    gate = PermissionGate(ruleset(repo, deny=deny), "ask", repo)
    return ToolContext(cwd=repo, state=ToolState(), guard=gate, files=files or LocalFileOps())


def text(result: ToolResult) -> str:
    return "\n".join(p.text for p in result.content if isinstance(p, TextPart))


async def run(tool: str, args: dict[str, JSONValue], ctx: ToolContext) -> str:
    module = {"grep": grep, "glob": glob, "ls": ls}[tool]
    return text(await module.TOOL.prepare(args, ctx).run())


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["content", "files_with_matches", "count"])
async def test_grep_over_the_tree_never_opens_a_denied_file(repo: Path, mode: str) -> None:
    files = RecordingFiles()
    ctx = context(repo, DENY, files)
    out = await run("grep", {"pattern": "secret", "path": ".", "output_mode": mode}, ctx)
    assert "src/app.py" in out
    assert not any(s in out for s in SECRETS)
    assert "server.pem" not in out and ".env" not in out.split("[")[0]
    assert "withheld by Read(*.pem)" in out
    assert "withheld by Read(secrets/**)" in out
    opened = {p.as_posix() for p in files.touched}
    assert not any(p.endswith((".env", ".pem", "api.txt")) or "/secrets" in p for p in opened)


@pytest.mark.anyio
async def test_glob_leaves_out_denied_files_and_says_so(repo: Path) -> None:
    files = RecordingFiles()
    out = await run("glob", {"pattern": "**/*"}, context(repo, DENY, files))
    listed = out.split("\n[")[0].splitlines()
    assert listed == ["src/app.py"]
    assert "3 entries withheld by Read(./.env)" not in out
    assert "entries withheld" in out or "entry withheld" in out
    assert "Read(*.pem)" in out and "Read(./.env)" in out and "Read(secrets/**)" in out
    assert not any("/secrets" in p.as_posix() for p in files.touched)


@pytest.mark.anyio
async def test_ls_leaves_out_denied_entries_and_counts_them(repo: Path) -> None:
    out = await run("ls", {"path": "."}, context(repo, DENY))
    assert ".env" not in out.split("\n[")[0]
    assert "secrets/" not in out.split("\n[")[0]
    assert "src/" in out
    assert "2 withheld" in out.splitlines()[0]
    inner = await run("ls", {"path": "src"}, context(repo, DENY))
    assert "app.py" in inner
    assert "server.pem" not in inner.split("\n[")[0]
    assert "alias" not in inner.split("\n[")[0]  # a symlink to .env is .env


@pytest.mark.anyio
async def test_with_no_deny_rule_nothing_is_withheld(repo: Path) -> None:
    out = await run("glob", {"pattern": "**/*"}, context(repo, []))
    assert "withheld" not in out
    assert "src/server.pem" in out
    found = await run("grep", {"pattern": "secret", "path": "."}, context(repo, ["Bash(rm *)"]))
    assert "withheld" not in found
    assert "src/server.pem" in found


@pytest.mark.anyio
async def test_nothing_found_still_says_what_was_withheld(repo: Path) -> None:
    out = await run("grep", {"pattern": "api-secret", "path": "."}, context(repo, DENY))
    assert out.startswith("No matches")
    assert "withheld by Read(secrets/**)" in out


@pytest.mark.anyio
async def test_a_missing_file_is_never_answered_with_a_denied_near_name(repo: Path) -> None:
    from earshot.core.tools import read

    ctx = context(repo, DENY)
    with pytest.raises(ToolError) as caught:
        await read.TOOL.prepare({"path": ".envv"}, ctx).run()
    assert ".env" not in caught.value.message.replace(".envv", "")
    with pytest.raises(ToolError) as near:
        await read.TOOL.prepare({"path": "src/app.pyy"}, context(repo, DENY)).run()
    assert "src/app.py?" in near.value.message
