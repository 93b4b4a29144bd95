"""Prompt packs: the shipped packs, the file format's errors, the registry and the CLI."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from companion.packs.cli import packs
from companion.packs.format import (
    CARDS,
    MAX_BYTES,
    PackError,
    normalise_prompt,
    pack_to_text,
    parse_pack,
    parse_pack_bytes,
)
from companion.packs.registry import (
    SHIPPED_DIR,
    UnknownPackError,
    get_pack,
    list_packs,
    save_pack,
)

SHIPPED = sorted(SHIPPED_DIR.glob("*.md"))
KANA_KANJI = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
LONG_ASCII_RUN = re.compile(r"[A-Za-z]{4,}")
PRONOUNS = re.compile(r"\b(he|she|him|her|his|hers|himself|herself)\b", re.IGNORECASE)
JA_PRONOUNS = ("彼は", "彼女", "彼の", "彼が", "彼を", "彼に")


def shipped(language: str) -> list[str]:
    return [p for texts in get_pack("standard", language).prompts.values() for p in texts]


# --- the shipped packs ---------------------------------------------------------------------


@pytest.mark.parametrize("path", SHIPPED, ids=lambda path: path.name)
def test_every_shipped_pack_is_valid_and_complete(path: Path) -> None:
    pack = parse_pack_bytes(path.read_bytes(), source=str(path))
    assert list(pack.prompts) == list(CARDS)
    assert path.name == f"{pack.name}.{pack.language}.md"


@pytest.mark.parametrize("language", ["ja", "en"])
def test_standard_pack_has_exactly_two_prompts_per_card(language: str) -> None:
    pack = get_pack("standard", language)
    assert {card: len(texts) for card, texts in pack.prompts.items()} == dict.fromkeys(CARDS, 2)


def test_japanese_prompts_are_japanese() -> None:
    for prompt in shipped("ja"):
        assert KANA_KANJI.search(prompt), prompt
        assert not LONG_ASCII_RUN.search(prompt), prompt
        assert not any(word in prompt for word in JA_PRONOUNS), prompt
        assert prompt.endswith("？"), prompt


def test_english_prompts_are_english() -> None:
    for prompt in shipped("en"):
        assert not KANA_KANJI.search(prompt), prompt
        assert len(re.findall(r"[A-Za-z]", prompt)) > 0.6 * len(prompt), prompt
        assert not PRONOUNS.search(prompt), prompt
        assert prompt.endswith("?"), prompt


@pytest.mark.parametrize("language", ["ja", "en"])
def test_standard_prompts_are_neither_duplicates_nor_near_duplicates(language: str) -> None:
    prompts = shipped(language)
    keys = [normalise_prompt(prompt) for prompt in prompts]
    assert len(set(keys)) == len(keys)
    openings = [key[:24] for key in keys]
    assert len(set(openings)) == len(openings)


@pytest.mark.parametrize("language", ["ja", "en"])
def test_standard_prompts_give_sacrifices_something_to_bite_on(language: str) -> None:
    words = {
        "ja": ("〈資源〉", "〈愛着〉", "〈信条〉"),
        "en": ("resource", "loves", "creed"),
    }[language]
    text = "\n".join(shipped(language))
    assert all(text.count(word) >= 2 for word in words), words


@pytest.mark.parametrize("language", ["ja", "en"])
def test_canonical_text_round_trips(language: str) -> None:
    pack = get_pack("standard", language)
    assert parse_pack(pack_to_text(pack)) == pack


# --- malformed files ----------------------------------------------------------------------


def pack_lines(name: str = "mine", language: str = "en") -> list[str]:
    """A valid pack file as a list of lines, with two distinct prompts per card."""
    out = ["---", f"name: {name}", f"language: {language}", "title: Test pack", "---", ""]
    for card in CARDS:
        out += [f"## {card}", f"- First question for {card}?", f"- Second question for {card}?", ""]
    return out


def line_of(lines: list[str], text: str) -> int:
    return lines.index(text) + 1


def without(lines: list[str], *texts: str) -> list[str]:
    return [line for line in lines if line not in texts]


def replaced(lines: list[str], old: str, *new: str) -> list[str]:
    at = lines.index(old)
    return lines[:at] + list(new) + lines[at + 1 :]


def missing_two_cards(lines: list[str]) -> tuple[list[str], int | None, str | None]:
    prompts = [f"- {n} question for {c}?" for n in ("First", "Second") for c in ("7H", "KS")]
    kept = without(lines, "## 7H", "## KS", *prompts)
    return kept, len("\n".join(kept).splitlines()), None


Case = Callable[[list[str]], tuple[list[str], int | None, str | None]]

CASES: dict[str, tuple[Case, str]] = {
    "missing-header": (lambda ls: (ls[5:], 2, None), "must start with a header"),
    "unclosed-header": (lambda ls: (ls[:4] + ls[5:], 1, None), "not closed"),
    "bad-header-line": (
        lambda ls: (replaced(ls, "title: Test pack", "just some words"), 4, None),
        "is not 'key: value'",
    ),
    "unknown-header-key": (
        lambda ls: (replaced(ls, "title: Test pack", "colour: red"), 4, None),
        "unknown header key 'colour'",
    ),
    "duplicate-header-key": (
        lambda ls: (replaced(ls, "title: Test pack", "title: One", "title: Two"), 5, None),
        "already given on line 4",
    ),
    "missing-name": (lambda ls: (without(ls, "name: mine"), 4, None), "needs a 'name:'"),
    "missing-language": (
        lambda ls: (without(ls, "language: en"), 4, None),
        "needs a 'language:'",
    ),
    "bad-name": (
        lambda ls: (replaced(ls, "name: mine", "name: My Pack!"), 2, None),
        "bad pack name 'My Pack!'",
    ),
    "unsupported-language": (
        lambda ls: (replaced(ls, "language: en", "language: fr"), 3, None),
        "unsupported language 'fr'",
    ),
    "header-too-long": (
        lambda ls: (replaced(ls, "title: Test pack", "title: " + "x" * 301), 4, None),
        "the title is 301 characters",
    ),
    "unknown-card": (
        lambda ls: (replaced(ls, "## 7H", "## 11H"), line_of(ls, "## 7H"), None),
        "unknown card code '11H'",
    ),
    "duplicate-card": (
        lambda ls: (replaced(ls, "## 8H", "## 7H"), line_of(ls, "## 8H"), "7H"),
        f"already has a section on line {line_of(pack_lines(), '## 7H')}",
    ),
    "missing-cards": (missing_two_cards, "2 missing cards: 7H, KS"),
    "no-prompts": (
        lambda ls: (
            without(ls, "- First question for 7H?", "- Second question for 7H?"),
            line_of(ls, "## 7H"),
            "7H",
        ),
        "no prompts; a card takes 1 to 4",
    ),
    "too-many-prompts": (
        lambda ls: (
            replaced(ls, "## 7H", "## 7H", "- One?", "- Two?", "- Three?"),
            line_of(ls, "## 7H"),
            "7H",
        ),
        "5 prompts; a card takes 1 to 4",
    ),
    "empty-prompt": (
        lambda ls: (
            replaced(ls, "- First question for 7H?", "-"),
            line_of(ls, "- First question for 7H?"),
            "7H",
        ),
        "empty prompt",
    ),
    "prompt-too-long": (
        lambda ls: (
            replaced(ls, "- First question for 7H?", "- " + "w" * 500 + "?"),
            line_of(ls, "- First question for 7H?"),
            "7H",
        ),
        "501 characters long; the limit is 500",
    ),
    "duplicate-prompt": (
        lambda ls: (
            replaced(ls, "- First question for 8H?", "- FIRST   question, for 7H!"),
            line_of(ls, "- First question for 8H?"),
            "8H",
        ),
        f"the same as card 7H's on line {line_of(pack_lines(), '- First question for 7H?')}",
    ),
    "outside-card": (
        lambda ls: (replaced(ls, "", "Some introduction."), 6, None),
        "text outside a card section",
    ),
    "stray-text": (
        lambda ls: (
            replaced(ls, "## 7H", "## 7H", "A loose sentence."),
            line_of(ls, "## 7H") + 1,
            "7H",
        ),
        "a card section holds '- ' prompts",
    ),
    "bad-heading": (
        lambda ls: (replaced(ls, "## 7H", "### 7H"), line_of(ls, "## 7H"), None),
        "unexpected heading '### 7H'",
    ),
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_each_malformed_kind_has_its_own_clear_error(code: str) -> None:
    mutate, fragment = CASES[code]
    lines, line, card = mutate(pack_lines())
    with pytest.raises(PackError) as caught:
        parse_pack("\n".join(lines), source="mine.en.md")
    [problem] = [p for p in caught.value.problems if p.code == code]
    assert (problem.line, problem.card) == (line, card)
    assert fragment in problem.message
    located = f"mine.en.md:{line}:" + (f" card {card}:" if card else "")
    assert any(text.startswith(located) and fragment in text for text in caught.value.lines())


def test_the_message_names_line_and_card_in_prose() -> None:
    lines, _, _ = CASES["too-many-prompts"][0](pack_lines())
    with pytest.raises(PackError) as caught:
        parse_pack("\n".join(lines))
    line = line_of(pack_lines(), "## 7H")
    assert str(caught.value) == f"line {line}, card 7H: 5 prompts; a card takes 1 to 4"


def test_reserved_name_is_refused_with_its_line() -> None:
    with pytest.raises(PackError) as caught:
        parse_pack("\n".join(pack_lines(name="standard")), reserved={"standard"})
    [problem] = caught.value.problems
    assert (problem.code, problem.line) == ("reserved-name", 2)
    assert "belongs to a shipped pack" in problem.message


@pytest.mark.parametrize("text", ["", "\n  \n"])
def test_an_empty_file_is_refused(text: str) -> None:
    with pytest.raises(PackError) as caught:
        parse_pack(text)
    assert [p.code for p in caught.value.problems] == ["empty-file"]


def test_a_file_over_the_size_cap_is_refused() -> None:
    text = "\n".join(pack_lines()) + "\n<!-- " + "x" * MAX_BYTES + " -->\n"
    with pytest.raises(PackError) as caught:
        parse_pack(text)
    [problem] = caught.value.problems
    assert problem.code == "too-large" and f"at most {MAX_BYTES} bytes" in problem.message


def test_bytes_that_are_not_utf8_are_refused_with_their_line() -> None:
    lines = pack_lines()
    data = "\n".join(lines).encode("utf-8").replace(b"Test pack", b"Test \xff pack")
    with pytest.raises(PackError) as caught:
        parse_pack_bytes(data)
    [problem] = caught.value.problems
    assert (problem.code, problem.line) == ("not-utf8", line_of(lines, "title: Test pack"))
    assert "not UTF-8" in problem.message


def test_every_problem_is_reported_at_once() -> None:
    lines = replaced(pack_lines(), "language: en", "language: de")
    lines = replaced(lines, "- First question for 2S?", "-")
    with pytest.raises(PackError) as caught:
        parse_pack("\n".join(lines))
    assert [p.code for p in caught.value.problems] == ["unsupported-language", "empty-prompt"]


def test_valid_file_parses_with_comments_bom_continuations_and_aliases() -> None:
    lines = replaced(pack_lines(), "title: Test pack", "License: CC0", "<!-- a note -->")
    lines = replaced(lines, "- First question for AH?", "- A question that", "  #3 goes on?")
    pack = parse_pack("\ufeff" + "\r\n".join(lines))
    assert pack.licence == "CC0" and pack.title == "mine"
    assert pack.prompts["AH"] == ("A question that\n#3 goes on?", "Second question for AH?")
    assert parse_pack(pack_to_text(pack)) == pack


def test_lower_case_card_codes_are_accepted() -> None:
    pack = parse_pack("\n".join(replaced(pack_lines(), "## 10D", "## 10d")))
    assert "10D" in pack.prompts


# --- registry -----------------------------------------------------------------------------


def test_list_packs_shows_shipped_and_user_packs(tmp_path: Path) -> None:
    save_pack("\n".join(pack_lines(language="ja")), tmp_path)
    found = [(pack.name, pack.language) for pack in list_packs(tmp_path)]
    assert found == [("standard", "en"), ("standard", "ja"), ("mine", "ja")]


def test_save_pack_stores_canonical_text_and_get_pack_reads_it(tmp_path: Path) -> None:
    saved = save_pack("\n".join(pack_lines()).encode("utf-8"), tmp_path / "packs")
    assert (tmp_path / "packs" / "mine.en.md").read_text(encoding="utf-8") == pack_to_text(saved)
    assert get_pack("mine", "en", tmp_path / "packs") == saved


def test_save_pack_refuses_to_overwrite_the_standard_pack(tmp_path: Path) -> None:
    with pytest.raises(PackError, match="belongs to a shipped pack"):
        save_pack("\n".join(pack_lines(name="standard")), tmp_path)
    assert not list(tmp_path.iterdir())


def test_save_pack_validates_before_writing(tmp_path: Path) -> None:
    with pytest.raises(PackError):
        save_pack("\n".join(pack_lines()[:-20]), tmp_path)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("name", "language"), [("nothing", "en"), ("standard", "fr"), ("../etc", "en")]
)
def test_get_pack_refuses_unknown_packs(tmp_path: Path, name: str, language: str) -> None:
    with pytest.raises(UnknownPackError):
        get_pack(name, language, tmp_path)


def test_a_broken_user_file_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "broken.en.md").write_text("not a pack", encoding="utf-8")
    assert [pack.name for pack in list_packs(tmp_path)] == ["standard", "standard"]


# --- the command line ---------------------------------------------------------------------


def run(tmp_path: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(packs, ["--user-dir", str(tmp_path / "user"), *args])
    return result.exit_code, result.output


def test_cli_validate_ok(tmp_path: Path) -> None:
    code, output = run(tmp_path, "validate", str(SHIPPED_DIR / "standard.ja.md"))
    assert (code, output) == (0, "ok: standard (ja), 52 cards, 104 prompts\n")


def test_cli_validate_prints_every_problem_and_fails(tmp_path: Path) -> None:
    lines = replaced(pack_lines(), "## 7H", "## 7H", "- One?", "- Two?", "- Three?")
    lines = replaced(lines, "name: mine", "name: Mine")
    path = tmp_path / "mine.en.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    code, output = run(tmp_path, "validate", str(path))
    heading = line_of(pack_lines(), "## 7H")
    assert code == 1
    assert output.splitlines() == [
        f"{path}:2: bad pack name 'Mine': use 1 to 40 of a-z, 0-9 and '-', not at either end",
        f"{path}:{heading}: card 7H: 5 prompts; a card takes 1 to 4",
    ]


def test_cli_install_then_list(tmp_path: Path) -> None:
    path = tmp_path / "upload.md"
    path.write_text("\n".join(pack_lines(language="ja")), encoding="utf-8")
    assert run(tmp_path, "install", str(path)) == (
        0,
        f"installed: mine (ja), 52 cards, 104 prompts in {tmp_path / 'user'}\n",
    )
    code, output = run(tmp_path, "list")
    assert code == 0
    assert output.splitlines() == ["standard (en, ja): The standard pack", "mine (ja): Test pack"]


def test_cli_install_refuses_a_bad_file(tmp_path: Path) -> None:
    path = tmp_path / "upload.md"
    path.write_text("\n".join(pack_lines(name="standard")), encoding="utf-8")
    code, output = run(tmp_path, "install", str(path))
    assert code == 1 and f"{path}:2: the name 'standard' belongs to a shipped pack" in output


def test_cli_show_json_has_every_card(tmp_path: Path) -> None:
    code, output = run(tmp_path, "show", "standard", "--lang", "ja", "--json")
    data = json.loads(output)
    assert code == 0 and (data["name"], data["language"]) == ("standard", "ja")
    assert [card["card"] for card in data["cards"]] == list(CARDS)
    assert all(len(card["prompts"]) == 2 for card in data["cards"])


def test_cli_show_text_and_unknown_pack(tmp_path: Path) -> None:
    code, output = run(tmp_path, "show", "standard")
    assert code == 0 and "\nKS\n  0. " in output
    code, output = run(tmp_path, "show", "nothing")
    assert code == 1 and "no pack 'nothing'" in output
