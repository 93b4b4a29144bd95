"""The ``companion`` command: serve the app, set up the database, simulate lives."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from flask import Flask, current_app
from flask.cli import ScriptInfo, with_appcontext

from companion.base import __version__
from companion.base.languages import DEFAULT, LANGUAGES

# The operator's commands in the order ``companion --help`` lists them, under these headings.
# (Flask's developer commands, ``run``, ``shell`` and ``routes``, are ``flask --app companion.app``'s.)
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Running a server", ("serve", "info", "check")),
    ("The database and backups", ("init-db", "backup", "restore", "migrate-store")),
    ("Chronicles and card tables", ("chronicles", "tables", "export", "import", "demo")),
    ("Prompt packs", ("packs",)),
    ("Trying the rules", ("simulate", "cardgame")),
)


class SettingRefused(click.ClickException):
    """A setting the companion cannot use: one line on standard error, exit status 2."""

    exit_code = 2


class _Commands(click.Group):
    """The operator's command group: ``-h`` as ``--help``, commands listed by purpose, and a
    wrong setting or a folder this user may not write answered with a sentence. ``factory``
    makes the app each command reads its settings from (``companion.app.create_app``)."""

    def __init__(self, *args: Any, factory: Callable[[], Flask], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.factory = factory

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        listed: set[str] = set()
        for heading, names in SECTIONS:
            rows = [
                (name, self.commands[name].get_short_help_str(limit=formatter.width))
                for name in names
                if name in self.commands
            ]
            listed.update(names)
            if rows:
                with formatter.section(heading):
                    formatter.write_dl(rows)
        rest = [
            (n, c.get_short_help_str()) for n, c in sorted(self.commands.items()) if n not in listed
        ]
        if rest:
            with formatter.section("Other commands"):
                formatter.write_dl(rest)

    def invoke(self, ctx: click.Context) -> Any:
        from companion.base.settings import SettingError
        from companion.store.events import DamagedEventError
        from companion.store.schema import SchemaTooNewError

        if not isinstance(ctx.obj, ScriptInfo):  # a test's runner brings its own app
            ctx.obj = ScriptInfo(create_app=self.factory, load_dotenv_defaults=False)
        try:
            return super().invoke(ctx)
        except SettingError as err:
            raise SettingRefused(str(err)) from None
        except SchemaTooNewError as err:
            raise click.ClickException(str(err)) from None
        except DamagedEventError as err:
            raise click.ClickException(
                f"The chronicle {err.stream_id} is damaged: its event {err.seq} is not readable."
                " `companion check` lists every damaged stream; restore a backup taken before"
                " the damage (docs/deploy.md, section 6) or delete it."
            ) from None
        except PermissionError as err:
            raise _not_permitted(err.filename or "the instance folder") from None
        except sqlite3.OperationalError as err:
            # SQLite says "unable to open database file" (or "readonly database") where the
            # operating system said the folder or the file may not be written.
            code = getattr(err, "sqlite_errorcode", 0) & 0xFF
            if code not in (8, 14) and "unable to open" not in str(err):
                raise
            database = ctx.obj.load_app().config["DATABASE"]
            raise _not_permitted(database) from None


def _not_permitted(where: str) -> click.ClickException:
    return click.ClickException(
        f"This user may not write {where}. Run the command as the user that owns the"
        " instance (for example `sudo -u companion ...`); docs/deploy.md, section 2,"
        " says how the folder is made."
    )


@click.command("serve", short_help="Run the production server (gunicorn).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--lan", is_flag=True, help="Bind to the local network so phones can join.")
@click.option("--workers", default=2, show_default=True, type=int)
@click.option("--certfile", type=click.Path(exists=True, dir_okay=False), help="TLS certificate.")
@click.option("--keyfile", type=click.Path(exists=True, dir_okay=False), help="TLS private key.")
@with_appcontext
def serve(
    host: str,
    port: int,
    lan: bool,
    workers: int,
    certfile: str | None,
    keyfile: str | None,
) -> None:
    """Run the production server (gunicorn) on the configured database (SQLite or PostgreSQL)."""
    from companion.base import metrics
    from companion.export.supervisor import Settings
    from companion.ops import server
    from companion.store import serverlock
    from companion.store.db import init_db
    from companion.store.pg import is_url
    from companion.store.ratelimit_store import prepare_for

    os.environ["COMPANION_ROLE"] = "server"  # how its connections are named (PostgreSQL)
    init_db(current_app.config["DATABASE"])
    prepare_for(current_app.config)
    current_app.secret_key  # noqa: B018 - made now, by this user, before any worker reads it
    # Held, and inherited by gunicorn's workers, until the server stops: a restore waits for it.
    # A shared PostgreSQL store is restored with PostgreSQL's own tools, so no lock file is kept.
    shared = is_url(current_app.config["DATABASE"])
    held = None if shared else serverlock.hold_shared(current_app.config["DATABASE"])
    if held is None and not shared:
        raise click.ClickException(
            "A restore is replacing this instance's data: try again after it."
        )
    exports = Settings.from_config(current_app.config)
    if exports.workers:
        _check_exports_folder(exports.exports_dir)
    os.environ["COMPANION_EXPORT_SUPERVISOR"] = "server"  # the web workers start no pool
    tls = (certfile, keyfile) if certfile and keyfile else None
    if lan:
        host = "0.0.0.0"
        if tls is None:
            # Phones reach the server by its LAN address over plain HTTP, where browsers drop
            # Secure cookies (and with them the CSRF session). Give --certfile/--keyfile to keep them.
            os.environ["COMPANION_SESSION_COOKIE_SECURE"] = "false"
            click.echo(
                "Serving over plain HTTP on the local network: cookies are not marked Secure."
            )
    _trust_own_hosts(host, lan)
    # The export processes have no app config of their own: they read the format here.
    os.environ["COMPANION_LOG_FORMAT"] = str(current_app.config.get("LOG_FORMAT", "text"))
    server.run(app_factory(), host, port, workers, lan, tls, exports, metrics.gunicorn_hooks())


def _check_exports_folder(folder: Path) -> None:
    """Refuse to serve when the books could not be written: a read-only folder (a unit's
    ProtectSystem=strict without the folder in ReadWritePaths) would fail every book later."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".writable-"):
            pass
    except OSError as err:
        raise click.ClickException(
            f"The exports folder {folder} cannot be written ({err.strerror or err}): no book"
            " could be made. Let the service user write it; under systemd, name it in the"
            " unit's ReadWritePaths (docs/deploy.md, section 8)."
        ) from None


