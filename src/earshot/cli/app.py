"""The cyclopts application for the subcommands; their bodies live in their own modules.
Exit statuses are ``_errors``'s; the top-level headless flags are ``_flags``'s."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import cyclopts
from cyclopts import App, Parameter
from rich.console import Console

from earshot import __version__
from earshot.cli._commands import (
    AUTH_COMMANDS,
    COMMANDS,
    PERMISSIONS_COMMANDS,
    SESSIONS_COMMANDS,
    SUMMARY,
)
from earshot.cli._errors import UsageError, guarded


def build_app() -> App:
    app = App(
        name="earshot",
        help=SUMMARY,
        version=__version__,
        help_formatter="plain",
        result_action="return_value",
        console=_help_console(),
    )

    @app.command(name="providers", help=COMMANDS["providers"])
    def providers(*, json: Annotated[bool, Parameter(negative=())] = False) -> int:
        """List providers.

        Parameters
        ----------
        json
            Print JSON (one array of objects) instead of a table.
        """
        from earshot.cli.listing import print_providers

        return print_providers(as_json=json)

    @app.command(name="models", help=COMMANDS["models"])
    def models(
        provider: str | None = None,
        *,
        json: Annotated[bool, Parameter(negative=())] = False,
        refresh: Annotated[bool, Parameter(negative=())] = False,
    ) -> int:
        """List models.

        Parameters
        ----------
        provider
            A provider id (all of its models) or provider/model (one model in detail).
        json
            Print JSON instead of a table.
        refresh
            First fetch the current catalog from models.dev into the local cache.
        """
        from earshot.cli.listing import print_models, refresh_catalog

        if refresh:
            code = refresh_catalog()
            if code:
                return code
        return print_models(provider, as_json=json)

    auth = App(name="auth", help=COMMANDS["auth"], help_formatter="plain")
    app.command(auth)

    @auth.command(name="login", help=AUTH_COMMANDS["login"])
    def login(provider: str) -> int:
        """Store a key.

        Parameters
        ----------
        provider
            The provider id, e.g. anthropic (`earshot providers` lists them).
        """
        from earshot.cli.auth_cmd import login as do_login

        return do_login(provider)

    @auth.command(name="logout", help=AUTH_COMMANDS["logout"])
    def logout(provider: str) -> int:
        """Remove a key.

        Parameters
        ----------
        provider
            The provider id whose stored key is removed.
        """
        from earshot.cli.auth_cmd import logout as do_logout

        return do_logout(provider)

    @auth.command(name="status", help=AUTH_COMMANDS["status"])
    def status(*, json: Annotated[bool, Parameter(negative=())] = False) -> int:
        """Show key sources.

        Parameters
        ----------
        json
            Print JSON (one array of objects) instead of a table.
        """
        from earshot.cli.auth_cmd import status as do_status

        return do_status(as_json=json)

    _add_permissions(app)
    _add_sessions(app)
    _add_acp_and_doctor(app)
    return app


def _add_acp_and_doctor(app: App) -> None:
    @app.command(name="acp", help=COMMANDS["acp"])
    def acp(
        *,
        model: Annotated[str | None, Parameter(name=["--model", "-m"])] = None,
        permission_mode: str | None = None,
    ) -> int:
        """Serve ACP v1 on stdin/stdout (newline-delimited JSON-RPC); logs go to stderr.

        Parameters
        ----------
        model
            provider/model for new sessions (default: settings, else a provider with a key).
        permission_mode
            plan, ask, accept-edits, auto or yolo.
        """
        from earshot.cli.acp_cmd import main as serve

        return serve(model=model, permission_mode=permission_mode)

    @app.command(name="doctor", help=COMMANDS["doctor"])
    def doctor(*, json: Switch = False, offline: Switch = False) -> int:
        """Check the install.

        Parameters
        ----------
        json
            Print JSON instead of text.
        offline
            Skip the network check (whether each keyed provider answers at its base URL).
        """
        from earshot.cli.doctor_cmd import main as check

        return check(as_json=json, offline=offline)


Switch = Annotated[bool, Parameter(negative=())]


def _help_console() -> Console:
    """The console help is printed on: wide, so a description stays on its option's line
    and the terminal wraps it (the plain formatter's own wrapping restarts at column 0)."""
    return Console(width=1000, soft_wrap=True, highlight=False)


def _add_permissions(app: App) -> None:
    permissions = App(name="permissions", help=COMMANDS["permissions"], help_formatter="plain")
    app.command(permissions)

    @permissions.command(name="check", help=PERMISSIONS_COMMANDS["check"])
    def check(request: str, *, mode: str | None = None, json: Switch = False) -> int:
        """Explain a decision.

        Parameters
        ----------
        request
            A tool call as a rule would name it, e.g. 'Bash(git log; rm -rf x)'.
        mode
            The permission mode to decide in: plan, ask, accept-edits, auto or yolo.
        json
            Print JSON instead of text.
        """
        from earshot.cli.permissions_cmd import check as do_check

        return do_check(request, mode=mode, as_json=json)

    @permissions.command(name="list", help=PERMISSIONS_COMMANDS["list"])
    def list_rules(*, json: Switch = False) -> int:
        """List the rules.

        Parameters
        ----------
        json
            Print JSON instead of text.
        """
        from earshot.cli.permissions_cmd import list_rules as do_list

        return do_list(as_json=json)


def _add_sessions(app: App) -> None:
    sessions = App(name="sessions", help=COMMANDS["sessions"], help_formatter="plain")
    app.command(sessions)

    @sessions.command(name="list", help=SESSIONS_COMMANDS["list"])
    def list_sessions(*, all: Switch = False, json: Switch = False) -> int:
        """List sessions.

        Parameters
        ----------
        all
            Every directory's sessions, not only this one's.
        json
            Print JSON instead of a table.
        """
        from earshot.cli.sessions_cmd import list_sessions as do_list

        return do_list(all=all, as_json=json)

    @sessions.command(name="show", help=SESSIONS_COMMANDS["show"])
    def show(id: str) -> int:
        """Show a session.

        Parameters
        ----------
        id
            A session id, or a prefix of it (`earshot sessions list` shows them).
        """
        from earshot.cli.sessions_cmd import show as do_show

        return do_show(id)

    @sessions.command(name="export", help=SESSIONS_COMMANDS["export"])
    def export(id: str, *, format: str = "markdown") -> int:
        """Export a session.

        Parameters
        ----------
        id
            A session id, or a prefix of it.
        format
            markdown (readable) or jsonl (the transcript's entries).
        """
        from earshot.cli.sessions_cmd import export as do_export

        return do_export(id, format=format)

    @sessions.command(name="import", help=SESSIONS_COMMANDS["import"])
    def import_(path: Path) -> int:
        """Import a session.

        Parameters
        ----------
        path
            A Claude Code, pi or earshot session file (.jsonl).
        """
        from earshot.cli.sessions_cmd import import_session

        return import_session(path)

    @app.command(name="undo", help=COMMANDS["undo"])
    def undo(*, session: str | None = None, list: Switch = False, yes: Switch = False) -> int:
        """Undo the last batch of edits.

        Parameters
        ----------
        session
            A session id or prefix (default: the newest session with undo steps).
        list
            List the session's undo and redo steps instead of undoing.
        yes
            Undo without showing the diff and asking first.
        """
        from earshot.cli.undo_cmd import undo as do_undo

        return do_undo(session=session, list_only=list, yes=yes)


def run(args: list[str]) -> int:
    """Run a subcommand (``providers``, ``models``, ``auth``, ...)."""
    if args[0] in ("mcp", "trust"):  # parsed by hand: `mcp add NAME -- COMMAND ARGS...`
        from earshot.cli import mcp_cmd, trust_cmd

        command = mcp_cmd.main if args[0] == "mcp" else trust_cmd.main
        return guarded(lambda: command(args[1:]))
    app = build_app()

    def call() -> int:
        try:
            result = app(args, exit_on_error=False, print_error=False)
        except cyclopts.CycloptsError as exc:
            raise UsageError(f"{exc}\nRun `earshot --help` for usage.") from exc
        return result if isinstance(result, int) else 0

    return guarded(call)
