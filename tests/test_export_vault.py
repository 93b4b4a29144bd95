"""The Obsidian vault: a zip of linked notes that tells the whole life, read back as Obsidian would."""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

import pytest
import yaml
from flask import Flask
from test_export_pdf import sample_state

from companion.export import editions
from companion.export.markdown import player_text
from companion.export.vault import FIELDS, make_vault, yaml_string
from companion.legacy import ReviseText, State, step
from companion.legacy.texts import iter_texts

LINK = re.compile(r"(?<!\\)(!?)\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]")


def unzip(data: bytes) -> dict[str, str]:
    archive = zipfile.ZipFile(io.BytesIO(data))
    assert archive.testzip() is None
    return {info.filename: archive.read(info).decode("utf-8") for info in archive.infolist()}


def front_matter(text: str) -> tuple[dict[str, Any], str]:
    match = re.match(r"---\n(.*?)\n---\n", text, re.S)
    assert match, text[:200]
    return yaml.safe_load(match.group(1)), text[match.end() :]


def revised(state: State) -> State:
    """The sample life with its first answer corrected afterwards."""
    first = state.story[0]
    assert first.answer is not None
    answer = first.answer
    fix = "A corrected answer: the [[bell]] <b>rang</b>."
    state, _ = step(state, ReviseText(0, answer.seq, answer.field, fix))
    return state


@pytest.fixture(scope="module")
def vault(book_app: Flask) -> tuple[State, dict[str, str]]:
    state = revised(sample_state("en"))
    with book_app.app_context():
        return state, unzip(make_vault(state, "annotated"))


@pytest.fixture(scope="module")
def book_app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    from conftest import make_app

    return make_app(tmp_path_factory.mktemp("vault"))


def test_the_vault_is_one_folder_of_notes_and_the_timeline(
    vault: tuple[State, dict[str, str]],
) -> None:
    state, files = vault
    folders = {name.split("/", 1)[0] for name in files}
    assert folders == {f"The life of {state.setup.pioneer}"}
    notes = [n for n in files if n.endswith(".md")]
    points = [n for n in notes if re.search(r"/\d\d\.\d\d ", n)]
    assert len(points) == len(state.story)
    stages = [n for n in notes if re.search(r"/0[1-4] ", n)]
    assert len(stages) == 4
    assert any(n.endswith("/attachments/timeline.svg") for n in files)
    assert files[next(n for n in files if n.endswith(".svg"))].startswith("<svg")


def test_every_wikilink_resolves(vault: tuple[State, dict[str, str]]) -> None:
    _state, files = vault
    names = {name.rsplit("/", 1)[-1].removesuffix(".md") for name in files}
    names |= {name.rsplit("/", 1)[-1] for name in files}
    links = [(path, m.group(2)) for path, text in files.items() for m in LINK.finditer(text)]
    assert len(links) > 3 * len(files) // 2
    assert [(path, target) for path, target in links if target not in names] == []
    # A player's [[ is escaped: it shows as written and links nowhere.
    assert any("\\[\\[bell]]" in text for text in files.values())


def test_front_matter_parses_with_the_documented_fields(
    vault: tuple[State, dict[str, str]],
) -> None:
    state, files = vault
    points = sorted(n for n in files if re.search(r"/\d\d\.\d\d ", n))
    by_seq = {tp.seq: tp for tp in state.story}
    assert len(points) == len(by_seq)
    for path, tp in zip(points, state.story, strict=True):
        facts, body = front_matter(files[path])
        assert list(facts) == list(FIELDS)
        assert (facts["round"], facts["turn"]) == (tp.round, tp.turn)
        assert facts["dice"] == [list(roll.faces) for roll in tp.rolls]
        assert all(isinstance(face, int) for roll in facts["dice"] for face in roll)
        assert facts["result"] == (tp.outcome or "open")
        assert facts["players"] == [state.setup.players[tp.seat]]
        assert facts["prompt"] == (tp.question.value if tp.question else tp.prompt)
        assert isinstance(facts["keystones_lost"], list) and isinstance(facts["marks"], list)
        assert facts["card"] in body
    lost = [name for path in points for name in front_matter(files[path])[0]["keystones_lost"]]
    assert sorted(lost) == sorted(k.keystone.name for k in state.keystones if k.status != "kept")
    marks = [m for path in points for m in front_matter(files[path])[0]["marks"]]
    assert marks == [m.name.value for m in state.marks]


def test_the_notes_in_order_tell_every_text(vault: tuple[State, dict[str, str]]) -> None:
    state, files = vault
    story = "\n".join(files[name] for name in sorted(files) if name.endswith(".md"))
    position = 0
    for text in (t for tp in state.story for t in _texts_of(tp)):
        shown = player_text(text).replace("[[", "\\[\\[")
        found = story.find(shown, position)
        assert found >= 0, text[:60]
        position = found  # in reading order
    for text in iter_texts(state):  # the keystones', the marks' and the epilogue's too
        assert player_text(text.value).replace("[[", "\\[\\[") in story, text.value[:60]
    assert "A corrected answer" in story and "&lt;b>rang" in story  # the correction as it stands
    assert state.story[0].answer is not None
    assert story.count("A corrected answer") == 1


def _texts_of(tp: Any) -> list[str]:
    texts = [tp.question, tp.answer, tp.stakes_success, tp.stakes_failure]
    for pay in tp.payments:
        texts += [pay.why, pay.outcome]
    texts += [loss.narration for loss in tp.losses] + [tp.narration]
    return [t.value for t in texts if t is not None and t.value.strip()]


@pytest.mark.parametrize(
    "text",
    ["plain", 'a "quote" and \\ back', "key: value # not a comment", "- a list?\n- no",
     "line\u2028sep\u2029para\x85nel", "tab\there", "\ufeffbom", "emoji 👩‍👩‍👧 and 漢字",
     "nul\x00gone\x07", "lone \ud800 surrogate", "'single'", "yes", "~", "@at", "&anchor *alias"],
)  # fmt: skip
def test_yaml_strings_read_back_as_written(text: str) -> None:
    from companion.export.typeset import printable

    assert yaml.safe_load(f"v: {yaml_string(text)}")["v"] == printable(text)


def test_the_vault_is_a_layout_of_its_own(book_app: Flask) -> None:
    layout = editions.parse_layout("vault")
    assert (layout.extension, layout.format, layout.media_type) == (
        "zip",
        "vault",
        "application/zip",
    )
    assert editions.layouts_for("vault", False, False, 0.1) == ["vault"]
    state = sample_state("ja")
    with book_app.app_context():
        files = unzip(
            editions.make(state, "annotated", "a5", "vault", __import__("pathlib").Path("."))
        )
    assert any("/00 目次.md" in name for name in files)  # in the chronicle's language
    assert any(
        front_matter(t)[0].get("stage") == "青年期" for n, t in files.items() if "/01.01 " in n
    )
