"""Hostile Markdown in the exports: the PDF book lays out any nesting."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from pypdf import PdfReader

from attacks.hostile_life import DEEP_TEXTS, hostile_life
from companion.export.book import make_book


@pytest.mark.slow  # a book of thousands of nested blocks
def test_the_book_of_deeply_nested_answers_is_made(app: Flask, tmp_path: Path) -> None:
    state = hostile_life(DEEP_TEXTS)
    assert [tp.answer.value for tp in state.story[: len(DEEP_TEXTS)]] == DEEP_TEXTS
    with app.app_context():
        pdf = make_book(state, "story", "a5")
    path = tmp_path / "book.pdf"
    path.write_bytes(pdf)
    text = "".join(page.extract_text() for page in PdfReader(path).pages)
    assert "line 129" in text and "end" in text
