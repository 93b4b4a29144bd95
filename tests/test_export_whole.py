"""Whole editions: the story edition tells the sacrifices, and every character of a text (the
full-width space U+3000 among them) reaches every export as it was typed: the JSON backup, the
Markdown export, the vault, the EPUB's text and the PDF's text layer."""

from __future__ import annotations

import io
import re
import zipfile

import pytest
from flask import Flask
from test_export_pdf import sample_state

from companion.export.book import book_html
from companion.export.markdown import story_markdown
from companion.export.vault import make_vault
from companion.legacy import State
from companion.text.markdown import plain


@pytest.fixture(scope="module")
def whole_app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    from conftest import make_app

    return make_app(tmp_path_factory.mktemp("whole"))


def sacrifices(state: State) -> list[tuple[str, str]]:
    from companion.export.contents import contents

    book = contents(state, "story")
    return [
        (pay.why.value if pay.why else "", pay.outcome.value if pay.outcome else "")
        for chapter in book.chapters
        for tp in chapter.turning_points
        for pay in tp.payments
        if pay.kind == "sacrifice"
    ]


@pytest.mark.parametrize("language", ["ja", "en"])
def test_the_story_edition_tells_both_answers_of_each_sacrifice(
    whole_app: Flask, language: str
) -> None:
    state = sample_state(language)
    answers = sacrifices(state)
    assert answers and all(why and outcome for why, outcome in answers)
    with whole_app.app_context():
        html = book_html(state, "story", "a5")
        markdown = story_markdown(state, "story")
    text = re.sub(r"<[^>]+>", "", html)
    for why, outcome in answers:
        for answer in (why, outcome):
            # its words (the book's punctuation is typographic, its lines may be phrases)
            for word in re.findall(r"\w{4,}", plain(answer))[:4]:
                assert word in text
            assert answer.strip().split("\n")[0] in markdown
    assert html.count('class="sacrifice prose"') == len(answers)
    assert 'class="payment' not in html  # no boxes, no labels: prose


def test_full_width_spaces_survive_the_markdown_export_and_the_vault(whole_app: Flask) -> None:
    from ruby_life import ruby_life

    text = "　春の朝。　波乃は｜海《うみ》を見た。\n\n　二段落目　。　"
    state = ruby_life("ja", text=text)
    with whole_app.app_context():
        markdown = story_markdown(state, "story")
        vault = zipfile.ZipFile(io.BytesIO(make_vault(state, "story")))
    assert "　春の朝。　波乃は｜海《うみ》を見た。\n\n　二段落目　。" in markdown
    notes = "".join(
        vault.read(name).decode("utf-8") for name in vault.namelist() if name.endswith(".md")
    )
    assert "　春の朝。　波乃は<ruby>海" in notes and "\n\n　二段落目　。" in notes


WRITTEN = "　春の朝。　波乃は海を見た。\n\n　二段落目　。　"  # a writer's full-width spaces


def test_full_width_spaces_survive_the_backup_the_epub_and_the_pdf_text(
    whole_app: Flask,
) -> None:
    import json
    import random

    from pypdf import PdfReader

    from companion.base.paths import CHECKOUT as ROOT
    from companion.export.backup import export_backup
    from companion.export.book import render_book
    from companion.export.epub import make_epub
    from companion.legacy import AnswerPrompt, ChoosePrompt, DeclareStakes, DrawCard
    from companion.samples import load_sample, sample_setup
    from companion.store.db import connect
    from companion.streams import chronicles

    db = connect(whole_app.config["DATABASE"])
    created = chronicles.create(db, sample_setup(load_sample("ja")), random.Random(1))
    chronicle = chronicles.load(db, created.id)
    seat, card = chronicle.state.seat, chronicle.state.pile_cards(chronicle.state.pile)[0]
    commands = [DrawCard(seat, card), ChoosePrompt(seat, 0), AnswerPrompt(seat, WRITTEN)]
    chronicle = chronicles.execute(db, chronicle, [*commands, DeclareStakes(seat, "成", "敗")])
    backup = export_backup(db, created.id)
    assert json.dumps(WRITTEN, ensure_ascii=False) in backup  # the bytes as typed, not escaped
    answers = [v for e in json.loads(backup)["events"] for v in e["event"].values()]
    assert WRITTEN in answers

    state = chronicle.state
    static = ROOT / "static"
    with whole_app.app_context():
        epub = zipfile.ZipFile(io.BytesIO(make_epub(state, "story", static)))
        pdf = render_book(book_html(state, "story", "a5"), static)
    pages = "".join(
        epub.read(name).decode("utf-8") for name in epub.namelist() if name.endswith(".xhtml")
    )
    assert "<p>　春の朝。　波乃は海を見た。</p>" in pages and "<p>　二段落目　。　</p>" in pages
    layer = "".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)
    # Each line as typed, each full-width space in place (at a paragraph's start and end too).
    assert "\n　春の朝。　波乃は海を見た。\n　二段落目　。　\n" in layer
