"""The story as a reader sees it: chapters per stage and the life timeline, from the state.

Shared by the story page, the end page and the exports; no Flask here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

from companion.legacy import State
from companion.legacy.cards import ROUNDS_PER_STAGE, STAGES, Stage
from companion.legacy.model import KeystoneState, Mark, Roll, TurningPoint
from companion.text.svg import TimelineRound, timeline


@dataclass(frozen=True)
class Chapter:
    """One life stage of the story, with its turning points in order."""

    stage: Stage
    turning_points: tuple[TurningPoint, ...]
    marks: tuple[Mark, ...]
    fallen: tuple[KeystoneState, ...]  # keystones sacrificed or lost in this stage


def story_chapters(state: State) -> list[Chapter]:
    """The chapters reached so far, each with its turning points (the open check included)."""
    chapters = []
    for stage in STAGES:
        points = tuple(tp for tp in state.turning_points if tp.stage == stage.index)
        if not points and stage.index > state.stage:
            continue
        chapters.append(
            Chapter(
                stage,
                points,
                tuple(m for m in state.marks if m.stage == stage.index),
                tuple(k for k in state.keystones if k.status != "kept" and k.stage == stage.index),
            )
        )
    return chapters


def withdrawn_rolls(state: State) -> list[tuple[TurningPoint, Roll]]:
    """Every roll taken back (a mistyped face, a forgiving undo), with its turning point."""
    return [(tp, roll) for tp in state.turning_points for roll in tp.withdrawn]


def round_played(state: State, stage: int, round_: int) -> bool:
    """Whether the round has begun (or the life ended after it)."""
    if state.end is not None:
        return any(tp.stage == stage and tp.round == round_ for tp in state.turning_points)
    return (stage, round_) <= (state.stage, state.round)


def timeline_rounds(state: State) -> list[TimelineRound]:
    """The twelve rounds with their marks, sacrifices and losses."""
    rounds = []
    for stage in range(len(STAGES)):
        for number in range(1, ROUNDS_PER_STAGE + 1):
            mark = next((m for m in state.marks if (m.stage, m.round) == (stage, number)), None)
            fallen = [k for k in state.keystones if (k.stage, k.round) == (stage, number)]
            rounds.append(
                TimelineRound(
                    stage=stage,
                    round=number,
                    mark=mark.name.value if mark else None,
                    sacrifices=[k.keystone.name for k in fallen if k.status == "sacrificed"],
                    losses=[k.keystone.name for k in fallen if k.status == "lost"],
                    played=round_played(state, stage, number),
                )
            )
    return rounds


def life_timeline(state: State, stage_labels: Sequence[str], title: str) -> Markup:
    """The life timeline picture (SVG)."""
    return timeline(timeline_rounds(state), stage_labels, title)
