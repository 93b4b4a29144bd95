"""``companion export`` and ``companion import``: the exports from the command line."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from flask import current_app
from flask.cli import with_appcontext
from sqlite_utils import Database

from .. import chronicles
from ..db import connect, init_db
from ..store import UnknownStreamError
from . import DEFAULT_EDITION, DEFAULT_PAPER, EDITIONS, FORMATS, PAPERS
from .backup import MAX_BYTES, export_backup, import_backup
from .errors import BackupError


def _database() -> Database:
    init_db(current_app.config["DATABASE"])
    return connect(current_app.config["DATABASE"])


@click.command("export", short_help="Export a chronicle as PDF, Markdown or JSON.")
@click.argument("chronicle")
@click.option("--format", "fmt", type=click.Choice(FORMATS), required=True)
@click.option("--edition", type=click.Choice(EDITIONS), default=DEFAULT_EDITION, show_default=True)
@click.option("--paper", type=click.Choice(PAPERS), default=DEFAULT_PAPER, show_default=True)
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="- or none: stdout"
)
@with_appcontext
def export_command(chronicle: str, fmt: str, edition: str, paper: str, output: Path | None) -> None:
    """Export CHRONICLE (its id) as a PDF book, a Markdown file or a JSON backup."""
    db = _database()
    try:
        loaded = chronicles.load(db, chronicle)
    except UnknownStreamError:
        raise click.ClickException(f"no chronicle {chronicle!r}") from None
    if fmt == "pdf":
        if output is None or str(output) == "-":
            raise click.UsageError("a PDF needs a file: give -o FILE")
        from .book import make_book

        data = make_book(loaded.state, edition, paper)
    elif fmt == "md":
        from .markdown import story_markdown

        data = story_markdown(loaded.state, edition).encode("utf-8")
    else:
        data = export_backup(db, loaded.id).encode("utf-8")
    _write(data, output)


def _write(data: bytes, output: Path | None) -> None:
    if output is None or str(output) == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    output.write_bytes(data)
    click.echo(f"wrote {output} ({len(data):,} bytes)", err=True)


@click.command("import", short_help="Create a chronicle from a JSON backup.")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@with_appcontext
def import_command(file: Path) -> None:
    """Create a new chronicle from the JSON backup FILE; prints its id and host link."""
    with file.open("rb") as handle:
        data = handle.read(MAX_BYTES + 1)
    try:
        created = import_backup(_database(), data)
    except BackupError as err:
        raise click.ClickException(f"{file}: {err}") from None
    address = str(current_app.config.get("PUBLIC_URL", "http://127.0.0.1:8000")).rstrip("/")
    click.echo(f"chronicle {created.id}")
    click.echo(f"host link: {address}/c/{created.host_token}/")
    click.echo(f"read-only link: {address}/c/{created.reader_token}/story")
