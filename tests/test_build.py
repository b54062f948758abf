"""The release build: what mypyc compiles, the packaging templates, and the frozen binary.

- The compiled set is the same in ``setup.py`` and at run time, and holds none of what
  mypyc miscompiles (``msgspec.Struct`` definitions, async generators,
  ``@asynccontextmanager``).
- ``EARSHOT_EXPECT_COMPILED=1`` (set by ``.ci/run`` for its second test run, against the
  mypyc wheel) makes this suite insist that every compiled module is in use; unset, that
  none is (a dev install is pure Python).
- ``EARSHOT_FROZEN_BINARY=dist/earshot/earshot`` (the folder build) and
  ``EARSHOT_FROZEN_ONEFILE=dist/earshot-onefile`` (the single file) add the frozen-binary
  tests, for each build named (they expect a compiled build, as ``scripts/build`` makes by
  default): a PyInstaller build takes minutes, so CI runs them only in the release workflow
  and with ``EARSHOT_CI_FROZEN=1 .ci/run`` (see docs/build.md). The single file's own tests
  (cold and warm starts, racing first runs, damage) are in tests/test_onefile.py.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.machinery
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import earshot
from earshot import __version__
from earshot._compiled import COMPILED, is_compiled
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic
from tests.frozen import Binary
from tests.mcp_client.support import PY_SERVER, tool_results

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
RENDER = ROOT / "build" / "render.py"
# Read at import: the hermetic fixture clears EARSHOT_* variables before each test runs.
EXPECT_COMPILED = os.environ.get("EARSHOT_EXPECT_COMPILED") == "1"
FROZEN = os.environ.get("EARSHOT_FROZEN_BINARY", "")
ONEFILE = os.environ.get("EARSHOT_FROZEN_ONEFILE", "")
BINARIES = [path for path in (FROZEN, ONEFILE) if path]
TARGETS = ("linux-x86_64", "linux-arm64", "macos-arm64", "macos-x86_64", "windows-x86_64")


def _setup_list() -> list[str]:
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "COMPILED" for t in node.targets
        ):
            assert isinstance(node.value, ast.List)
            return [str(ast.literal_eval(e)) for e in node.value.elts]
    raise AssertionError("setup.py has no COMPILED list")


def test_setup_compiles_exactly_the_modules_earshot_guards() -> None:
    names = [
        path.removeprefix("src/").removesuffix(".py").replace("/", ".") for path in _setup_list()
    ]
    assert names == list(COMPILED)
    for path in _setup_list():
        assert (ROOT / path).is_file(), path


def _mypyc_trouble(path: Path) -> list[str]:
    """Constructs mypyc drops or refuses, found by reading the module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                if ast.unparse(base).endswith("Struct"):
                    found.append(f"{node.name} derives from msgspec.Struct")
        if isinstance(node, ast.AsyncFunctionDef):
            if any(isinstance(n, ast.Yield | ast.YieldFrom) for n in ast.walk(node)):
                found.append(f"{node.name} is an async generator")
            if any("asynccontextmanager" in ast.unparse(d) for d in node.decorator_list):
                found.append(f"{node.name} is an @asynccontextmanager")
    return found


def test_compiled_modules_hold_nothing_mypyc_miscompiles() -> None:
    for path in _setup_list():
        assert _mypyc_trouble(ROOT / path) == [], path


def test_the_trouble_finder_sees_a_struct_and_an_async_generator(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import msgspec\nclass A(msgspec.Struct):\n    x: int\nasync def gen():\n    yield 1\n"
    )
    assert _mypyc_trouble(module) == ["A derives from msgspec.Struct", "gen is an async generator"]


def test_compiled_modules_are_in_use_exactly_when_the_build_promises() -> None:
    state = {name: is_compiled(importlib.import_module(name)) for name in COMPILED}
    assert state == dict.fromkeys(COMPILED, EXPECT_COMPILED), (
        "EARSHOT_EXPECT_COMPILED=1 needs a mypyc build (EARSHOT_MYPYC=1); unset, a pure "
        f"install: remove stray .so files from src/ ({Path(earshot.__file__).parent})"
    )


