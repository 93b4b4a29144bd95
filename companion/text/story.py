"""The story as a reader sees it: chapters per stage and the life timeline, from the state.

Shared by the story page, the end page and the exports; no Flask here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from markupsafe import Markup

from companion.legacy import State
from companion.legacy.cards import ROUNDS_PER_STAGE, STAGES, Stage
from companion.legacy.model import KeystoneState, Mark, Roll, TurningPoint
from companion.legacy.texts import texts_of
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


# A story page holds turning points until their texts pass this many bytes (UTF-8, what a phone
# downloads); a turning point is never split, so a page holds at least one. A life of everyday
# answers is one page; a long one is read a few chapters' worth at a time.
PAGE_BYTES = 60_000
POINT_BYTES = 1_500  # what a turning point's card, dice and headings weigh besides its texts


@dataclass(frozen=True)
class StoryPage:
    """One page of the story: its number (from 1), the part of each chapter it holds, and the
    seq of the turning points on it (the first one names the page: ``?at=`` in its address)."""

    number: int
    chapters: tuple[Chapter, ...]
    seqs: tuple[int, ...]

    @property
    def first(self) -> int:
        """The seq that names the page (0 for a life with nothing written yet)."""
        return self.seqs[0] if self.seqs else 0


def split_pages(weights: Sequence[int], budget: int) -> list[range]:
    """Consecutive runs of the items weighing ``weights``: each run goes on while the next item
    still fits within ``budget``, and holds at least one item (an item heavier than the budget
    is a run of its own). At least one run, empty when there are no items."""
    runs: list[range] = []
    start, held = 0, 0
    for index, weight in enumerate(weights):
        if index > start and held + weight > budget:
            runs.append(range(start, index))
            start, held = index, 0
        held += weight
    runs.append(range(start, len(weights)))
    return runs


def point_weight(state: State, point: TurningPoint) -> int:
    """What a turning point weighs on a story page: its texts' bytes and its fixed markup."""
    texts = [t.value for t in texts_of(point)]
    if point.prompt:
        texts.append(point.prompt)
    if point.mark is not None and point.mark < len(state.marks):
        texts.extend(t.value for t in texts_of(state.marks[point.mark]))
    return POINT_BYTES + sum(len(t.encode("utf-8", "surrogatepass")) for t in texts)


def story_pages(state: State, budget: int = PAGE_BYTES) -> list[StoryPage]:
    """The story cut into pages of about ``budget`` bytes of text, in reading order. A chapter
    that runs over a page's end goes on at the start of the next; a stage reached with nothing
    written yet ends the page before it (the last, as it is where the life is now)."""
    chapters = story_chapters(state)
    points = [(c, tp) for c in chapters for tp in c.turning_points]
    runs = split_pages([point_weight(state, tp) for _c, tp in points], budget)
    pages = []
    for number, run in enumerate(runs, 1):
        held = [points[i] for i in run]
        seqs = tuple(tp.seq for _c, tp in held)
        parts = [
            replace(c, turning_points=tuple(tp for held_c, tp in held if held_c is c))
            for c in chapters
            if any(held_c is c for held_c, _tp in held)
            or (not c.turning_points and _empty_chapter_page(chapters, c, runs) == run)
        ]
        pages.append(StoryPage(number, tuple(parts), seqs))
    return pages


def _empty_chapter_page(chapters: list[Chapter], chapter: Chapter, runs: list[range]) -> range:
    """The run a chapter with nothing written goes on: the one holding the turning point just
    before it (the first run when none is)."""
    before = sum(len(c.turning_points) for c in chapters[: chapters.index(chapter)])
    return next((run for run in runs if before - 1 in run), runs[0])


def page_at(pages: Sequence[StoryPage], at: int | None) -> StoryPage:
    """The page holding turning point ``at`` (or, for a seq that names none, the last one that
    starts at or before it; the first for 0). None: the last page, where the life is now."""
    if at is None:
        return pages[-1]
    return next((p for p in reversed(pages) if p.first <= at), pages[0])


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
