"""What a book or a Markdown file holds, taken from the state: shared by every export format.

No Flask here: the formats put the words around it in the chronicle's language.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.text.story import Chapter, story_chapters

from ..legacy import KINDS, KeystoneState, Mark, State, TurningPoint
from ..legacy.cards import STAGES
from . import EDITION_TABLE, EDITIONS, Edition


class EditionError(ValueError):
    """An edition or paper the exports do not know."""


@dataclass(frozen=True)
class Contents:
    """One chronicle's story, arranged for an edition: the cover facts, chapters and appendix."""

    state: State
    edition: str
    chapters: tuple[Chapter, ...]
    keystones: dict[str, KeystoneState]

    @property
    def features(self) -> Edition:
        """What this edition prints beside the story."""
        return EDITION_TABLE[self.edition]

    @property
    def language(self) -> str:
        return self.state.setup.language

    @property
    def marks(self) -> tuple[Mark, ...]:
        return self.state.marks

    @property
    def age_span(self) -> str:
        """The suggested ages the story covers, as "20–63+"."""
        return age_span(self.chapters)

    def keystones_of(self, kind: str) -> list[KeystoneState]:
        """The Pioneer's keystones of one kind, in setup order."""
        return [k for k in self.state.keystones if k.kind == kind]

    @property
    def kinds(self) -> tuple[str, ...]:
        return KINDS

    def mark_of(self, tp: TurningPoint) -> Mark | None:
        """The legacy mark built by this turning point, if any."""
        return self.state.marks[tp.mark] if tp.mark is not None else None


def contents(state: State, edition: str) -> Contents:
    """The story of ``state`` arranged for ``edition`` ("story" or "annotated")."""
    if edition not in EDITIONS:
        raise EditionError(f"unknown edition {edition!r}: use {' or '.join(EDITIONS)}")
    chapters = tuple(c for c in story_chapters(state) if c.turning_points)
    keystones = {k.id: k for k in state.keystones}
    return Contents(state, edition, chapters, keystones)


def age_span(chapters: tuple[Chapter, ...]) -> str:
    """From the first chapter's youngest suggested age to the last chapter's oldest."""
    stages = [c.stage for c in chapters] or [STAGES[0]]
    first = stages[0].age.split("-")[0]
    last = stages[-1].age.split("-")[-1]
    return first if first == last else f"{first}–{last}"
