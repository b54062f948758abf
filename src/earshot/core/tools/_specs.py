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
            description="Read a file as `cat -n` output (line number, tab, line): `limit` lines from line `offset` (1-based). Long lines and long output are cut, with a marker saying where to continue. Images are shown to models that can see them. Directories: `ls`.",
            input_schema={
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "offset": {"type": "integer"},
                    "limit": {"type": "integer", "default": 2000},
                },
                "required": ["path"],
            },
        ),
    ),
    "write": (
        False,
        ToolSpec(
            name="write",
            description="Create a file (and missing parents) or replace a whole one, which must have been `read` in this session, unchanged since. Keeps encoding, BOM and CRLF. To change part of a file use `edit` or `multi_edit`.",
            input_schema={
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        ),
    ),
    "edit": (
        False,
        ToolSpec(
            name="edit",
            description="Replace exact text in a file (`read` in this session, unchanged since). `old_string` must match exactly (indentation included, without `read`'s line-number prefix) and once unless `replace_all`: if it matches more often, add surrounding lines. `new_string` must differ. Several changes to one file: `multi_edit`.",
            input_schema={
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "old_string": {"type": "string"},
                    "new_string": {"type": "string"},
                    "replace_all": {"type": "boolean"},
                },
                "required": ["path", "old_string", "new_string"],
            },
        ),
    ),
    "multi_edit": (
        False,
        ToolSpec(
            name="multi_edit",
            description="Several `edit`s of one file (`read` in this session, unchanged since), each applied to the text the ones before left; all or none.",
            input_schema={
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "edits": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "old_string": {"type": "string"},
                                "new_string": {"type": "string"},
                                "replace_all": {"type": "boolean"},
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
            description="List one directory, not recursive: directories first (ending in `/`), then files; at most 1000. Across a tree: `glob`.",
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
            description="Find files under `path` by pattern, newest first: `**/*.py`, `src/**/*.{ts,tsx}`; `*` stays in one directory, `**` spans any depth. Leaves out .gitignored files and `.git` unless the pattern names an ignored directory. At most 200 paths.",
            input_schema={
                "type": "object",
                "properties": {
                    "pattern": {"type": "string"},
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
            description="Search file contents by regular expression (ripgrep syntax; keep to what Python's `re` also accepts). Respects .gitignore; skips binary files.\n- `output_mode`: `files_with_matches` (newest first), `count`, or `content` (`N:line`; `-A`/`-B`/`-C` add context lines after/before/around, as `N-line`).\n- Filter with `glob` (a name glob `*.{ts,tsx}` or a path glob under `path`; `!` excludes) or `type` (py, ts, rust, go, ...).\n- Lines are searched one by one: set `multiline` for patterns spanning lines (`.` then matches newlines). Escape regex characters for literal text: `interface\\{\\}`.\n- Shows 250 entries; page with `head_limit` and `offset`.",
            input_schema={
                "type": "object",
                "properties": {
                    "pattern": {"type": "string"},
                    "path": {"type": "string", "default": "."},
                    "glob": {"type": "string"},
                    "type": {"type": "string"},
                    "output_mode": {
                        "enum": ["content", "count", "files_with_matches"],
                        "default": "files_with_matches",
                    },
                    "-A": {"type": "integer"},
                    "-B": {"type": "integer"},
                    "-C": {"type": "integer"},
                    "case_insensitive": {"type": "boolean"},
                    "multiline": {"type": "boolean"},
                    "head_limit": {"type": "integer"},
                    "offset": {"type": "integer"},
                },
                "required": ["pattern"],
            },
        ),
    ),
    "bash": (
        False,
        ToolSpec(
            name="bash",
            description="Run a command with `bash -c` in the working directory; returns stdout and stderr merged, then `exit code: N` (non-zero is reported, not a failure: read it).\n- Each call is a fresh shell: `cd` and exports do not carry over (`cd dir && command`).\n- stdin is closed: pass `-y`/`--yes`-style flags so nothing waits for input. EARSHOT=1 is set.\n- `timeout` in ms (default 120000, max 600000): on timeout all it started is killed.\n- Long output keeps its start and end: filter it (`| tail -n 50`) or redirect it to a file.\n- Servers, watchers, long builds: `run_in_background` (not `&`) returns a shell id for bash_output and kill_shell.",
            input_schema={
                "type": "object",
                "properties": {
                    "command": {"type": "string"},
                    "timeout": {"type": "integer"},
                    "description": {"description": "5-10 words for the user", "type": "string"},
                    "run_in_background": {"type": "boolean"},
                },
                "required": ["command"],
            },
        ),
    ),
    "bash_output": (
        True,
        ToolSpec(
            name="bash_output",
            description="A background shell's new output since the last call (stdout and stderr merged), then its status: `running`, `exited with code N` or `killed`. Unread output beyond 1 MiB loses its oldest part: check long-running shells regularly.",
            input_schema={
                "type": "object",
                "properties": {
                    "shell_id": {"description": "The id bash returned (bash_1)", "type": "string"},
                    "filter": {
                        "description": "Python regex: keep only matching new lines, drop the rest",
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
                "properties": {"shell_id": {"type": "string"}},
                "required": ["shell_id"],
            },
        ),
    ),
    "web_fetch": (
        False,
        ToolSpec(
            name="web_fetch",
            description="Fetch an http(s) URL as text: HTML made readable (links as `text (url)`), text and JSON as sent, other types only described. A redirect to another host is named, not followed. No JavaScript: script-built pages may come back nearly empty.",
            input_schema={
                "type": "object",
                "properties": {
                    "url": {"type": "string"},
                    "prompt": {
                        "description": "What you look for; shown above the page",
                        "type": "string",
                    },
                    "max_chars": {
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
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "content": {
                                    "description": "What to do, imperative",
                                    "type": "string",
                                },
                                "status": {"enum": ["completed", "in_progress", "pending"]},
                                "id": {"type": "string"},
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
            description="Ask the user and wait, only for a decision or fact only they have (a design choice, a credential's name, a risky step), never for what code or commands can tell you. One clear question; offer `choices` when the likely answers are known. Headless it fails: proceed on your judgment, state assumptions.",
            input_schema={
                "type": "object",
                "properties": {
                    "question": {"type": "string"},
                    "choices": {"type": "array", "items": {"type": "string"}},
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
            description="Declare once, before changing files: the goal, the path globs you will change (relative to the working directory; `src/**` is all under src) and your plan's steps. Then a change outside those paths needs the user's approval, and so do the paths a later declaration adds.",
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
