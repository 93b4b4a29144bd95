"""``companion cardgame simulate``: bots play many matches of a card game."""

from __future__ import annotations

import json
from typing import Any

import click


@click.group("cardgame")
def cardgame() -> None:
    """The card games: simulate many matches between bots."""


@cardgame.command("simulate")
@click.argument("game")
@click.option("--games", default=1000, show_default=True, type=click.IntRange(1, 10_000_000))
@click.option("--players", default=4, show_default=True, type=click.IntRange(2, 6))
@click.option("--bots", default="heuristic", show_default=True, help="Bot levels, comma-separated.")
@click.option("--seed", default=1, show_default=True, type=int)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option(
    "--workers", default=1, show_default=True, type=click.IntRange(1, 64),
    help="Processes to spread the matches over (Age of Summoners).",
)  # fmt: skip
@click.option(
    "--option", "option_pairs", multiple=True, metavar="KEY=VALUE",
    help="A match option, e.g. catch_up=false (Age of Summoners) or max_rounds=5; repeatable.",
)  # fmt: skip
def cardgame_simulate(
    game: str,
    games: int,
    players: int,
    bots: str,
    seed: int,
    as_json: bool,
    workers: int,
    option_pairs: tuple[str, ...],
) -> None:
    """Play GAMES matches of GAME (traitors-flame or age-of-summoners) between bots."""
    from companion.cardgames import game_keys, get_game

    if game not in game_keys():
        raise click.BadParameter(
            f"{game!r} is not one of {', '.join(game_keys())}", param_hint="GAME"
        )
    engine = get_game(game)
    if not engine.min_players <= players <= engine.max_players:
        raise click.BadParameter(
            f"{_english_name(game)} takes {engine.min_players} to {engine.max_players} players",
            param_hint="--players",
        )
    levels = [b.strip() for b in bots.split(",") if b.strip()]
    unknown = [b for b in levels if b not in engine.bots()]
    if unknown or not levels:
        raise click.BadParameter(f"bots are {', '.join(engine.bots())}", param_hint="--bots")
    options = dict(_option_pair(pair) for pair in option_pairs)
    try:
        report = engine.simulate(
            games, players, levels, seed=seed, workers=workers, options=options
        )
    except ValueError as err:
        raise click.BadParameter(str(err)) from err
    click.echo(
        json.dumps(report, ensure_ascii=False, sort_keys=True) if as_json else engine.report(report)
    )


def _english_name(key: str) -> str:
    """The game's name as its board says it in English, the CLI's language."""
    from flask_babel import force_locale

    from companion.web.boards import board_for

    with force_locale("en"):
        return board_for(key).name()


def _option_pair(pair: str) -> tuple[str, Any]:
    """``key=value`` with a JSON value (``false``, ``2``), or the plain text when not JSON."""
    key, sep, raw = pair.partition("=")
    if not sep or not key.strip():
        raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--option")
    try:
        return key.strip(), json.loads(raw)
    except ValueError:
        return key.strip(), raw
