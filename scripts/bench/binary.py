#!/usr/bin/env python3
"""What the frozen binaries hold, and whether it is everything earshot imports.

Prints, for the folder build (``dist/earshot``) and the single file (``dist/earshot-onefile``):

- sizes: the folder's total and file count, the single file's size, and the folder split by
  kind (Python bytecode, Python source, shared libraries and extension modules, the rest);
- the largest parts of the folder: each top-level package or file under ``_internal/``;
- import coverage: every module a real run of each subcommand imports, run from an install
  with ``-X importtime`` against the fake provider (``--version``, ``--help``,
  ``providers``, ``models``, ``doctor``, ``sessions``, ``permissions``, a headless turn, a
  headless run calling every built-in tool, ``acp`` through ``session/new``, ``mcp tools``
  and a headless call of a stdio MCP server's tool, the interactive UI through one turn), each
  looked up in the folder build: a module missing there is one a code path needs and the build
  left out. The install is ``--python``, by default the one the build itself froze
  (``build/temp.venv``: earshot's dependencies and nothing else, as ``pip install earshot``
  gives; the dev venv also has optional packages such as sniffio that earshot's dependencies
  try to import). Optional imports that fail in that install too (``nt``, ``brotli``, ...) and
  modules only its own start-up imports (``site`` and the like) are listed apart. Then the
  bundled packages no scenario imported, largest first: candidates to look at, not proof that
  nothing needs them (analysis put them there because some import statement names them).

Usage (from the repository root, after scripts/build)::

    .venv/bin/python scripts/bench/binary.py [--folder dist/earshot] [--single PATH]
        [--python build/temp.venv/bin/python] [--top 25] [--no-imports]
"""

from __future__ import annotations

import _imp
import argparse
import functools
import http.server
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "build"))

import pyz_toc  # noqa: E402

from earshot.providers.types import JSONValue  # noqa: E402
from tests.fake_provider import FakeProvider, ToolCallSpec, anthropic  # noqa: E402

EXE = ".exe" if os.name == "nt" else ""
MODEL = "anthropic/claude-sonnet-4-6"
IMPORTED = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)\s*$")


# --- sizes -----------------------------------------------------------------------------------


def _kind(path: Path) -> str:
    name = path.name
    if name.endswith(".pyc"):
        return "Python bytecode (.pyc)"
    if name.endswith(".py"):
        return "Python source (.py)"
    if ".so" in name or name.endswith((".pyd", ".dll", ".dylib")) or name == f"earshot{EXE}":
        return "shared libraries, extensions, launcher"
    return "data (catalog, CA bundle, metadata, ...)"


def _archive(folder: Path) -> dict[str, tuple[int, int, int]]:
    """The module archive inside the folder build's executable (build/boot_archive.py):
    name -> (typecode, offset, length); empty for a build without one."""
    try:
        return pyz_toc.read_embedded(folder / f"earshot{EXE}", importlib.util.MAGIC_NUMBER)
    except ValueError:
        return {}


def _bootstrap(folder: Path) -> set[str]:
    """The modules in the package PyInstaller appends to the executable (typecode "m": the
    bootstrap's, such as ``struct``, which the bootloader imports before any importer runs)."""
    data = (folder / f"earshot{EXE}").read_bytes()
    cookie = data.rfind(b"MEI\014\013\012\013\016")
    if cookie < 0:
        return set()
    length, toc_at, toc_len = (
        int.from_bytes(data[cookie + i : cookie + i + 4]) for i in (8, 12, 16)
    )
    start = cookie + 24 + 64 - length  # the package ends with its 88-byte cookie
    found: set[str] = set()
    at, end = start + toc_at, start + toc_at + toc_len
    while at < end:
        size = int.from_bytes(data[at : at + 4])
        if data[at + 17 : at + 18] == b"m":
            found.add(data[at + 18 : at + size].rstrip(b"\0").decode())
        at += size
    return found


