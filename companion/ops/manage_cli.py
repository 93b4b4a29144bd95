"""``companion chronicles list|show|delete|export`` and ``companion tables list|delete``.

An operator's view of the streams an instance holds: list them (all, or by age and by last
activity), look at one, export one, and delete them by id or by those same filters. Deleting
removes every event, draft, link, export job and book of the stream (``deletion.py``) and says
what it removed; it asks first unless told ``--yes``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import click
from flask import current_app
from flask.cli import with_appcontext

from companion.ops import deletion
from companion.store.sql import Database


def _age(_ctx: click.Context, _param: click.Parameter, value: str | None) -> timedelta | None:
    if value is None:
        return None
    try:
        return deletion.parse_age(value)
    except ValueError as err:
        raise click.BadParameter(str(err)) from None


older_option = click.option(
    "--older-than", callback=_age, metavar="AGE", help="Made more than AGE ago (90d, 12h, 2w)."
)
idle_option = click.option(
    "--idle-for", callback=_age, metavar="AGE", help="No move for AGE (last activity)."
)


@contextmanager
def _db() -> Iterator[Database]:
    from companion.store.db import connect, init_db

    init_db(current_app.config["DATABASE"])
    db = connect(current_app.config["DATABASE"])
    try:
        yield db
    finally:
        db.conn.close()


def _exports_dir() -> Path:
    return Path(current_app.config["EXPORTS_DIR"])


def _print_list(streams: list[deletion.Listed], as_json: bool) -> None:
    if as_json:
        rows = [
            {
                "id": s.id,
                "kind": s.kind,
                "title": s.title,
                "events": s.events,
                "created": s.created,
                "last_activity": s.updated,
            }
            for s in streams
        ]
        click.echo(json.dumps(rows, ensure_ascii=False, indent=1))
        return
    if not streams:
        click.echo("None.")
        return
    for s in streams:
        made, moved = s.created[:16].replace("T", " "), s.updated[:16].replace("T", " ")
        click.echo(
            f"{s.id}  {s.kind:<17} {s.events:>6} events  made {made}  last {moved}  {s.title}"
        )


def _delete(
    kinds: list[str], ids: tuple[str, ...], older: Any, idle: Any, yes: bool, noun: str
) -> None:
    if not ids and older is None and idle is None:
        raise click.UsageError(
            f"Name the {noun}s to delete by id, or give --older-than or --idle-for."
        )
    with _db() as db:
        if ids:
            found = [deletion.find(db, stream_id, kinds) for stream_id in ids]
            missing = [stream_id for stream_id, s in zip(ids, found, strict=True) if s is None]
            if missing:
                raise click.ClickException(f"No {noun} has the id {', '.join(missing)}.")
            chosen = [s for s in found if s is not None]
            if older is not None or idle is not None:
                kept = {s.id for s in deletion.listed(db, kinds, older, idle)}
                chosen = [s for s in chosen if s.id in kept]
        else:
            chosen = deletion.listed(db, kinds, older, idle)
        if not chosen:
            click.echo(f"No {noun} to delete.")
            return
        for s in chosen:
            click.echo(f"{s.id}  {s.title}: {deletion.inventory(db, s, _exports_dir()).summary()}")
        many = f"these {len(chosen)} {noun}s" if len(chosen) > 1 else f"this {noun}"
        if not yes:
            click.confirm(f"Delete {many} and everything kept for them, for good?", abort=True)
        for s in chosen:
            removed = deletion.delete(db, s, _exports_dir())
            click.echo(f"Deleted {s.id} ({s.title}): {removed.summary()}.")


@click.group("chronicles", short_help="List, show, export and delete chronicles.")
def chronicles_group() -> None:
    """List, show, export and delete the chronicles this instance holds."""


@chronicles_group.command("list")
@older_option
@idle_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON list.")
@with_appcontext
def chronicles_list(older_than: Any, idle_for: Any, as_json: bool) -> None:
    """List the chronicles, oldest first: id, events, made, last activity, the Pioneer."""
    with _db() as db:
        _print_list(deletion.listed(db, ["legacy"], older_than, idle_for), as_json)


@chronicles_group.command("show")
@click.argument("chronicle")
@with_appcontext
def chronicles_show(chronicle: str) -> None:
    """Show one chronicle: its language, when it was made and moved, what is kept for it."""
    from companion.streams import chronicles

    with _db() as db:
        found = deletion.find(db, chronicle, ["legacy"])
        if found is None:
            raise click.ClickException(f"No chronicle has the id {chronicle}.")
        loaded = chronicles.load(db, found.id)
        kept = deletion.inventory(db, found, _exports_dir())
        state = loaded.state
        rows = [
            ("chronicle", found.id),
            ("pioneer", found.title),
            ("players", ", ".join(state.setup.players)),
            ("language", state.setup.language),
            ("mode", state.setup.mode),
            ("turning points", str(len(state.story))),
            ("ended", "yes" if state.epilogue is not None else "no"),
            ("made", found.created),
            ("last activity", found.updated),
            ("kept", kept.summary()),
        ]
    for name, value in rows:
        click.echo(f"{name + ':':<16}{value}")


@chronicles_group.command("delete")
@click.argument("ids", nargs=-1)
@older_option
@idle_option
@click.option("--yes", is_flag=True, help="Do not ask first.")
@with_appcontext
def chronicles_delete(ids: tuple[str, ...], older_than: Any, idle_for: Any, yes: bool) -> None:
    """Delete chronicles by id, or all made before --older-than or idle for --idle-for."""
    _delete(["legacy"], ids, older_than, idle_for, yes, "chronicle")


@click.group("tables")
def tables_group() -> None:
    """List and delete the card tables this instance holds."""


@tables_group.command("list")
@older_option
@idle_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON list.")
@with_appcontext
def tables_list(older_than: Any, idle_for: Any, as_json: bool) -> None:
    """List the card tables, oldest first: id, game, moves, made, last activity, name."""
    with _db() as db:
        _print_list(deletion.listed(db, deletion.table_kinds(), older_than, idle_for), as_json)


@tables_group.command("delete")
@click.argument("ids", nargs=-1)
@older_option
@idle_option
@click.option("--yes", is_flag=True, help="Do not ask first.")
@with_appcontext
def tables_delete(ids: tuple[str, ...], older_than: Any, idle_for: Any, yes: bool) -> None:
    """Delete card tables by id, or all made before --older-than or idle for --idle-for."""
    _delete(deletion.table_kinds(), ids, older_than, idle_for, yes, "table")


def groups(export_command: Callable[..., Any]) -> tuple[click.Group, click.Group]:
    """The two groups; ``chronicles export`` is ``companion export`` under its group's name."""
    chronicles_group.add_command(export_command, "export")  # type: ignore[arg-type]
    return chronicles_group, tables_group
