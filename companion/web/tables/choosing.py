"""A card table's choices as steps (card, then target, then payment or option), so a phone shows
a handful of buttons at each level; each game's ``boards/<game>/steps.py`` names the steps (and
may say, by ``step_order``, which choices its levels show first)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from companion.web.boards import Board, board_for

Action = dict[str, Any]
SEPARATOR = " › "


@dataclass(frozen=True)
class Choice:
    """One legal action, its button text and the steps that lead to it."""

    action: Action
    label: str
    steps: tuple[str, ...]


@dataclass(frozen=True)
class Step:
    """A button (``action`` set: it submits) or a level that opens further steps."""

    label: str
    key: str  # the path so far: a half-made choice is found again after a live refresh
    action: Action | None = None
    children: tuple[Step, ...] = ()


@dataclass(frozen=True)
class Choosing:
    """Every choice of the viewing seat, flat and as a tree of steps."""

    choices: tuple[Choice, ...]
    steps: tuple[Step, ...]

    def __len__(self) -> int:
        return len(self.choices)

    def __iter__(self) -> Iterator[tuple[Action, str]]:
        return iter((c.action, c.label) for c in self.choices)


def with_steps(
    key: str,
    choices: Sequence[tuple[Action, str]],
    view: dict[str, Any],
    names: Sequence[str] | None = None,
) -> Choosing:
    """Attach the game's steps to each (action, label) and group them level by level, in the
    order the board's ``step_order`` gives (the flat list keeps the engine's order)."""
    board = board_for(key)
    made = tuple(
        Choice(action, label, _path(board, action, label, view, names)) for action, label in choices
    )
    shown = sorted(made, key=lambda c: board.step_order(c.action, view))
    return Choosing(made, tree(shown))


def _path(
    board: Board, action: Action, label: str, view: dict[str, Any], names: Sequence[str] | None
) -> tuple[str, ...]:
    """The board's step labels for a choice (its own label when the board gives none)."""
    return board.steps(action, label, view, names) or (label,)


def tree(choices: Sequence[Choice], depth: int = 0, prefix: str = "") -> tuple[Step, ...]:
    """Choices grouped by their step at ``depth``; a group of one is its own button, and a level
    holding a single group opens straight onto that group's steps."""
    groups: dict[tuple[str, int], list[Choice]] = {}
    for i, choice in enumerate(choices):
        last = depth >= len(choice.steps) - 1  # its own button: never grouped with another
        groups.setdefault((choice.label, i) if last else (choice.steps[depth], -1), []).append(
            choice
        )
    level = tuple(_step(name, group, depth, prefix) for (name, _i), group in groups.items())
    if len(level) == 1 and level[0].children:
        return level[0].children
    return level


def _step(name: str, group: list[Choice], depth: int, prefix: str) -> Step:
    if len(group) == 1:
        only = group[0]
        return Step(only.label, prefix + only.label, only.action)
    key = prefix + name + SEPARATOR
    return Step(name, key, None, tree(group, depth + 1, key))
