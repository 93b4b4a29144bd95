"""A short life whose texts hold ruby (furigana) and emphasis dots, for the books' pictures."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from companion.legacy import (
    AnswerPrompt,
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

RUBY_TEXT = (
    "春の終わり、｜波乃《なみの》は浜で小さな舟を見つけた。舟の名は凪《なぎ》といい、"
    "祖父が遺した最後の舟だった。村の者は皆、その舟を《《呪われている》》と言った。"
    "けれど波乃は櫂を握り、朝霧の海へ漕ぎ出した。沖では鷗《かもめ》が鳴き、"
    "遠い島影が揺れていた。波乃は祖父の言葉を思い出した。"
    "「海は｜逆巻く《さかまく》ときほど静かに聞け」と。\n\n"
    "二日目の夜、嵐が来た。舟は木の葉のように揺れ、帆は裂けた。"
    "それでも波乃は舵を離さなかった。｜灯《ともしび》がひとつ、闇の向こうに見えた。"
    "読みの長い名もある。｜鷲《わしのようにたかくとぶものとよばれたむかしのえいゆう》の名を、"
    "波乃は声に出さずに唱えた。｜《これは括弧ではない》と記した頁もある。"
)
RUBY_TEXT_EN = (
    "In late spring Nami found a small boat on the shore. Its name was written |凪《nagi》, "
    "calm, and it was the last boat her grandfather left. The villagers said it was "
    "《《cursed》》. Still she took the oar and rowed out into the morning mist, where "
    "the gulls cried and the far island trembled. She remembered her grandfather's words: "
    "listen to the sea most quietly when it |逆巻く《sakamaku》, when it churns.\n\n"
    "On the second night a storm came. The boat rocked like a leaf and the sail tore. "
    "Still she held the tiller. A single light, |灯《tomoshibi》, showed beyond the dark."
)


def ruby_life(
    language: str = "ja",
    turning_points: int = 2,
    text: str | None = None,
    prompts: Mapping[str, tuple[str, ...]] | None = None,
) -> State:
    """A life of a few turning points whose answers hold ruby and emphasis dots (or ``text``),
    each answering its card's first prompt (from ``prompts`` if given, a pack's)."""
    setup = sample_setup(load_sample(language))
    if prompts is not None:
        setup = dataclasses.replace(setup, prompts=prompts)
    state, _ = start(setup)
    if text is None:
        text = RUBY_TEXT if language == "ja" else RUBY_TEXT_EN
    for turn in range(1, turning_points + 1):
        seat = state.seat
        pile = PILES[pile_index(state.stage, (turn - 1) % 3 + 1)]
        card = next(c for c in PILE_CARDS[pile] if c in state.pile_cards(pile))
        commands: list[Any] = [
            DrawCard(seat, card),
            ChoosePrompt(seat, 0),
            AnswerPrompt(seat, text),
            DeclareStakes(seat, "成功", "失敗"),
            RollDice(seat, [6] + [1] * (state.dice - 1)),
            NarrateSuccess(seat, "波乃は帰った。" if language == "ja" else "She came home."),
        ]
        for command in commands:
            state, _ = step(state, command)
    return state
