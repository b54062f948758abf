"""The cyclopts application: wiring and exit statuses. Commands live in their own modules.

Exit statuses: 0 success; 1 a command failed at run time; 2 a usage or configuration error
(unknown command, provider or model, bad flag, malformed settings or auth file), always with
a message on stderr that names what to fix.
"""

from __future__ import annotations

import sys
from typing import Annotated

import cyclopts
from cyclopts import App, Parameter

from earshot import __version__
from earshot.cli._commands import AUTH_COMMANDS, COMMANDS, SUMMARY
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

    return app


def _fail(message: str, code: int = USAGE_ERROR) -> int:
    sys.stderr.write(f"earshot: {message}\n")
    return code


def run(args: list[str]) -> int:
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
    return result if isinstance(result, int) else 0
