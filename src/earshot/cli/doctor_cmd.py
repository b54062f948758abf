"""``earshot doctor``: what this install has and can reach, for a person or (``--json``) a script.

Sections, in order::

    earshot      version, Python, platform, whether this is a frozen binary
    build        python | folder | single file (with where it unpacked: docs/build.md)
    compiled     each mypyc-compiled module: compiled | pure | fallback (a compiled file
                 that failed to load, so the module runs as pure Python; one warning)
    versions     msgspec, httpx, anyio, tree-sitter, tree-sitter-bash
    config       the settings scopes and auth.json: found or not, readable or not
    providers    the providers with a key, and where the key comes from (never the key)
    reachable    whether each of those (and any provider whose base URL variable is set)
                 answers at its base URL: one GET, no key sent (skipped with --offline)
    tools        git, ripgrep, and the shell commands run with (Git Bash on Windows)

Exit status: 0 when nothing is wrong (warnings included), 1 when a problem stops part of
earshot from working (an unreadable settings or auth file, no shell). JSON field names are
part of what scripts rely on: add fields, never rename them.
"""

from __future__ import annotations

import importlib
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

from earshot import __version__
from earshot._compiled import COMPILED, FALLBACKS, is_compiled
from earshot.providers.types import JSONObject, JSONValue

PACKAGES = ("msgspec", "httpx", "anyio", "tree-sitter", "tree-sitter-bash")
_MODULE_OF = {"tree-sitter": "tree_sitter", "tree-sitter-bash": "tree_sitter_bash"}


def _package_version(name: str) -> str:
    """The installed version; frozen binaries may lack the metadata, so ``__version__`` next."""
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        pass
    try:
        module = importlib.import_module(_MODULE_OF.get(name, name))
    except ImportError:
        return "missing"
    found = getattr(module, "__version__", None)
    return found if isinstance(found, str) else "unknown"


def compiled_status() -> list[JSONObject]:
    """One record per compiled module. Importing them here is what triggers a fallback."""
    records: list[JSONObject] = []
    for name in COMPILED:
        record: JSONObject = {"module": name}
        try:
            module = importlib.import_module(name)
        except Exception as exc:  # the pure source is broken too: report it, do not crash
            record |= {"status": "broken", "file": None, "reason": f"{type(exc).__name__}: {exc}"}
            records.append(record)
            continue
        if name in FALLBACKS:
            record |= {"status": "fallback", "reason": FALLBACKS[name]}
        else:
            record["status"] = "compiled" if is_compiled(module) else "pure"
        record["file"] = getattr(module, "__file__", None)
        records.append(record)
    return records


