"""The cyclopts application: wiring and exit statuses. Commands live in their own modules.

Exit statuses: 0 success; 1 a command failed at run time; 2 a usage or configuration error
(unknown command, provider or model, bad flag, malformed settings or auth file), always with
a message on stderr that names what to fix.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import cyclopts
from cyclopts import App, Parameter

from earshot import __version__
from earshot.cli._commands import (
    AUTH_COMMANDS,
    COMMANDS,
    PERMISSIONS_COMMANDS,
    SESSIONS_COMMANDS,
    SUMMARY,
)
from earshot.core.settings import SettingsError
from earshot.providers.catalog import CatalogError
from earshot.providers.errors import ProviderError
from earshot.providers.jsonfile import JSONFileError

USAGE_ERROR = 2


class UsageError(Exception):
    """A mistake in what the user asked for; the message says what to do instead."""


def build_app() -> App:
    app = App(
        name="earshot",
        help=SUMMARY,
        version=__version__,
        help_formatter="plain",
        result_action="return_value",
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
        from earshot.cli.auth_cmd import login as do_login

        return do_login(provider)

    @auth.command(name="logout", help=AUTH_COMMANDS["logout"])
    def logout(provider: str) -> int:
        from earshot.cli.auth_cmd import logout as do_logout

        return do_logout(provider)

    @auth.command(name="status", help=AUTH_COMMANDS["status"])
    def status(*, json: Annotated[bool, Parameter(negative=())] = False) -> int:
        from earshot.cli.auth_cmd import status as do_status

        return do_status(as_json=json)

    _add_headless(app)
    _add_permissions(app)
    _add_sessions(app)
    return app


Flag = Annotated[bool, Parameter(negative=())]


def _add_headless(app: App) -> None:
    @app.default
    def main(
        *,
        print_: Annotated[str | None, Parameter(name=["--print", "-p"])] = None,
        model: Annotated[str | None, Parameter(name=["--model", "-m"])] = None,
        output_format: str = "text",
        permission_mode: str | None = None,
        max_turns: int | None = None,
        max_budget_usd: float | None = None,
        image: list[str] | None = None,
        cwd: Path | None = None,
        append_system_prompt: str = "",
        verbose: Flag = False,
        allow: list[str] | None = None,
        ask: list[str] | None = None,
        deny: list[str] | None = None,
        continue_: Annotated[bool, Parameter(name=["--continue", "-c"], negative=())] = False,
        resume: Annotated[str | None, Parameter(name=["--resume", "-r"])] = None,
        fork_session: Flag = False,
    ) -> int:
        """Run earshot. With -p, one headless turn; see `earshot --help`."""
        from earshot.cli.run_cmd import HeadlessOptions, read_prompt, run_headless

        if print_ is None and sys.stdin.isatty():
            raise UsageError(
                "the interactive terminal UI is not in this release yet; "
                "run one turn with earshot -p PROMPT"
            )
        options = HeadlessOptions(
            prompt=read_prompt(print_),
            output_format=output_format,
            model=model,
            permission_mode=permission_mode,
            max_turns=max_turns,
            max_budget_usd=max_budget_usd,
            images=tuple(image or ()),
            cwd=cwd,
            append_system_prompt=append_system_prompt,
            verbose=verbose,
            allow=tuple(allow or ()),
            ask=tuple(ask or ()),
            deny=tuple(deny or ()),
            continue_latest=continue_,
            resume=resume,
            fork_session=fork_session,
        )
        return run_headless(options)


def _add_permissions(app: App) -> None:
    permissions = App(name="permissions", help=COMMANDS["permissions"], help_formatter="plain")
    app.command(permissions)

    @permissions.command(name="check", help=PERMISSIONS_COMMANDS["check"])
    def check(request: str, *, mode: str | None = None, json: Flag = False) -> int:
        from earshot.cli.permissions_cmd import check as do_check

        return do_check(request, mode=mode, as_json=json)

    @permissions.command(name="list", help=PERMISSIONS_COMMANDS["list"])
    def list_rules(*, json: Flag = False) -> int:
        from earshot.cli.permissions_cmd import list_rules as do_list

        return do_list(as_json=json)


def _add_sessions(app: App) -> None:
    sessions = App(name="sessions", help=COMMANDS["sessions"], help_formatter="plain")
    app.command(sessions)

    @sessions.command(name="list", help=SESSIONS_COMMANDS["list"])
    def list_sessions(*, all: Flag = False, json: Flag = False) -> int:
        from earshot.cli.sessions_cmd import list_sessions as do_list

        return do_list(all=all, as_json=json)

    @sessions.command(name="show", help=SESSIONS_COMMANDS["show"])
    def show(id: str) -> int:
        from earshot.cli.sessions_cmd import show as do_show

        return do_show(id)

    @sessions.command(name="export", help=SESSIONS_COMMANDS["export"])
    def export(id: str, *, format: str = "markdown") -> int:
        from earshot.cli.sessions_cmd import export as do_export

        return do_export(id, format=format)

    @sessions.command(name="import", help=SESSIONS_COMMANDS["import"])
    def import_(path: Path) -> int:
        from earshot.cli.sessions_cmd import import_session

        return import_session(path)

    @app.command(name="undo", help=COMMANDS["undo"])
    def undo(*, session: str | None = None, list: Flag = False, yes: Flag = False) -> int:
        from earshot.cli.undo_cmd import undo as do_undo

        return do_undo(session=session, list_only=list, yes=yes)


def _known_failure(exc: Exception) -> int | None:
    """The exit status for a failure a person can fix, or None for a bug."""
    from earshot.cli.run_cmd import HeadlessUsageError
    from earshot.core.factory import SessionSetupError
    from earshot.core.input import InputError
    from earshot.core.session.transcript import SessionError
    from earshot.core.targets import NoModelError

    known = (HeadlessUsageError, SessionSetupError, InputError, SessionError, NoModelError)
    return USAGE_ERROR if isinstance(exc, known) else None


def _fail(message: str, code: int = USAGE_ERROR) -> int:
    sys.stderr.write(f"earshot: {message}\n")
    return code


def _stdin_prompt(args: list[str]) -> list[str]:
    """``-p -`` (prompt from stdin) as ``--print=-``: a bare ``-`` would read as an option."""
    out: list[str] = []
    skip = False
    for i, token in enumerate(args):
        if skip:
            skip = False
            continue
        if token in ("-p", "--print") and i + 1 < len(args) and args[i + 1] == "-":
            out.append("--print=-")
            skip = True
        else:
            out.append(token)
    return out


def run(args: list[str]) -> int:
    args = _stdin_prompt(args)
    app = build_app()
    try:
        result = app(args, exit_on_error=False, print_error=False)
    except cyclopts.CycloptsError as exc:
        return _fail(f"{exc}\nRun `earshot --help` for usage.")
    except (UsageError, SettingsError, JSONFileError, CatalogError) as exc:
        return _fail(str(exc))
    except ProviderError as exc:
        return _fail(exc.message)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        code = _known_failure(exc)
        if code is None:
            raise
        return _fail(str(exc), code)
    return result if isinstance(result, int) else 0
