"""``companion packs``: validate, list, show and install prompt packs from the command line.

Run through ``companion``, the packs are the instance's: those in its database (the pack files
older versions kept in ``PACKS_DIR`` are imported first). ``--user-dir`` works on a folder of
pack files instead, as does running the group without an app.
"""

from __future__ import annotations

import json
from itertools import groupby
from pathlib import Path
from typing import Any

import click

from companion.base.languages import DEFAULT, LANGUAGES
from companion.packs.format import CARDS, Pack, PackError, parse_pack_bytes
from companion.packs.registry import UnknownPackError, get_pack, list_packs, save_pack

_USER_DIR = "packs.user_dir"


@click.group("packs")
@click.option(
    "--user-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="A folder of pack files to work on [default: the instance's database].",
)
@click.pass_context
def packs(ctx: click.Context, user_dir: Path | None) -> None:
    """Prompt packs: the questions each card offers."""
    ctx.meta[_USER_DIR] = user_dir


def _app_store(ctx: click.Context, looking: bool = False) -> Any:
    """The instance's database, migrated, with the old pack files imported; closed at the end.

    Only looking (``list``, ``show``) at an instance with no database yet makes none: the
    uploaded packs are then the files of the instance's packs folder, if any.
    """
    from flask.cli import ScriptInfo

    info = ctx.find_object(ScriptInfo)
    if info is None:  # used outside the companion command: fall back to the usual place
        return Path("instance/packs")
    app = info.load_app()
    ctx.with_resource(app.app_context())
    config = app.config
    from companion.store.pg import is_url

    if looking and not is_url(config["DATABASE"]) and not Path(config["DATABASE"]).is_file():
        return Path(config["PACKS_DIR"])
    from companion.packs.registry import shipped_names
    from companion.packs.stored import import_folder
    from companion.store.db import connect, init_db

    init_db(config["DATABASE"])
    db = connect(config["DATABASE"])
    ctx.call_on_close(db.conn.close)
    import_folder(db, config["PACKS_DIR"], shipped_names())
    return db


def _user_dir() -> Any:
    """The folder given, or the instance's store, opened on first use (``validate`` needs none)."""
    ctx = click.get_current_context()
    if ctx.meta[_USER_DIR] is None:
        ctx.meta[_USER_DIR] = _app_store(ctx.find_root(), looking=ctx.info_name != "install")
    return ctx.meta[_USER_DIR]


def _where() -> str:
    user = _user_dir()
    return str(user) if isinstance(user, Path) else "the database"


def _summary(pack: Pack) -> str:
    return (
        f"{pack.name} ({pack.language}), {len(pack.prompts)} cards, {pack.prompt_count()} prompts"
    )


def _fail(error: PackError) -> None:
    for line in error.lines():
        click.echo(line)
    raise SystemExit(1)


@packs.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def validate(file: Path) -> None:
    """Check a pack file and print every problem in it."""
    try:
        pack = parse_pack_bytes(file.read_bytes(), source=str(file))
    except PackError as error:
        _fail(error)
    else:
        click.echo(f"ok: {_summary(pack)}")


@packs.command("list")
def list_command() -> None:
    """List the installed packs and their languages."""
    for name, group in groupby(list_packs(_user_dir()), key=lambda pack: pack.name):
        versions = list(group)
        languages = ", ".join(pack.language for pack in versions)
        click.echo(f"{name} ({languages}): {versions[0].title}")


@packs.command()
@click.argument("name")
@click.option(
    "--lang", "language", type=click.Choice(LANGUAGES), default=DEFAULT, show_default=True
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def show(name: str, language: str, as_json: bool) -> None:
    """Print every card of an installed pack with its prompts."""
    try:
        pack = get_pack(name, language, _user_dir())
    except UnknownPackError as error:
        raise click.ClickException(str(error)) from error
    if as_json:
        click.echo(json.dumps(pack_to_dict(pack), ensure_ascii=False, indent=2))
        return
    click.echo(f"{pack.title} — {_summary(pack)}")
    for card in CARDS:
        click.echo(f"\n{card}")
        for index, prompt in enumerate(pack.prompts[card]):
            click.echo(f"  {index}. {prompt}")


def pack_to_dict(pack: Pack) -> dict[str, object]:
    """The pack as plain JSON-ready data, cards in canonical order."""
    cards = [{"card": card, "prompts": list(pack.prompts[card])} for card in CARDS]
    meta = ("name", "language", "title", "author", "licence", "description")
    return {**{key: getattr(pack, key) for key in meta}, "cards": cards}


@packs.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def install(file: Path) -> None:
    """Validate a pack file and install it in the user pack directory."""
    try:
        pack = save_pack(file.read_bytes(), _user_dir(), source=str(file))
    except PackError as error:
        _fail(error)
    else:
        click.echo(f"installed: {_summary(pack)} in {_where()}")
