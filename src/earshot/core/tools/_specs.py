# ruff: noqa: E501 (generated: the descriptions are long lines)
"""The built-in tools' specs, generated from their definitions: do not edit by hand.

``scripts/gen_tool_specs.py`` writes it; ``tests/tools/test_registry.py`` checks that it
equals what every tool's module defines. ``registry.py`` offers the tools from it.
"""

from earshot.providers.types import ToolSpec

SPECS: dict[str, tuple[bool, ToolSpec]] = {
    "read": (
        True,
        ToolSpec(
            name="read",
            description="Read a file; output is `cat -n` style (line number, tab, line). Reads 2000 lines from `offset` (1-based); page with `offset` and `limit`. Long lines and long output are cut, with a marker saying where to continue. Images are shown to models that can see them. Use `ls` for directories. Read a file before changing it.",
            input_schema={
                "type": "object",
                "properties": {
                    "path": {"description": "File to read", "type": "string"},
                    "offset": {
                        "description": "First line, 1-based",
                        "type": "integer",
                        "minimum": 1,
                        "default": 1,
                    },
                    "limit": {
                        "description": "Lines to read",
                        "type": "integer",
                        "minimum": 1,
                        "default": 2000,
                    },
                },
                "required": ["path"],
            },
        ),
    ),
    "write": (
        False,
        ToolSpec(
            name="write",
            description="Create a file (and missing parents) or replace a whole file; replacing needs a `read` of it in this session, unchanged since. Encoding, BOM and CRLF are kept. Prefer `edit` or `multi_edit` to change part of a file.",
            input_schema={
                "type": "object",
                "properties": {
                    "path": {"description": "File to write", "type": "string"},
                    "content": {"description": "Whole new content", "type": "string"},
                },
                "required": ["path", "content"],
            },
        ),
    ),
    "edit": (
        False,
        ToolSpec(
            name="edit",
            description="Replace exact text in a file. `old_string` must match exactly (indentation included, without `read`'s line-number prefix) and once, unless `replace_all`; if it matches more often, add surrounding lines. The file must have been read in this session and be unchanged since. Several changes to one file: `multi_edit`; a new file: `write`.",
            input_schema={
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "old_string": {"description": "Exact text to find", "type": "string"},
                    "new_string": {"description": "Its replacement (different)", "type": "string"},
                    "replace_all": {"description": "Replace every occurrence", "type": "boolean"},
                },
                "required": ["path", "old_string", "new_string"],
            },
        ),
    ),
    "multi_edit": (
        False,
        ToolSpec(
            name="multi_edit",
            description="Several exact find/replace edits to one file, applied in order (each to the text the ones before left), all or none. Each `old_string` must match once unless `replace_all`. The file must have been read in this session and be unchanged since.",
            input_schema={
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "edits": {
                        "description": "In order, all or none",
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "old_string": {
                                    "description": "Exact text to find",
                                    "type": "string",
                                },
                                "new_string": {
                                    "description": "Its replacement (different)",
                                    "type": "string",
                                },
                                "replace_all": {
                                    "description": "Replace every occurrence",
                                    "type": "boolean",
                                },
                            },
                            "required": ["old_string", "new_string"],
                        },
                        "minItems": 1,
                    },
                },
                "required": ["path", "edits"],
            },
        ),
    ),
    "ls": (
        True,
        ToolSpec(
            name="ls",
            description="List one directory (not recursive): directories first, ending in `/`, then files; at most 1000. To find files across a tree use `glob`.",
            input_schema={
                "type": "object",
                "properties": {
                    "path": {"type": "string", "default": "."},
                    "ignore": {
                        "description": "Entry-name globs to leave out: `*.pyc`, `node_modules/`",
                        "type": "array",
                        "items": {"type": "string"},
                    },
                },
            },
        ),
    ),
    "glob": (
        True,
        ToolSpec(
            name="glob",
            description="Find files by path pattern, newest first: `**/*.py`, `src/**/*.{ts,tsx}`. `*` stays within one directory (`*.py` only directly in `path`), `**` spans any depth. Leaves out .gitignored files and `.git` unless the pattern names an ignored directory. At most 200 paths.",
            input_schema={
                "type": "object",
                "properties": {
                    "pattern": {"description": "Glob over paths under `path`", "type": "string"},
                    "path": {"type": "string", "default": "."},
                },
                "required": ["pattern"],
            },
        ),
    ),
    "grep": (
        True,
        ToolSpec(
            name="grep",
            description="Search file contents by regular expression (ripgrep syntax; keep to what Python's `re` also accepts). Respects .gitignore; skips binary files.\n- `output_mode`: `files_with_matches` (default; newest first), `content` (`N:line`, context `N-line`), `count`.\n- Filter with `glob` (`*.{ts,tsx}`) or `type` (py, ts, rust, go, ...).\n- Lines are searched one by one: set `multiline` for patterns spanning lines. Escape regex characters for literal text: `interface\\{\\}`.\n- Shows 250 entries; page with `head_limit` and `offset`.",
            input_schema={
                "type": "object",
                "properties": {
                    "pattern": {"type": "string"},
                    "path": {"type": "string", "default": "."},
                    "glob": {
                        "description": "Only files matching: a name glob, or a path glob under `path`; `!` excludes",
                        "type": "string",
                    },
                    "type": {"description": "Only files of this type", "type": "string"},
                    "output_mode": {
                        "enum": ["content", "count", "files_with_matches"],
                        "default": "files_with_matches",
                    },
                    "-A": {
                        "description": "Lines after each match",
                        "type": "integer",
                        "minimum": 0,
                    },
                    "-B": {
                        "description": "Lines before each match",
                        "type": "integer",
                        "minimum": 0,
                    },
                    "-C": {
                        "description": "Lines around each match",
                        "type": "integer",
                        "minimum": 0,
                    },
                    "case_insensitive": {"type": "boolean"},
                    "multiline": {
                        "description": "Match across lines; `.` matches newlines",
                        "type": "boolean",
                    },
                    "head_limit": {
                        "description": "Entries to show",
                        "type": "integer",
                        "minimum": 1,
                    },
                    "offset": {
                        "description": "Entries to skip",
                        "type": "integer",
                        "minimum": 0,
                        "default": 0,
                    },
                },
                "required": ["pattern"],
            },
        ),
    ),
    "bash": (
        False,
        ToolSpec(
            name="bash",
            description="Run a command with `bash -c` in the working directory; returns stdout and stderr merged, then `exit code: N` (non-zero is reported, not a failure: read it).\n- Each call is a fresh shell: `cd` and exports do not carry over; use `cd dir && command`.\n- stdin is closed: pass `-y`/`--yes`-style flags so nothing waits for input. EARSHOT=1 is set.\n- `timeout` in ms, default 120000; on timeout all it started is killed.\n- Long output keeps its start and end: filter it (`| tail -n 50`) or redirect it to a file.\n- Servers, watchers, long builds: `run_in_background: true` (not `&`) returns a shell id; read it with bash_output, stop it with kill_shell.",
            input_schema={
                "type": "object",
                "properties": {
                    "command": {"type": "string"},
                    "timeout": {
                        "description": "Milliseconds, max 600000",
                        "type": "integer",
                        "minimum": 1,
                    },
                    "description": {"description": "5-10 words for the user", "type": "string"},
                    "run_in_background": {
                        "description": "Return a shell id at once and keep it running",
                        "type": "boolean",
                    },
                },
                "required": ["command"],
            },
        ),
    ),
    "bash_output": (
        True,
        ToolSpec(
            name="bash_output",
            description="New output of a background shell since the last call (stdout and stderr merged), then its status: `running`, `exited with code N` or `killed`. `filter` keeps only matching new lines and discards the rest. Unread output beyond 1 MiB loses its oldest part: check long-running shells regularly.",
            input_schema={
                "type": "object",
                "properties": {
                    "shell_id": {"description": "The id bash returned (bash_1)", "type": "string"},
                    "filter": {
                        "description": "Python regular expression: only matching new lines",
                        "type": "string",
                    },
                },
                "required": ["shell_id"],
            },
        ),
    ),
    "kill_shell": (
        False,
        ToolSpec(
            name="kill_shell",
            description="Stop a background shell and all it started; its unread output stays readable.",
            input_schema={
                "type": "object",
                "properties": {
                    "shell_id": {"description": "The id bash returned (bash_1)", "type": "string"}
                },
                "required": ["shell_id"],
            },
        ),
    ),
    "web_fetch": (
        False,
        ToolSpec(
            name="web_fetch",
            description="Fetch an http(s) URL as text: HTML as readable text with links as `text (url)`; text and JSON as sent; other types only described. A redirect to another host is named, not followed: fetch that URL if you want it. Read-only, no JavaScript: script-built pages may come back nearly empty. For local files use `read`.",
            input_schema={
                "type": "object",
                "properties": {
                    "url": {"description": "An http:// or https:// URL", "type": "string"},
                    "prompt": {
                        "description": "What you look for; shown above the page",
                        "type": "string",
                    },
                    "max_chars": {
                        "description": "Most characters to return",
                        "type": "integer",
                        "minimum": 1000,
                        "maximum": 200000,
                        "default": 50000,
                    },
                },
                "required": ["url"],
            },
        ),
    ),
    "todo_write": (
        True,
        ToolSpec(
            name="todo_write",
            description="A todo list for the current task, shown to the user. Each call replaces the whole list. Keep exactly one item `in_progress`; mark each `completed` as soon as it is done, not in batches. Use it for three or more steps or several tasks, not for one quick change. An empty list clears it.",
            input_schema={
                "type": "object",
                "properties": {
                    "todos": {
                        "description": "The whole new list, in order",
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "content": {
                                    "description": "What to do, imperative",
                                    "type": "string",
                                },
                                "status": {
                                    "description": "One item in_progress at a time",
                                    "enum": ["completed", "in_progress", "pending"],
                                },
                                "id": {"description": "Stable id", "type": "string"},
                            },
                            "required": ["content", "status"],
                        },
                    }
                },
                "required": ["todos"],
            },
        ),
    ),
    "ask_user": (
        True,
        ToolSpec(
            name="ask_user",
            description="Ask the user and wait, only for a decision or fact only they have (a design choice, a credential's name, a risky step), not for what code or commands can tell you. Offer `choices` when the likely answers are known. One clear question at a time. With no user (headless) it fails: proceed on your judgment, state assumptions.",
            input_schema={
                "type": "object",
                "properties": {
                    "question": {"type": "string"},
                    "choices": {
                        "description": "Answers to offer",
                        "type": "array",
                        "items": {"type": "string"},
                    },
                    "allow_free_text": {
                        "description": "Let the user answer in their own words",
                        "type": "boolean",
                        "default": True,
                    },
                },
                "required": ["question"],
            },
        ),
    ),
    "declare_scope": (
        True,
        ToolSpec(
            name="declare_scope",
            description="Declare what you are about to do before changing files: the goal, the path globs you mean to change (relative to the working directory; `src/**` is everything under src), and the steps of your plan. After this, any change outside those paths needs the user's approval, and a later declaration with more paths asks the user for the difference. Declare once, early.",
            input_schema={
                "type": "object",
                "properties": {
                    "goal": {"type": "string"},
                    "paths": {"type": "array", "items": {"type": "string"}},
                    "steps": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["goal", "paths"],
            },
        ),
    ),
}

__all__ = ["SPECS"]