def sizes(folder: Path, single: Path | None, top: int) -> None:
    files = [p for p in folder.rglob("*") if p.is_file()]
    total = sum(p.stat().st_size for p in files)
    print(f"folder build {folder}: {total / 1e6:.1f} MB in {len(files)} files")
    if single is not None and single.is_file():
        print(f"single file {single}: {single.stat().st_size / 1e6:.1f} MB")
    kinds: Counter[str] = Counter()
    for path in files:
        kinds[_kind(path)] += path.stat().st_size
    archived = sum(length for _, _, length in _archive(folder).values())
    if archived:  # inside the executable, counted with the shared libraries above
        kinds[_kind(folder / f"earshot{EXE}")] -= archived
        kinds[f"Python bytecode (the archive inside earshot{EXE})"] += archived
    for kind, size in kinds.most_common():
        print(f"  {size / 1e6:7.1f} MB  {kind}")
    internal = folder / "_internal"
    parts: Counter[str] = Counter()
    counts: Counter[str] = Counter()
    for path in files:
        rel = path.relative_to(internal) if internal in path.parents else path.relative_to(folder)
        key = rel.parts[0] if len(rel.parts) > 1 else rel.name
        if key == "python3.11" or key.startswith("python3."):
            key = "/".join(rel.parts[:2])  # lib-dynload: the standard library's extensions
        parts[key] += path.stat().st_size
        counts[key] += 1
    print(f"largest parts of {folder.name}/ (top {top}):")
    for key, size in parts.most_common(top):
        print(f"  {size / 1e6:7.2f} MB  {counts[key]:5d} files  {key}")
    archive = _archive(folder)
    if archive:
        packages: Counter[str] = Counter()
        modules: Counter[str] = Counter()
        for name, (_, _, length) in archive.items():
            packages[name.split(".")[0]] += length
            modules[name.split(".")[0]] += 1
        total = sum(packages.values())
        print(
            f"the module archive inside earshot{EXE}: {total / 1e6:.1f} MB, {len(archive)} "
            f"modules; largest packages (top {top}):"
        )
        for key, size in packages.most_common(top):
            print(f"  {size / 1e6:7.2f} MB  {modules[key]:5d} modules  {key}")


# --- what the folder build holds ---------------------------------------------------------------


def _bundled(folder: Path) -> tuple[set[str], set[str]]:
    """(module names importable from the folder build, names of its namespace packages)."""
    internal = folder / "_internal"
    modules: set[str] = set()
    packages: set[str] = set()
    for path in internal.rglob("*"):
        rel = path.relative_to(internal)
        if "__pycache__" in rel.parts or any(".dist-info" in p for p in rel.parts):
            continue
        if rel.parts[0].startswith("python3."):  # lib-dynload: top-level extensions
            if path.is_file() and ".so" in path.name:
                modules.add(path.name.split(".", 1)[0])
            continue
        if path.is_dir():
            packages.add(".".join(rel.parts))
            continue
        name, _, suffix = path.name.partition(".")
        if suffix not in ("py", "pyc") and not (suffix.endswith(("so", "pyd"))):
            continue
        parts = [*rel.parts[:-1], name]
        modules.add(".".join(parts[:-1]) if name == "__init__" else ".".join(parts))
    for name, (typecode, _, _) in _archive(folder).items():
        (packages if typecode == 3 else modules).add(name)  # 3: a namespace package
    modules |= _bootstrap(folder)
    base = internal / "base_library.zip"
    if base.is_file():
        for entry in zipfile.ZipFile(base).namelist():
            if entry.endswith(".pyc"):
                modules.add(entry[:-4].replace("/", ".").removesuffix(".__init__"))
    return modules, packages - modules


def _available(name: str, modules: set[str], namespaces: set[str]) -> bool:
    if name in modules or name in namespaces or name in sys.builtin_module_names:
        return True
    return _imp.is_frozen(name)  # frozen into libpython, which the build carries


# --- running each subcommand from the source install -------------------------------------------


def _imported(stderr: str) -> set[str]:
    return {m.group(1) for line in stderr.splitlines() if (m := IMPORTED.match(line))}


