"""A name that holds a right-to-left override cannot reverse the book's own words around it.

Every name and title a person gave is isolated (FSI … PDI) in the books; the test reads the order
of the words the PDF draws, which is the order a reader sees them in.
"""

from __future__ import annotations

import io
import re
import unicodedata
from dataclasses import replace

import pytest
from flask import Flask
from pypdf import PdfReader

from companion.base.paths import CHECKOUT as ROOT
from companion.export.book import book_html, render_book
from companion.export.print_shop import cover_html, make_cover
from companion.legacy import State, start, step
from companion.samples import load_sample, sample_commands, sample_setup

STATIC = ROOT / "static"
RLO = "\u202e"
FSI, PDI = "\u2068", "\u2069"


def overridden_life() -> State:
    """The English sample life, its first player and every keystone named with an override."""
    sample = load_sample("en")
    setup = sample_setup(sample)
    players = (f"Ann{RLO}evil", *setup.players[1:])
    keystones = tuple(replace(k, name=f"{k.name}{RLO}xyz") for k in setup.keystones)
    state, _ = start(replace(setup, players=players, keystones=keystones, people=f"Sea{RLO}folk"))
    for command in sample_commands(sample):
        state, _ = step(state, command)
    return state


@pytest.fixture(scope="module")
def book_app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    from conftest import make_app

    return make_app(tmp_path_factory.mktemp("bidi"))


def drawn_text(pdf: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)


def test_the_books_own_words_keep_their_order(book_app: Flask) -> None:
    state = overridden_life()
    with book_app.app_context():
        text = drawn_text(render_book(book_html(state, "annotated", "a5"), STATIC))
    second = state.setup.players[1]
    # "Told by Ann…, Brianna, Cardon": the names after the overridden one read forwards.
    assert second in text and second[::-1] not in text
    # "Sacrificed: <name> (Resource)": the kind after the name is not reversed.
    assert "Sacrificed:" in text
    kinds = ("Resource", "Relationship", "Ability")
    assert any(f"({kind})" in text for kind in kinds)
    assert not [kind for kind in kinds if kind[::-1] in text]
    assert "live" in text  # the override still reverses the name itself: it is the player's


def test_the_print_shops_cover_too(book_app: Flask) -> None:
    state = overridden_life()
    with book_app.app_context():
        text = drawn_text(make_cover(state, "story", "a5", 60, 0.1, STATIC))
    second = state.setup.players[1]
    assert second in text and second[::-1] not in text


@pytest.mark.parametrize("language", ["ja", "en"])
def test_the_spine_title_is_isolated(book_app: Flask, language: str) -> None:
    """On the spine too the title stands between FSI and PDI; in the Japanese spine, one
    character under another, the invisible marks share a cell with a character: no empty cell."""
    setup = sample_setup(load_sample(language))
    pioneer = f"朱{RLO}音（子）" if language == "ja" else f"Akane{RLO}Bell"
    state, _ = start(replace(setup, pioneer=pioneer))
    with book_app.app_context():
        html = cover_html(state, "story", "a5", 200, 0.1)
    spine = re.search(r'<p class="spine-title">(.*?)</p>', html, re.S)
    assert spine is not None
    if language == "en":
        assert spine.group(1) == f"{FSI}{pioneer}{PDI}"
        return
    cells = re.findall(r'<span class="(?:upright|turned)">([^<]*)</span>', spine.group(1))
    assert "".join(cells) == f"{FSI}{pioneer}{PDI}"
    assert len(cells) == len(pioneer) - 1  # 朱 音 （ 子 ）: the override has no cell of its own
    assert all(any(unicodedata.category(char) != "Cf" for char in cell) for cell in cells)