def _trust_own_hosts(host: str, lan: bool) -> None:
    """Answer only to this server's own names unless TRUSTED_HOSTS is configured (workers read it)."""
    from companion.base import hosts
    from companion.ops import server

    if current_app.config.get("TRUSTED_HOSTS") is None:
        outside = server.lan_address() if lan or host in hosts.WILDCARDS else None
        names = hosts.default_trusted_hosts(current_app, host, outside)
        os.environ["COMPANION_TRUSTED_HOSTS"] = json.dumps(names)


@click.command("simulate", short_help="Play many whole lives through the rules engine.")
@click.option("--games", default=1000, show_default=True, type=click.IntRange(1, 10_000_000))
@click.option("--seed", default=None, type=int, help="Seed for exact repeats.")
@click.option("--players", default=3, show_default=True, type=click.IntRange(1, 8))
@click.option(
    "--keystones", default="3,3,3", show_default=True, help="Resources,attachments,creeds."
)
@click.option(
    "--policy", type=click.Choice(["never", "always"]), default="never", show_default=True
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def simulate_command(
    games: int, seed: int | None, players: int, keystones: str, policy: str, as_json: bool
) -> None:
    """Play GAMES whole lives through the rules engine and report the outcomes."""
    from companion.legacy.simulate import format_table, simulate

    counts = _parse_keystones(keystones)
    progress = None if as_json or games < 2000 else _progress_bar(games)
    result = simulate(
        games, seed, players=players, keystones=counts, policy=policy, progress=progress
    )
    if as_json:
        click.echo(json.dumps(result, ensure_ascii=False, sort_keys=True))
    else:
        click.echo(format_table(result))


def _parse_keystones(text: str) -> tuple[int, int, int]:
    try:
        parts = tuple(int(p) for p in text.split(","))
    except ValueError:
        raise click.BadParameter(f"{text!r} is not three numbers like 3,3,3") from None
    if len(parts) != 3 or not all(0 <= p <= 6 for p in parts):
        raise click.BadParameter(f"{text!r}: give three counts from 0 to 6, like 3,3,3")
    resources, attachments, creeds = parts
    return resources, attachments, creeds


def _progress_bar(total: int) -> Any:
    bar = click.progressbar(length=total, label="Playing lives", file=sys.stderr)
    bar.__enter__()

    def advance(done: int, _total: int | None = None) -> None:
        bar.update(done - bar.pos)
        if done >= total:
            bar.__exit__(None, None, None)

    return advance


@click.command("demo", short_help="Load the sample life as a new chronicle.")
@click.option(
    "--lang", "language", type=click.Choice(LANGUAGES), default=DEFAULT, show_default=True
)
@with_appcontext
def demo_command(language: str) -> None:
    """Load the sample life as a new chronicle and print its id and address."""
    from companion.store.db import connect, init_db
    from companion.streams.demo import create_demo

    init_db(current_app.config["DATABASE"])
    db = connect(current_app.config["DATABASE"])
    created = create_demo(db, language)
    click.echo(f"chronicle {created.id}")
    click.echo(f"host link: {_address()}/c/{created.host_token}/")
    click.echo(f"story: {_address()}/c/{created.host_token}/story")


def _address() -> str:
    from companion.base.hosts import public_address

    return public_address(current_app.config)


def operator_commands() -> tuple[click.Command, ...]:
    """Every command of ``companion``, each also reachable as ``flask --app companion.app NAME``."""
    from companion.export.cli import export_command, import_command
    from companion.ops.admin import COMMANDS
    from companion.ops.cardgame_cli import cardgame
    from companion.ops.manage_cli import groups
    from companion.ops.migrate_store import migrate_store_command
    from companion.packs.cli import packs
    from companion.store.db import init_db_command

    return (
        serve,
        simulate_command,
        demo_command,
        packs,
        export_command,
        import_command,
        migrate_store_command,
        cardgame,
        init_db_command,
        *groups(export_command),
        *COMMANDS,
    )


def init_app(app: Flask) -> None:
    """Register the operator's commands on the app's own (developer) command line too."""
    for command in operator_commands():
        app.cli.add_command(command)


def _short_help_option(command: click.Command) -> None:
    """``-h`` beside ``--help`` on ``command`` and its subcommands, however they are reached
    (click keeps a command's help option once made, so it is set on the command itself)."""
    command.context_settings.setdefault("help_option_names", ["-h", "--help"])
    for sub in getattr(command, "commands", {}).values():
        _short_help_option(sub)


for _command in operator_commands():
    _short_help_option(_command)


def command_line(factory: Callable[[], Flask]) -> click.Group:
    """The ``companion`` command, its commands reading the apps ``factory`` makes."""

    @click.group(
        "companion",
        cls=_Commands,
        factory=factory,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    @click.version_option(
        __version__, "--version", prog_name="companion", message="%(prog)s %(version)s"
    )
    def main() -> None:
        """遺燼抄 companion: play, write and print whole lives; two card games beside them.

        Settings come from <instance>/config.py and COMPANION_* variables (docs/deploy.md,
        section 3); `companion COMMAND -h` says more of each command.
        """
        if click.get_current_context().invoked_subcommand == "serve":
            from companion.base import metrics

            metrics.prepare_server()  # before the app loads: the client library reads it once

    for command in operator_commands():
        main.add_command(command)
    return main


def app_factory() -> Callable[[], Flask]:
    """How the running command makes an app: ``companion``'s factory, else Flask's own
    ``--app`` path (``flask --app companion.app serve``), made afresh on each call."""
    info = click.get_current_context().find_object(ScriptInfo)
    if info is not None and info.create_app is not None:
        return info.create_app
    path = info.app_import_path if info is not None else None
    return lambda: ScriptInfo(app_import_path=path, load_dotenv_defaults=False).load_app()
