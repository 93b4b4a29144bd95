"""A life whose names and texts hold every kind of character a person may type, for the books.

Emoji ZWJ sequences (every one in ``data/emoji-zwj-sequences.txt``), kana, kanji of JIS X 0213
levels 1 to 4, Latin with diacritics, Greek, Cyrillic, Hangul and symbols.
"""

from __future__ import annotations

import unicodedata
from dataclasses import replace
from pathlib import Path
from typing import Any

from companion.legacy import (
    AnswerPrompt,
    BuildMark,
    ChoosePrompt,
    DeclareStakes,
    DrawCard,
    NarrateSuccess,
    RollDice,
    State,
    start,
    step,
)
from companion.legacy.cards import PILE_CARDS, PILES, pile_index
from companion.samples import load_sample, sample_setup

DATA = Path(__file__).resolve().parent / "data"


def zwj_sequences() -> list[str]:
    """Every emoji ZWJ sequence of the kept list."""
    lines = (DATA / "emoji-zwj-sequences.txt").read_text("utf-8").splitlines()
    sequences = [
        "".join(chr(int(code, 16)) for code in line.split(";")[0].split())
        for line in lines
        if line and not line.startswith("#")
    ]
    assert len(sequences) > 1000
    return sequences


def _jis(plane: int, rows: Any) -> list[str]:
    found = []
    for row in rows:
        for cell in range(1, 95):
            code = bytes([row + 0xA0, cell + 0xA0])
            try:
                char = (code if plane == 1 else b"\x8f" + code).decode("euc_jis_2004")
            except UnicodeDecodeError:
                continue
            if unicodedata.name(char[0], "").startswith("CJK"):
                found.append(char)
    return found


def jis_kanji() -> str:
    """Kanji of JIS X 0213: every seventh of levels 1 and 2, all of level 3, every third of
    level 4 (its characters beyond the BMP all)."""
    levels12 = _jis(1, range(16, 85))[::7]
    level3 = _jis(1, [*range(1, 16), *range(85, 95)])
    level4 = _jis(2, [1, 3, 4, 5, 8, 12, 13, 14, 15, *range(78, 95)])
    return "".join(levels12 + level3 + level4[::3] + [c for c in level4 if ord(c) > 0xFFFF])


KANA = (
    "".join(chr(c) for c in range(0x3041, 0x3097))
    + "".join(chr(c) for c in range(0x30A1, 0x30FB))
    + "ー・ｱｲｳｴｵｶﾞﾊﾟ"
)
LATIN = (
    "".join(chr(c) for c in range(0xC0, 0x250) if unicodedata.category(chr(c)).startswith("L"))
    + "ạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ"
)
GREEK = "".join(chr(c) for c in range(0x370, 0x400) if unicodedata.category(chr(c)).startswith("L"))
CYRILLIC = "".join(
    chr(c) for c in range(0x400, 0x526) if unicodedata.category(chr(c)).startswith("L")
)
HANGUL = "".join(chr(c) for c in range(0xAC00, 0xD7A4, 37)) + "ㄱㄴㄷㅏㅑㅓ"
SYMBOLS = "✓✗⚠★☆←→↑↓↔⇒⇐⇔♥♦♣♠♪☀☂☎✉✔✘©®™€£¥§¶†‡•°±×÷∞≠≤≥※〒〜…‥「」『』【】〈〉《》"
PLAYERS = ("🦊ゆき👩‍👩‍👧", "Zoë Ζωή Ёлка", "김민지 ✓")
PIONEER = "🌊波乃🌊"


def texts() -> list[str]:
    """The texts of the life: the emoji in two halves, then the scripts and symbols."""
    emoji = zwj_sequences()
    half = len(emoji) // 2
    # Each emoji of the sequences alone first: the monochrome face draws a sequence with skin
    # tones in the glyph of its base, and a PDF gives each glyph the text of its first use.
    alone = sorted({c for s in emoji for c in s if c not in "\u200d\ufe0f"})
    return [
        " ".join(alone) + "\n\n" + " ".join(emoji[:half]),
        " ".join(emoji[half:]),
        f"{KANA}\n\n{jis_kanji()}",
        f"{LATIN}\n\n{GREEK}\n\n{CYRILLIC}\n\n{HANGUL}\n\n{SYMBOLS}",
    ]


def every_character() -> set[str]:
    """The characters the books must draw (not the invisible joiners and selectors)."""
    wanted = set("".join(texts()) + "".join(PLAYERS) + PIONEER + SYMBOLS)
    return {c for c in wanted if not c.isspace() and unicodedata.category(c) not in ("Cf", "Mn")}


def characters_life(language: str = "ja") -> State:
    """Four turning points, one per text, told by players named with emoji and other scripts."""
    setup = sample_setup(load_sample(language))
    keystones = tuple(
        replace(k, name=f"{k.name} {SYMBOLS[i * 3 : i * 3 + 3]}")
        for i, k in enumerate(setup.keystones)
    )
    setup = replace(setup, pioneer=PIONEER, players=PLAYERS, keystones=keystones)
    state, _ = start(setup)
    for turn, text in enumerate(texts(), start=1):
        seat = state.seat
        pile = PILES[pile_index(state.stage, (turn - 1) % 3 + 1)]
        card = next(c for c in PILE_CARDS[pile] if c in state.pile_cards(pile))
        commands: list[Any] = [
            DrawCard(seat, card),
            ChoosePrompt(seat, 0),
            AnswerPrompt(seat, text),
            DeclareStakes(seat, "⚠ 成功 ✓", "失敗 ✗"),
            RollDice(seat, [6] + [1] * (state.dice - 1)),
        ]
        if turn == 3:
            commands.append(BuildMark(seat, "★ 印 👩‍👩‍👧", "→ 記す", "— ✔"))
        else:
            commands.append(NarrateSuccess(seat, f"{PIONEER} 👍🏽 ✓"))
        for command in commands:
            state, _ = step(state, command)
    return state
