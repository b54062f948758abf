#!/usr/bin/env python3
"""Time ``decide()`` for a 30-rule set and a 5-command bash line; print medians in µs.

Usage::

    .venv/bin/python scripts/bench/decide.py [--runs 15] [--loops 2000] [--match-module PATH]

Prints the median time of one ``decide()`` call for the 5-command line, of parsing that
line alone (tree-sitter plus the walk), of matching its 5 commands against the deny, ask and
allow lists alone (what ``match.py`` does), of a 1-command line and of one edit request.
``--match-module`` loads ``earshot.core.permissions.match`` from a file instead (a
mypyc-compiled build of the same source), so both builds can be timed with one script.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

LINE = "git status && npm run build 2>&1 | grep error; ls -la src && echo done"

RULES = {
    "allow": [
        "Bash(git status)",
        "Bash(git log *)",
        "Bash(git diff *)",
        "Bash(git show *)",
        "Bash(npm run *)",
        "Bash(npm test *)",
        "Bash(pytest *)",
        "Bash(ruff *)",
        "Bash(ls *)",
        "Bash(cat *)",
        "Bash(grep *)",
        "Bash(echo *)",
        "Bash(make test)",
        "Edit(src/**)",
        "Edit(tests/**)",
        "WebFetch(domain:docs.python.org)",
        "WebFetch(domain:*.github.com)",
        "mcp__docs__*",
    ],
    "ask": [
        "Bash(git push *)",
        "Bash(npm publish *)",
        "Bash(docker *)",
        "Edit(*.lock)",
        "mcp__db__write",
    ],
    "deny": [
        "Bash(rm -rf *)",
        "Bash(curl *)",
        "Bash(wget *)",
        "Bash(sudo *)",
        "Read(./.env)",
        "Read(~/.ssh/**)",
        "WebFetch(domain:evil.test)",
    ],
}


def _load_match(module: Path | None) -> str:
    if module is None:
        return "earshot.core.permissions.match (source)"
    name = "earshot.core.permissions.match"
    spec = importlib.util.spec_from_file_location(name, module)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load a module from {module}")
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[name] = loaded  # before the package imports it
    spec.loader.exec_module(loaded)
    return str(module)


def _median_us(call: Callable[[], object], runs: int, loops: int) -> float:
    for _ in range(loops // 10 or 1):  # warm caches
        call()
    samples: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(loops):
            call()
        samples.append((time.perf_counter() - start) / loops * 1e6)
    return statistics.median(samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--loops", type=int, default=2000)
    parser.add_argument("--match-module", type=Path, default=None)
    args = parser.parse_args(argv)
    origin = _load_match(args.match_module)

    from earshot.core.permissions import RuleSet, decide
    from earshot.core.permissions.match import Action, Rule, first_command_match
    from earshot.core.permissions.rules import parse_rule
    from earshot.core.permissions.shell import parse_line
    from earshot.core.tools.base import PermissionRequest

    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        actions: tuple[Action, ...] = ("allow", "ask", "deny")
        rules: list[Rule] = [
            parse_rule(text, action, scope="project", source="bench", base=cwd)
            for action in actions
            for text in RULES[action]
        ]
        ruleset = RuleSet(rules=tuple(rules))
        line = PermissionRequest(tool="bash", kind="execute", command=LINE)
        single = PermissionRequest(tool="bash", kind="execute", command="git log -5")
        edit = PermissionRequest(tool="edit", kind="edit", paths=(cwd / "src/app/main.py",))
        decision = decide(ruleset, "ask", cwd, line, read_only=False)
        parts = [p.command for p in decision.commands]
        assert len(rules) == 30 and len(parts) == 5, (len(rules), parts)

        parsed = parse_line(LINE).commands
        lists = [ruleset.select(action, "bash") for action in ("deny", "ask", "allow")]

        def match_only() -> None:
            for command in parsed:
                texts = (command.text, *command.also)
                for rules_of_list in lists:
                    first_command_match(rules_of_list, texts, True)

        timings = {
            "decide, 5-command line": lambda: decide(ruleset, "ask", cwd, line, read_only=False),
            "parse_line alone": lambda: parse_line(LINE),
            "rule matching alone": match_only,
            "decide, 1-command line": lambda: decide(ruleset, "ask", cwd, single, read_only=False),
            "decide, edit in src/": lambda: decide(ruleset, "ask", cwd, edit, read_only=False),
        }
        print(f"python {sys.version.split()[0]}, matcher: {origin}")
        print(f"30 rules; line: {LINE!r} -> {decision.outcome} ({', '.join(parts)})")
        for name, call in timings.items():
            median = _median_us(call, args.runs, args.loops)
            print(f"{name:<24} median {median:8.1f} µs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
