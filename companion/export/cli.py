"""``companion export`` and ``companion import``: the exports from the command line."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from flask import current_app
from flask.cli import with_appcontext
from sqlite_utils import Database

from companion.store import events as store
from companion.store.db import connect, init_db
from companion.store.events import UnknownStreamError
from companion.store.pg import is_url
from companion.streams import chronicles

from . import DEFAULT_EDITION, DEFAULT_PAPER, DEFAULT_THICKNESS_MM, EDITIONS, FORMATS, PAPERS
from .backup import export_backup, import_backup, import_limits
from .errors import BackupError


def _database(looking: bool = False) -> Database:
    database = current_app.config["DATABASE"]
    if looking and not is_url(database) and not Path(database).is_file():
        # Exporting only reads: an instance with no database yet holds no chronicle.
        raise click.ClickException(f"There is no database at {database} yet: nothing to export.")
    init_db(current_app.config["DATABASE"])
    return connect(current_app.config["DATABASE"])


@click.command("export", short_help="Export a chronicle as PDF, Markdown or JSON.")
@click.argument("chronicle")
@click.option("--format", "fmt", type=click.Choice(FORMATS), required=True)
@click.option("--edition", type=click.Choice(EDITIONS), default=DEFAULT_EDITION, show_default=True)
@click.option("--paper", type=click.Choice(PAPERS), default=DEFAULT_PAPER, show_default=True)
@click.option(
    "--print-shop", is_flag=True, help="PDF for a print shop: bleed, crop marks, a cover file"
)
@click.option(
    "--paper-thickness",
    type=float,
    default=DEFAULT_THICKNESS_MM,
    show_default=True,
    help="mm per leaf, for the cover's spine",
)
@click.option("--vertical", is_flag=True, help="vertical Japanese (PDF by Chromium, or EPUB)")
@click.option("--booklet", is_flag=True, help="PDF imposed two pages a side for a home printer")
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False, path_type=Path), help="- or none: stdout"
)
@with_appcontext
def export_command(
    chronicle: str,
    fmt: str,
    edition: str,
    paper: str,
    print_shop: bool,
    paper_thickness: float,
    vertical: bool,
    booklet: bool,
    output: Path | None,
) -> None:
    """Export CHRONICLE (its id) as a PDF book, an EPUB, an Obsidian vault (a zip), a Markdown
    file or a JSON backup.

    With --print-shop, the cover is written beside the body as FILE-cover.pdf.
    """
    db = _database(looking=True)
    try:
        loaded = chronicles.load(db, chronicle)
    except UnknownStreamError:
        raise click.ClickException(f"no chronicle {chronicle!r}") from None
    if fmt in ("pdf", "epub", "vault"):
        options = (print_shop, vertical, paper_thickness, booklet)
        _books(db, loaded, fmt, edition, paper, options, output)
        return
    if fmt == "md":
        from .markdown import story_markdown

        data = story_markdown(loaded.state, edition).encode("utf-8")
    else:
        data = export_backup(db, loaded.id).encode("utf-8")
    _write(data, output)


def _books(
    db: Database,
    loaded: chronicles.Chronicle,
    fmt: str,
    edition: str,
    paper: str,
    options: tuple[bool, bool, float, bool],
    output: Path | None,
) -> None:
    from . import editions
    from .book import static_dir
    from .contents import EditionError

    if output is None or str(output) == "-":
        raise click.UsageError(f"a {fmt.upper()} needs a file: give -o FILE")
    try:
        layouts = editions.layouts_for(fmt, *options)
        for layout in layouts:
            editions.check(loaded.state, layout, paper)
    except EditionError as err:
        raise click.UsageError(str(err)) from None
    date = store.get_stream(db, loaded.id).updated[:10]
    pages: list[int] = []
    for layout in layouts:
        target = output if layout == layouts[0] else output.with_stem(output.stem + "-cover")
        part_pages = int(current_app.config["EXPORT_PART_PAGES"])
        try:
            data = editions.make(
                loaded.state, edition, paper, layout, static_dir(),
                body_pages=lambda: pages[0] if pages else None,
                key=f"{loaded.id}/v{loaded.version}", date=date,
                in_parts=editions.InParts(part_pages, None),
            )  # fmt: skip
        except EditionError as err:
            raise click.ClickException(str(err)) from None
        if layout == "print":
            from .print_shop import page_count

            pages.append(page_count(data))
        _write(data, target)


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
        data = handle.read(import_limits()[0] + 1)
    try:
        created = import_backup(_database(), data)
    except BackupError as err:
        raise click.ClickException(f"{file}: {err}") from None
    from companion.base.hosts import public_address

    address = public_address(current_app.config)
    click.echo(f"chronicle {created.id}")
    click.echo(f"host link: {address}/c/{created.host_token}/")
    click.echo(f"read-only link: {address}/c/{created.reader_token}/story")
