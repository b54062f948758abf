"""The command table: one line of help per command, shared by the cyclopts app and the
top-level ``--help`` fast path (which must not import cyclopts' help renderer, rich)."""

from __future__ import annotations

from earshot.cli._flags import flags_help

SUMMARY = "earshot: a provider-agnostic terminal coding agent."

COMMANDS: dict[str, str] = {
    "providers": "List the providers earshot can call, their wire and whether a key is set.",
    "models": "List models from the catalog: context, output limit, prices, capabilities.",
    "auth": "Store, remove or show API keys (login, logout, status).",
    "permissions": "Explain a permission decision (check) or list the effective rules (list).",
    "sessions": "List, show, export or import sessions.",
    "undo": "Restore the working tree to before the last batch of a session's edits.",
    "mcp": "MCP servers: list, add, remove, tools (earshot mcp --help).",
    "trust": "Show what this project's checked-in files would run and trust it (--yes, --revoke).",
    "acp": "Serve the Agent Client Protocol on stdio, for editors (Zed, JetBrains, Neovim).",
    "doctor": "Check the install: compiled modules, versions, config, keys, reachability, tools.",
}

SESSIONS_COMMANDS: dict[str, str] = {
    "list": "List the sessions of this directory (--all: everywhere).",
    "show": "Print a session's conversation.",
    "export": "Write a session as markdown or jsonl to stdout.",
    "import": "Import a Claude Code, pi or earshot session file as a new session.",
}

PERMISSIONS_COMMANDS: dict[str, str] = {
    "check": "Evaluate one request, e.g. 'Bash(git log; rm -rf x)', with this directory's rules.",
    "list": "Print the effective rules with the files they come from.",
}


AUTH_COMMANDS: dict[str, str] = {
    "login": "Store an API key for a provider (prompted without echo, or read from stdin).",
    "logout": "Remove the stored API key of a provider.",
    "status": "Show, per provider, where its key comes from (never the key itself).",
}


def top_level_help() -> str:
    width = max(len(name) for name in COMMANDS) + 2
    lines = [
        "Usage:",
        '  earshot [OPTIONS] ["PROMPT"]      the interactive UI (PROMPT: the first message)',
        '  earshot -p "PROMPT" [OPTIONS]     one turn headless; the answer on stdout',
        '  CMD | earshot -p ["PROMPT"]       piped stdin is the prompt, or context after it',
        "  earshot COMMAND [ARGS]            a command below",
        "",
        SUMMARY,
        "",
        "Commands:",
        *(f"  {name.ljust(width)}{text}" for name, text in COMMANDS.items()),
        "",
        "Options (the interactive UI and -p):",
        *flags_help(headless=False),
        "",
        "Headless (-p) only:",
        *flags_help(headless=True),
        "",
        f"  {'--help, -h'.ljust(width + 4)}Show this message and exit.",
        f"  {'--version'.ljust(width + 4)}Show earshot's version and exit.",
        "",
        "Run `earshot COMMAND --help` for a command's options.",
    ]
    return "\n".join(lines) + "\n"