class _QuietPages(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class Runs:
    """Each scenario once, from the source install, with -X importtime."""

    def __init__(self, python: Path, fake: FakeProvider, tmp: Path) -> None:
        self.python = python
        self.fake = fake
        home = tmp / "home"
        self.work = tmp / "repo"
        self.work.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=self.work, check=True)
        (self.work / "notes.txt").write_text("alpha\nbeta\n")
        self.env = {
            **os.environ,
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_DATA_HOME": str(home / ".local/share"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "ANTHROPIC_API_KEY": "bench-key",
            "ANTHROPIC_BASE_URL": fake.base_url,
            "PYTHONPROFILEIMPORTTIME": "1",
        }
        self.earshot = str(python.with_name(f"earshot{EXE}"))
        # web_fetch's page, from a server of its own (the fake provider answers model calls only)
        pages = tmp / "pages"
        pages.mkdir()
        (pages / "page.html").write_text("<html><body><h1>Title</h1><p>text</p></body></html>")
        handler = functools.partial(_QuietPages, directory=str(pages))
        self.pages = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.pages.serve_forever, daemon=True).start()

    def run(self, *args: str, stdin: str = "", cwd: Path | None = None) -> set[str]:
        done = subprocess.run(
            [self.earshot, *args],
            input=stdin,
            capture_output=True,
            text=True,
            env=self.env,
            cwd=cwd or self.work,
            timeout=120,
            check=False,
        )
        if done.returncode != 0:
            tail = "\n".join(line for line in done.stderr.splitlines() if "import time" not in line)
            raise SystemExit(f"earshot {' '.join(args)} failed ({done.returncode}):\n{tail}")
        return _imported(done.stderr)

    def headless(self) -> set[str]:
        self.fake.script(anthropic.text_turn("hello", chunks=2))
        return self.run("--model", MODEL, "-p", "hi")

    def every_tool(self) -> set[str]:
        calls: list[tuple[str, dict[str, JSONValue]]] = [
            ("read", {"path": "notes.txt"}),
            ("write", {"path": "new.txt", "content": "one\n"}),
            ("edit", {"path": "new.txt", "old_string": "one", "new_string": "two"}),
            (
                "multi_edit",
                {"path": "new.txt", "edits": [{"old_string": "two", "new_string": "3"}]},
            ),
            ("ls", {"path": "."}),
            ("glob", {"pattern": "*.txt"}),
            ("grep", {"pattern": "alpha"}),
            ("bash", {"command": "echo hi"}),
            ("bash", {"command": "sleep 0.2", "run_in_background": True}),
            ("bash_output", {"shell_id": "1"}),
            ("kill_shell", {"shell_id": "1"}),
            ("web_fetch", {"url": f"http://127.0.0.1:{self.pages.server_port}/page.html"}),
            ("todo_write", {"todos": [{"content": "x", "status": "pending"}]}),
            ("declare_scope", {"goal": "g", "paths": ["notes.txt"]}),
        ]
        specs = [ToolCallSpec(f"c{n}", name, args) for n, (name, args) in enumerate(calls)]
        self.fake.script(anthropic.tool_calls_turn(specs), anthropic.text_turn("done"))
        found = self.run("--model", MODEL, "--permission-mode", "yolo", "-p", "use the tools")
        if self.fake.remaining:
            raise SystemExit("the every-tool run ended before its last scripted reply")
        return found

    def acp(self) -> set[str]:
        lines = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "session/new",
                "params": {"cwd": str(self.work), "mcpServers": []},
            },
        ]
        return self.run("acp", stdin="".join(json.dumps(line) + "\n" for line in lines))

    def mcp(self) -> set[str]:
        from tests.mcp_client.support import PY_SERVER

        project = self.work.parent / "mcp-project"
        (project / ".earshot").mkdir(parents=True, exist_ok=True)
        server = {"command": sys.executable, "args": [str(PY_SERVER)]}
        settings = {"mcpServers": {"py": server}}
        (project / ".earshot" / "settings.local.json").write_text(json.dumps(settings))
        found = self.run("mcp", "tools", "py", "--json", cwd=project)
        call = ToolCallSpec("c1", "mcp__py__add", {"a": 2, "b": 40})
        self.fake.script(anthropic.tool_calls_turn([call]), anthropic.text_turn("42"))
        found |= self.run("--model", MODEL, "-p", "add", "--allow", "mcp__py", cwd=project)
        return found

    def tui(self) -> set[str]:
        from tests.tui.terminal import Terminal, scripted_turn

        # Terminal runs `sys.executable -m earshot`: point it at the install measured.
        own, sys.executable = sys.executable, str(self.python)
        try:
            with Terminal(["--model", MODEL], cwd=self.work, env=self.env) as term:
                term.wait_ready()
                scripted_turn(term, self.fake, 1)
                term.exit()
                return _imported(term.stderr())
        finally:
            sys.executable = own


