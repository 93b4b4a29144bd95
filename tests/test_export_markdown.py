"""The Markdown export: the whole story, readable, in the chronicle's language."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask import Flask

from companion.export.markdown import demote, escape, quote, story_markdown
from companion.legacy import State, start, step
from companion.samples import load_sample, sample_commands, sample_setup
from companion.store.db import connect
from companion.streams.demo import create_demo


def sample_state(language: str) -> State:
    sample = load_sample(language)
    state, _ = start(sample_setup(sample))
    for command in sample_commands(sample):
        state, _ = step(state, command)
    return state


def markdown(app: Flask, state: State, edition: str = "annotated") -> str:
    with app.app_context():
        return story_markdown(state, edition)


@pytest.mark.parametrize(
    ("language", "chapters", "epilogue"),
    [
        ("ja", ["♥ 青年期", "♦ 壮年期", "♣ 熟年期", "♠ 晩年期"], "## エピローグ"),
        ("en", ["♥ Youth", "♦ Prime", "♣ Maturity", "♠ Old Age"], "## Epilogue"),
    ],
)
def test_markdown_holds_every_chapter_turning_point_mark_and_the_epilogue(
    app: Flask, language: str, chapters: list[str], epilogue: str
) -> None:
    state = sample_state(language)
    text = markdown(app, state)
    assert re.findall(r"^## (.+)$", text, re.M)[:4] == chapters
    assert len(re.findall(r"^### ", text, re.M)) == len(state.story) + 3  # + keystone kinds
    for mark in state.marks:
        assert f"{mark.name.value}**" in text
    assert epilogue in text and state.epilogue is not None
    assert state.epilogue.value.splitlines()[0] in text
    assert text.startswith("# ") and state.setup.pioneer in text.splitlines()[0]


def test_annotated_markdown_has_the_sacrifices_and_their_two_answers(app: Flask) -> None:
    state = sample_state("en")
    text = markdown(app, state)
    sacrificed = [k for k in state.keystones if k.status == "sacrificed"]
    assert sacrificed
    for keystone in sacrificed:
        assert f"Sacrificed: {escape(keystone.keystone.name)}" in text
        assert keystone.why is not None and keystone.why.value.splitlines()[0] in text
        assert keystone.outcome is not None and keystone.outcome.value.splitlines()[0] in text
    assert "*On success*" in text and "*Roll*: " in text and "*Reroll*: " in text


def test_story_markdown_is_prose_only(app: Flask) -> None:
    state = sample_state("en")
    text = markdown(app, state, "story")
    assert "*On success*" not in text and "*Roll*" not in text and "Sacrificed:" not in text
    first = state.story[0]
    assert first.answer is not None and first.answer.value[:40] in text
    assert first.narration is not None and first.narration.value[:40] in text


def test_player_headings_are_demoted_and_names_escaped() -> None:
    assert demote("# Big\n\n## Less\n### Same") == "### Big\n\n#### Less\n### Same"
    assert demote("```\n# code stays\n```\n# but this moves") == (
        "```\n# code stays\n```\n### but this moves"
    )
    assert escape("*Akane* [the] #1") == r"\*Akane\* \[the\] \#1"
    assert quote("one\n\ntwo") == "> one\n>\n> two"


def test_markdown_route_and_cli_give_the_same_file(app: Flask, tmp_path: Path) -> None:
    db = connect(app.config["DATABASE"])
    created = create_demo(db, "ja")
    client = app.test_client()
    response = client.get(f"/c/{created.host_token}/export.md")
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/markdown; charset=utf-8"
    assert "attachment" in response.headers["Content-Disposition"]
    path = tmp_path / "life.md"
    result = app.test_cli_runner().invoke(
        args=["export", created.id, "--format", "md", "-o", str(path)]
    )
    assert result.exit_code == 0, result.output
    assert path.read_bytes() == response.data
    assert response.data.decode("utf-8").startswith("# 朱音（あかね）の生涯")


def test_an_unfinished_life_with_a_veiled_prompt(app: Flask) -> None:
    from companion.export.book import book_html
    from companion.legacy import AnswerPrompt, ChoosePrompt, DrawCard, VeilPrompt

    state, _ = start(sample_setup(load_sample("en")))
    veiled = state.setup.prompts["AH"][0]
    commands = [
        DrawCard(0, "AH"),
        *[VeilPrompt(1, i) for i in range(len(state.setup.prompts["AH"]))],
        ChoosePrompt(0, question="What did the *river* take?"),
        AnswerPrompt(0, "The ferry, and the bell's voice."),
    ]
    for command in commands:
        state, _ = step(state, command)
    text = markdown(app, state)
    assert "*Our own question*" in text and "What did the *river* take?" in text
    assert veiled not in text and "The ferry" in text
    with app.app_context():
        html = book_html(state, "annotated", "a5")
    assert veiled not in html and "still being lived" in html