def build_info() -> JSONObject:
    """Which build runs: a Python install, the folder build, or the single file, which runs
    the folder build it unpacked (``.earshot-onefile.json`` beside it) into the cache dir, or
    into a temporary dir when that could not be written."""
    if not getattr(sys, "frozen", False):
        return {"kind": "python", "path": str(Path(__file__).parents[1])}
    here = Path(sys.executable).parent
    try:
        marker = json.loads((here / ".earshot-onefile.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"kind": "folder", "path": str(here)}
    cached = isinstance(marker, dict) and marker.get("cached") is True
    single = os.environ.get("EARSHOT_ONEFILE")
    return {"kind": "single file", "path": single, "unpacked": str(here), "cached": cached}


def _config(cwd: Path) -> tuple[list[JSONValue], JSONObject, list[str]]:
    from earshot._base.jsonfile import JSONFileError, load_json_object
    from earshot.core.config.settings import settings_paths
    from earshot.providers.auth import AuthStore, auth_path

    problems: list[str] = []
    files: list[JSONValue] = []
    for scope, path in settings_paths(cwd):
        record: JSONObject = {"scope": scope, "path": str(path), "found": path.is_file()}
        try:
            load_json_object(path)
        except JSONFileError as exc:
            record["error"] = str(exc)
            problems.append(str(exc))
        files.append(record)
    path = auth_path()
    auth: JSONObject = {"path": str(path), "found": path.is_file(), "providers": []}
    try:
        auth["providers"] = list(AuthStore(path).providers())
    except JSONFileError as exc:
        auth["error"] = str(exc)
        problems.append(str(exc))
    if auth["found"] and os.name == "posix" and path.stat().st_mode & 0o077:
        auth["warning"] = f"{path} is readable by other users: run chmod 600 {path}"
    return files, auth, problems


def _providers(stored: list[str]) -> tuple[list[JSONValue], list[str]]:
    """Providers with a key, and each cloud the user set up (credentials found, placement
    resolved: region, project and location, endpoint), with its problems."""
    from earshot.providers.cloud.status import cloud_status
    from earshot.providers.registry import CLOUD_PROVIDERS, PROVIDERS, key_from_env

    found: list[JSONValue] = []
    problems: list[str] = []
    for spec in PROVIDERS:
        env = key_from_env(spec, os.environ)
        source = f"env {env[0]}" if env is not None else "auth.json" if spec.id in stored else None
        if spec.id in CLOUD_PROVIDERS:
            status = cloud_status(spec.id, os.environ, key_source=source)
            if status.configured:
                record: JSONObject = {
                    "id": spec.id,
                    "key_source": status.source,
                    "placement": {k: v for k, v in status.placement.items()},
                    "usable": status.usable,
                }
                if status.problem:
                    record["problem"] = status.problem
                    problems.append(status.problem)
                found.append(record)
        elif source is not None:
            found.append({"id": spec.id, "key_source": source})
    return found, problems


def _tool_version(path: str) -> str:
    try:
        done = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    first = done.stdout.strip().splitlines()
    return first[0] if first else "unknown"


def _tools() -> tuple[JSONObject, list[str]]:
    from earshot.core.tools._shell import find_bash
    from earshot.core.tools.base import ToolError

    tools: JSONObject = {}
    for name, program in (("git", "git"), ("ripgrep", "rg")):
        path = shutil.which(program)
        tools[name] = (
            {"found": True, "path": path, "version": _tool_version(path)}
            if path
            else {"found": False}
        )
    try:
        shell = find_bash()
    except ToolError as exc:
        tools["bash"] = {"found": False, "error": exc.brief}
        return tools, [str(exc)]
    bash: JSONObject = {"found": True, "path": shell.path}
    if shell.note:
        bash["note"] = shell.note
    tools["bash"] = bash
    return tools, []


def _sandbox(cwd: Path) -> tuple[JSONObject, list[str], list[str]]:
    """The OS sandbox shell commands would run in here: its mode, backend and whether it
    starts; a warning when commands would run unconfined, a problem when refused."""
    from earshot.core.config.settings import SettingsError, load_settings, project_root
    from earshot.core.sandbox import load_sandbox_config, open_sandbox

    try:
        config = load_sandbox_config(load_settings(cwd).files, project_root(cwd))
    except SettingsError as exc:
        return {"mode": "unknown", "error": str(exc)}, [], []
    sandbox = open_sandbox(cwd, config)
    if sandbox.active:
        sandbox.wrap(["true"])  # the first wrap checks that the backend can start
    record: JSONObject = {"mode": config.mode, "network": config.network}
    backend = sandbox.backend
    if backend is not None:
        record |= {"active": True, "backend": backend.kind, "path": backend.path}
        return record, list(config.ignored), []
    record["active"] = False
    if config.mode == "off":
        return record, list(config.ignored), []
    record["note"] = sandbox.notice
    if config.mode == "required":
        return record, list(config.ignored), [sandbox.notice]
    return record, [*config.ignored, sandbox.notice], []


def _reachable(cwd: Path, providers: list[JSONValue]) -> tuple[list[JSONValue], list[str]]:
    """Each provider with a key (and each whose base URL variable is set; a cloud only
    then) that has a base URL: whether it answers there. An unreachable one is a warning
    (the network may be down for a while), naming the URL."""
    import anyio

    from earshot.core.config.settings import SettingsError, load_settings
    from earshot.providers.reach import Reached, reach
    from earshot.providers.registry import CLOUD_PROVIDERS, PROVIDERS, base_url_for

    try:
        settings = load_settings(cwd)
    except SettingsError:
        return [], []  # the config section reports the unreadable file
    keyed = {str(r["id"]) for r in providers if isinstance(r, dict)}
    targets: list[tuple[str, str]] = []
    for spec in PROVIDERS:
        named = any(os.environ.get(var) for var in spec.base_url_vars)
        # a cloud's endpoint depends on its region or resource: only the one named is tried
        if not named and (spec.id not in keyed or spec.id in CLOUD_PROVIDERS):
            continue
        url = base_url_for(spec, os.environ, settings.provider(spec.id))
        if url:
            targets.append((spec.id, url))

    async def check_all() -> list[Reached]:
        found: list[Reached | None] = [None] * len(targets)

        async def one(index: int, provider: str, url: str) -> None:
            found[index] = await reach(provider, url)

        async with anyio.create_task_group() as tg:
            for index, (provider, url) in enumerate(targets):
                tg.start_soon(one, index, provider, url)
        return [r for r in found if r is not None]

    results = anyio.run(check_all) if targets else []
    records: list[JSONValue] = [
        {"id": r.provider, "url": r.url, "ok": r.ok, "detail": r.detail} for r in results
    ]
    warnings = [f"{r.provider}: cannot reach {r.url}: {r.detail}" for r in results if not r.ok]
    return records, warnings


def report(cwd: Path, *, offline: bool = False) -> tuple[JSONObject, list[str], list[str]]:
    """The whole report, its warnings and its problems. ``offline``: no network checks."""
    compiled = compiled_status()
    warnings: list[str] = []
    fell_back = [str(r["module"]) for r in compiled if r["status"] == "fallback"]
    if fell_back:
        warnings.append(
            f"compiled module{'s' if len(fell_back) > 1 else ''} failed to load, running as "
            f"pure Python (slower, same behaviour): {', '.join(fell_back)}; reinstall earshot"
        )
    files, auth, problems = _config(cwd)
    if "warning" in auth:
        warnings.append(str(auth["warning"]))
    stored = auth.get("providers")
    tools, tool_problems = _tools()
    problems += tool_problems
    providers, cloud_problems = _providers(
        [str(p) for p in stored] if isinstance(stored, list) else []
    )
    problems += cloud_problems
    reachable, reach_warnings = ([], []) if offline else _reachable(cwd, providers)
    warnings += reach_warnings
    sandbox, sandbox_warnings, sandbox_problems = _sandbox(cwd)
    warnings += sandbox_warnings
    problems += sandbox_problems
    problems += [
        f"{r['module']} cannot be imported: {r['reason']}"
        for r in compiled
        if r["status"] == "broken"
    ]
    data: JSONObject = {
        "earshot": __version__,
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
            "executable": sys.executable,
        },
        "platform": sys.platform,
        "frozen": bool(getattr(sys, "frozen", False)),
        "build": build_info(),
        "compiled": list[JSONValue](compiled),
        "versions": {name: _package_version(name) for name in PACKAGES},
        "config": files,
        "auth": auth,
        "providers": providers,
        "reachable": reachable,
        "tools": tools,
        "sandbox": sandbox,
        "warnings": list[JSONValue](warnings),
        "problems": list[JSONValue](problems),
    }
    return data, warnings, problems


def _build_line(build: JSONValue) -> str:
    assert isinstance(build, dict)
    line = f"build: {build['kind']} {build['path']}"
    if "unpacked" in build:
        where = "unpacked at" if build["cached"] else "temporary unpack (cache dir unwritable) at"
        line += f", {where} {build['unpacked']}"
    return line


def _text(data: JSONObject) -> str:
    python = data["python"]
    assert isinstance(python, dict)
    lines = [
        f"earshot {data['earshot']} (Python {python['version']} {python['implementation']}, "
        f"{data['platform']}{', frozen binary' if data['frozen'] else ''})",
        _build_line(data["build"]),
        "",
        "compiled modules",
    ]
    for record in data["compiled"] if isinstance(data["compiled"], list) else []:
        assert isinstance(record, dict)
        lines.append(f"  {record['module']:<34} {record['status']}")
    lines += ["", "versions"]
    versions = data["versions"]
    assert isinstance(versions, dict)
    lines += [f"  {name:<34} {version}" for name, version in versions.items()]
    lines += ["", "config files"]
    for record in data["config"] if isinstance(data["config"], list) else []:
        assert isinstance(record, dict)
        state = "unreadable" if "error" in record else "found" if record["found"] else "none"
        lines.append(f"  {record['scope']:<8} {state:<10} {record['path']}")
    auth = data["auth"]
    assert isinstance(auth, dict)
    state = "unreadable" if "error" in auth else "found" if auth["found"] else "none"
    lines.append(f"  {'auth':<8} {state:<10} {auth['path']}")
    lines += ["", "providers with a key"]
    providers = data["providers"]
    assert isinstance(providers, list)
    for record in providers:
        assert isinstance(record, dict)
        line = f"  {record['id']:<34} {record['key_source']}"
        placement = record.get("placement")
        if isinstance(placement, dict):
            line += "  (" + ", ".join(f"{k} {v}" for k, v in placement.items()) + ")"
        lines.append(line)
    if not providers:
        lines.append("  (none: set a provider's API key variable, or run `earshot auth login`)")
    reachable = data["reachable"]
    assert isinstance(reachable, list)
    if reachable:
        lines += ["", "reachable"]
    for record in reachable:
        assert isinstance(record, dict)
        state = "yes" if record["ok"] else "NO"
        lines.append(f"  {record['id']:<18} {state:<3} {record['url']}  ({record['detail']})")
    lines += ["", "tools"]
    tools = data["tools"]
    assert isinstance(tools, dict)
    for name, record in tools.items():
        assert isinstance(record, dict)
        if record["found"]:
            detail = str(record["path"])
            if record.get("version"):
                detail += f"  ({record['version']})"
        else:
            detail = f"not found{': ' + str(record['error']) if 'error' in record else ''}"
        lines.append(f"  {name:<34} {detail}")
    sandbox = data["sandbox"]
    assert isinstance(sandbox, dict)
    if sandbox.get("active"):
        network = "network on" if sandbox.get("network") else "no network"
        state = f"{sandbox['backend']} {sandbox['path']} (mode {sandbox['mode']}, {network})"
    elif sandbox.get("mode") == "off":
        state = "off (sandbox.mode or --sandbox): commands run unconfined"
    else:
        state = str(sandbox.get("note") or sandbox.get("error") or "unavailable")
    lines += ["", "sandbox", f"  {state}"]
    return "\n".join(lines) + "\n"


def main(*, as_json: bool, offline: bool = False) -> int:
    data, warnings, problems = report(Path.cwd(), offline=offline)
    if as_json:
        import msgspec

        sys.stdout.write(msgspec.json.format(msgspec.json.encode(data), indent=2).decode() + "\n")
    else:
        sys.stdout.write(_text(data))
        for warning in warnings:
            sys.stderr.write(f"earshot: warning: {warning}\n")
        for problem in problems:
            sys.stderr.write(f"earshot: problem: {problem}\n")
    return 1 if problems else 0


__all__ = ["PACKAGES", "compiled_status", "main", "report"]