def _installed(python: Path, names: Iterable[str]) -> set[str]:
    """The names ``python`` can find a module for (the others are imports that fail there)."""
    probe = (
        "import importlib.util, json, sys\n"
        "def found(name):\n"
        "    try:\n"
        "        return importlib.util.find_spec(name) is not None\n"
        "    except (ImportError, ValueError):\n"
        "        return False\n"
        "print(json.dumps([n for n in json.load(sys.stdin) if found(n)]))\n"
    )
    done = subprocess.run(
        [str(python), "-c", probe],
        input=json.dumps(sorted(names)),
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(done.stdout))


def coverage(folder: Path, python: Path) -> None:
    modules, namespaces = _bundled(folder)
    baseline = _imported(
        subprocess.run(
            [str(python), "-X", "importtime", "-c", "pass"],
            capture_output=True,
            text=True,
            check=True,
        ).stderr
    )
    imported_by: dict[str, set[str]] = {}
    with FakeProvider() as fake, tempfile.TemporaryDirectory() as tmp:
        runs = Runs(python, fake, Path(tmp))
        scenarios: dict[str, Callable[[], set[str]]] = {
            "--version": lambda: runs.run("--version"),
            "--help": lambda: runs.run("--help"),
            "providers": lambda: runs.run("providers"),
            "models": lambda: runs.run("models"),
            "doctor": lambda: runs.run("doctor", "--json"),
            "sessions": lambda: runs.run("sessions", "list"),
            "permissions": lambda: runs.run("permissions", "list"),
            "-p (one turn)": runs.headless,
            "-p (every built-in tool)": runs.every_tool,
            "acp (initialize, session/new)": runs.acp,
            "mcp tools, -p calling an MCP tool": runs.mcp,
            "the interactive UI (one turn)": runs.tui,
        }
        print(f"\nimport coverage: {python}, -X importtime; missing = not in {folder}")
        for name, scenario in scenarios.items():
            found = scenario()
            imported_by[name] = found
            absent = {m for m in found if not _available(m, modules, namespaces)}
            startup = sorted(absent & baseline)
            failed = sorted(absent - baseline - _installed(python, absent - baseline))
            missing = sorted(absent - baseline - set(failed))
            print(f"  {name:36} {len(found):4d} modules, missing {len(missing)}", end="")
            print(f": {', '.join(missing)}" if missing else "")
            if failed:
                print(f"  {'':36} optional, absent from the install too: {', '.join(failed)}")
            if startup:
                print(f"  {'':36} the install's own start-up: {', '.join(startup)}")
    used = set().union(*imported_by.values())
    unused = sorted(m for m in modules if m not in used)
    top: Counter[str] = Counter(m.split(".")[0] for m in unused)
    print(
        f"\nbundled modules no scenario imported: {len(unused)} of {len(modules)}; by top-level "
        "package (each reachable from some import statement analysis followed):"
    )
    print("  " + ", ".join(f"{name} {count}" for name, count in top.most_common(30)))


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--folder", type=Path, default=ROOT / "dist" / "earshot")
    parser.add_argument("--single", type=Path, default=ROOT / "dist" / f"earshot-onefile{EXE}")
    parser.add_argument(
        "--python",
        type=Path,
        default=ROOT
        / "build"
        / "temp.venv"
        / ("Scripts" if os.name == "nt" else "bin")
        / f"python{EXE}",
        help="the install whose runs are checked (default: the build's own venv)",
    )
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--no-imports", action="store_true", help="sizes and parts only")
    args = parser.parse_args(list(argv) if argv is not None else None)
    if not (args.folder / "_internal").is_dir():
        raise SystemExit(f"no folder build at {args.folder} (make one: scripts/build)")
    sizes(args.folder, args.single, args.top)
    if not args.no_imports:
        coverage(args.folder, args.python)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
