"""``earshot trust [--yes] [--revoke]``: show what this project's checked-in files would
run (MCP servers and hooks) and record the user's yes with a hash of
exactly that, in the user config. A changed definition needs trust again.

Exit status: 0 trusted (or revoked, or nothing to trust); 1 the user said no, or no
terminal to ask on and no ``--yes``; 2 a malformed file.
"""

from __future__ import annotations

import sys
from pathlib import Path

from earshot.cli._errors import UsageError


def _describe(root: Path) -> list[str]:
    from earshot.mcp.config import load_servers

    rows = []
    for server in load_servers(root):
        if server.needs_trust:
            rows.append(f"  MCP server {server.name} ({server.source.name}): {server.summary()}")
            for key in sorted(server.env):
                rows.append(f"      env {key}={server.env[key]}")
            for key in sorted(server.headers):
                rows.append(f"      header {key}: {server.headers[key]}")
    return rows + _hook_rows(root)


def _hook_rows(root: Path) -> list[str]:
    """Each checked-in hook command, as it would run."""
    from earshot.core.extend import trust

    rows: list[str] = []
    defined = trust.definitions(root).get("hooks")
    for where, groups in defined.items() if isinstance(defined, dict) else ():
        for group in groups if isinstance(groups, list) else ():
            if not isinstance(group, dict):
                continue
            matcher = group.get("matcher") or "*"
            entries = group.get("hooks")
            for hook in entries if isinstance(entries, list) else []:
                command = hook.get("command") if isinstance(hook, dict) else None
                if isinstance(command, str):
                    rows.append(f"  hook {where} (matcher {matcher}): {command}")
    return rows


def ask_once(cwd: Path) -> None:
    """Before the TUI's first start in a project whose checked-in files would run
    something not yet trusted: show exactly what, and ask once (a no is recorded too)."""
    from earshot._base.dirs import project_root
    from earshot.core.extend.trust import project_files

    root = project_root(cwd)
    if not any(path.is_file() for path in project_files(root)):
        return  # the usual case: nothing to read, and no JSON library to load for it
    from earshot.mcp import trust

    state = trust.state(root)
    if not state.defined or state.trusted or state.declined:
        return
    print(f"{root} defines what earshot would run on your behalf:")
    print("\n".join(_describe(root)))
    if state.changed:
        print("(these definitions changed since you last trusted this project)")
    try:
        answer = input("Trust this project and let earshot run these? [y/N] ")
    except EOFError:
        answer = ""
    if answer.strip().lower() in ("y", "yes"):
        trust.grant(root)
        print("trusted; `earshot trust --revoke` takes it back")
    else:
        trust.decline(root)
        print("not trusted; its servers will not start (`earshot trust` to change that)")


def main(args: list[str]) -> int:
    from earshot.core.config.settings import project_root
    from earshot.mcp import trust

    unknown = [a for a in args if a not in ("--yes", "-y", "--revoke")]
    if unknown:
        raise UsageError(f"earshot trust: unknown argument {unknown[0]!r} (--yes, --revoke)")
    root = project_root(Path.cwd().resolve())
    if "--revoke" in args:
        had = trust.revoke(root)
        print(f"{'revoked trust in' if had else 'nothing was trusted in'} {root}")
        return 0
    state = trust.state(root)
    if not state.defined:
        print(
            f"{root} defines nothing that needs trust (no MCP servers in .mcp.json or "
            ".earshot/settings.json, no hooks in .earshot/settings.json or "
            ".claude/settings.json)"
        )
        return 0
    if state.trusted:
        print(f"{root} is trusted; its definitions have not changed since")
        return 0
    print(f"{root} defines what earshot would run on your behalf:")
    print("\n".join(_describe(root)))
    if state.changed:
        print("(these definitions changed since you last trusted this project)")
    if "--yes" not in args and "-y" not in args:
        if not sys.stdin.isatty():
            sys.stderr.write("earshot: no terminal to ask on; run `earshot trust --yes`\n")
            return 1
        answer = input("Trust this project and let earshot run these? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("not trusted; its servers will not start")
            return 1
    trust.grant(root)
    print(f"trusted {root} (recorded in {trust.trust_file()})")
    return 0


__all__ = ["main"]