def _sums(version: str, targets: tuple[str, ...] = TARGETS) -> str:
    lines = []
    for target in targets:
        suffix = "zip" if target.startswith("windows") else "tar.gz"
        digest = hashlib.sha256(target.encode()).hexdigest()
        lines.append(f"{digest}  earshot-{version}-{target}.{suffix}")
    return "\n".join(lines) + "\n"


def _render(tmp_path: Path, sums: str, version: str = "1.2.3") -> subprocess.CompletedProcess[str]:
    (tmp_path / "SHA256SUMS").write_text(sums)
    paths = ["--sums", str(tmp_path / "SHA256SUMS"), "--out", str(tmp_path / "out")]
    return subprocess.run(
        [sys.executable, str(RENDER), "--version", version, "--repo", "acme/earshot", *paths],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_release_templates_render_with_every_archive_checksum(tmp_path: Path) -> None:
    done = _render(tmp_path, _sums("1.2.3"))
    assert done.returncode == 0, done.stderr
    formula = (tmp_path / "out" / "earshot.rb").read_text()
    manifest = json.loads((tmp_path / "out" / "earshot.json").read_text())
    for target in TARGETS[:4]:
        assert hashlib.sha256(target.encode()).hexdigest() in formula
        assert f"/v1.2.3/earshot-1.2.3-{target}.tar.gz" in formula
    assert "@" not in formula.replace("@1.2.3", "")
    assert manifest["version"] == "1.2.3"
    windows = manifest["architecture"]["64bit"]
    assert windows["hash"] == hashlib.sha256(b"windows-x86_64").hexdigest()
    assert windows["url"].endswith("/v1.2.3/earshot-1.2.3-windows-x86_64.zip")


def test_release_templates_refuse_a_missing_checksum(tmp_path: Path) -> None:
    done = _render(tmp_path, _sums("1.2.3", TARGETS[1:]))
    assert done.returncode == 1
    assert "SHA256_LINUX_X86_64" in done.stderr
    assert not (tmp_path / "out").exists()


def test_release_templates_refuse_an_archive_of_another_version(tmp_path: Path) -> None:
    done = _render(tmp_path, _sums("1.2.2"))
    assert done.returncode == 1
    assert "is not version 1.2.3" in done.stderr


# --- the frozen binary: opt-in, see the module docstring ----------------------------------

if BINARIES:

    @pytest.fixture(scope="module", params=BINARIES)
    def binary(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Binary:
        """Each frozen build named; the single file unpacks into a cache dir of the module's."""
        return Binary(Path(request.param).resolve(), tmp_path_factory.mktemp("cache"))

    def test_frozen_binary_answers_version_and_lists_providers(binary: Binary) -> None:
        assert binary.run("--version").stdout == f"earshot {__version__}\n"
        done = binary.run("providers", "--json")
        assert done.returncode == 0, done.stderr
        assert "anthropic" in {p["id"] for p in json.loads(done.stdout)}

    def test_frozen_binary_uses_its_compiled_modules(binary: Binary, tmp_path: Path) -> None:
        done = binary.run("doctor", "--json", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        assert report["frozen"] is True
        # scripts/build compiles unless told --pure, and a release binary is always compiled
        assert {m["status"] for m in report["compiled"]} == {"compiled"}
        assert "missing" not in report["versions"].values()

    def test_frozen_binary_runs_a_headless_turn(
        binary: Binary, fake_provider: FakeProvider, tmp_path: Path
    ) -> None:
        fake_provider.script(anthropic.text_turn("Hello from the fake provider."))
        env = {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake_provider.base_url}
        model = "anthropic/claude-sonnet-4-6"
        done = binary.run("--model", model, "-p", "hi", env=env, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert "Hello from the fake provider." in done.stdout
        fake_provider.assert_protocol_invariants()

    def test_frozen_binary_lists_and_calls_the_tools_of_a_stdio_mcp_server(
        binary: Binary, fake_provider: FakeProvider, tmp_path: Path
    ) -> None:
        # the mcp package is imported lazily, so only the build's collection puts it inside;
        # the server is the tests' Python one, run by this Python (it has mcp installed)
        (tmp_path / ".earshot").mkdir()
        server = {"command": sys.executable, "args": [str(PY_SERVER)]}
        settings = {"mcpServers": {"py": server}}
        (tmp_path / ".earshot" / "settings.local.json").write_text(json.dumps(settings))
        listed = binary.run("mcp", "tools", "py", "--json", cwd=tmp_path)
        assert listed.returncode == 0, listed.stderr
        schemas = {t["name"]: t["input_schema"] for t in json.loads(listed.stdout)}
        assert set(schemas["mcp__py__add"]["properties"]) == {"a", "b"}
        fake_provider.script(
            anthropic.tool_calls_turn([ToolCallSpec("c1", "mcp__py__add", {"a": 2, "b": 40})]),
            anthropic.text_turn("42"),
        )
        env = {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake_provider.base_url}
        model = "anthropic/claude-sonnet-4-6"
        done = binary.run(
            "--model", model, "-p", "add", "--allow", "mcp__py", env=env, cwd=tmp_path
        )
        assert done.returncode == 0, done.stderr
        (result,) = tool_results(fake_provider.requests[-1].json())
        assert result["content"][0]["text"] == "42"

    def test_frozen_binary_answers_acp_initialize(binary: Binary, tmp_path: Path) -> None:
        request = {"jsonrpc": "2.0", "id": 1, "method": "initialize"}
        request["params"] = {"protocolVersion": 1, "clientCapabilities": {}}
        done = binary.run("acp", stdin=json.dumps(request) + "\n", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        reply = json.loads(done.stdout.splitlines()[0])
        assert reply["id"] == 1
        assert reply["result"]["protocolVersion"] == 1

    @pytest.mark.parametrize("library_path", ["/opt/own/lib", None])
    def test_commands_earshot_runs_get_the_users_library_path_not_the_bundles(
        binary: Binary, fake_provider: FakeProvider, tmp_path: Path, library_path: str | None
    ) -> None:
        # The bootloader points LD_LIBRARY_PATH at the bundle's libssl, libz, libtinfo...: a
        # system program must not load those (build/rthook_env.py)
        show = 'printf "[%s][%s][%s]" "${LD_LIBRARY_PATH-unset}" "${LD_LIBRARY_PATH_ORIG-unset}"'
        command = show + ' "${_PYI_ARCHIVE_FILE-unset}"'
        fake_provider.script(
            anthropic.tool_calls_turn([ToolCallSpec("c1", "bash", {"command": command})]),
            anthropic.text_turn("done"),
        )
        env = {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake_provider.base_url}
        if library_path is not None:
            env["LD_LIBRARY_PATH"] = library_path
        model = "anthropic/claude-sonnet-4-6"
        args = ("--model", model, "--permission-mode", "yolo", "-p", "show it")
        run_env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"} | env
        done = subprocess.run(
            [str(binary.path), *args],
            capture_output=True,
            text=True,
            env={**run_env, "EARSHOT_CACHE_DIR": str(binary.cache)},
            cwd=tmp_path,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        (result,) = tool_results(fake_provider.requests[-1].json())
        assert result["content"][0]["text"].startswith(f"[{library_path or 'unset'}][unset][unset]")


@pytest.mark.parametrize("name", COMPILED)
def test_each_compiled_module_has_its_source_beside_it(name: str) -> None:
    # Looked up afresh in its package's directory: a module imported by another of the same
    # mypyc group gets a __file__ (and __spec__) of mypyc's making, the package path twice.
    package, _, last = name.rpartition(".")
    spec = importlib.machinery.PathFinder.find_spec(name, importlib.import_module(package).__path__)
    assert spec is not None and spec.origin is not None
    assert Path(spec.origin).with_name(last + ".py").is_file()
