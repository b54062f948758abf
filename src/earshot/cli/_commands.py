"""The command table: one line of help per command, shared by the cyclopts app and the
top-level ``--help`` fast path (which must not import cyclopts' help renderer, rich)."""

from __future__ import annotations

SUMMARY = "earshot: a provider-agnostic terminal coding agent."

COMMANDS: dict[str, str] = {
    "providers": "List the providers earshot can call, their wire and whether a key is set.",
    "models": "List models from the catalog: context, output limit, prices, capabilities.",
    "auth": "Store, remove or show API keys (login, logout, status).",
}

AUTH_COMMANDS: dict[str, str] = {
    "login": "Store an API key for a provider (prompted without echo, or read from stdin).",
    "logout": "Remove the stored API key of a provider.",
    "status": "Show, per provider, where its key comes from (never the key itself).",
}


def top_level_help() -> str:
    width = max(len(name) for name in COMMANDS) + 2
    lines = [
        "Usage: earshot COMMAND [ARGS]",
        "",
        SUMMARY,
        "",
        "Commands:",
        *(f"  {name.ljust(width)}{text}" for name, text in COMMANDS.items()),
        "",
        "Options:",
        f"  {'--help, -h'.ljust(width + 4)}Show this message and exit.",
        f"  {'--version'.ljust(width + 4)}Show earshot's version and exit.",
        "",
        "Run `earshot COMMAND --help` for a command's options.",
    ]
    return "\n".join(lines) + "\n"
