"""The table shell both card games share: the game log, the hot-seat cover, the lobby, scores."""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask.testing import FlaskClient
from table_helpers import buttons, load, new_table, page

GAMES = ("traitors-flame", "age-of-summoners")


def log_lines(text: str) -> list[str]:
    """The lines of a table page's game log."""
    section = text[text.index('class="log-lines"') :]
    return re.findall(r"<li>(.*?)</li>", section, re.DOTALL)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", ["en", "ja"])
def test_every_log_line_names_players_by_name(
    client: FlaskClient, app: Flask, game: str, lang: str
) -> None:
    token = new_table(
        client,
        game,
        lang=lang,
        **{
            "seat-0-kind": "heuristic",
            "seat-0-name": "Zed",
            "seat-1-kind": "heuristic",
            "seat-1-name": "Yolanda",
            "seat-2-kind": "person",
            "seat-2-name": "Xavier",
        },
    )
    text = page(client, f"/t/{token}/?lang={lang}")
    lines = log_lines(text)
    assert lines
    joined = "\n".join(lines)
    for seat_word in ("Seat 1", "Seat 2", "Seat 3", "1番席", "2番席", "3番席"):
        assert seat_word not in joined
    assert not re.search(r"(?<![A-Za-z0-9])P[1-3](?![0-9])", joined)
    assert any(name in joined for name in ("Zed", "Yolanda", "Xavier"))
