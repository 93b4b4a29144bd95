"""A sample life whose first answers are hostile Markdown: nesting far deeper than any book lays out."""

from __future__ import annotations

from dataclasses import replace

from companion.legacy import State, start, step
from companion.legacy.commands import AnswerPrompt
from companion.samples import load_sample, sample_commands, sample_setup

DEEP_TEXTS = [
    ">" * 10_000,
    "> " * 5_000,
    "".join("> " * depth + f"line {depth}\n" for depth in range(1, 130)),
    "".join("  " * depth + "- item\n" for depth in range(130)),
    "- " * 5_000 + "end",
    "> - " * 2_500 + "end",
]


def hostile_life(texts: list[str], language: str = "en") -> State:
    """The sample life with its first answers replaced by ``texts``."""
    sample = load_sample(language)
    state, _ = start(sample_setup(sample))
    hostile = iter(texts)
    for command in sample_commands(sample):
        if isinstance(command, AnswerPrompt):
            command = replace(command, answer=next(hostile, command.answer))
        state, _ = step(state, command)
    return state
