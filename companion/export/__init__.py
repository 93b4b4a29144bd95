"""Exports of a chronicle: the PDF books, the booklet, the EPUB, the Obsidian vault, a Markdown
file and the JSON backup.

Books (every PDF layout, the EPUB and the vault) are made in a separate process (``worker``), queued in the
``exports`` table (``jobs``); Markdown and JSON are quick enough to make during a request. See
``docs/exports.md``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Edition:
    """What an edition prints beside the players' story (its name: ``rendering.edition_name``)."""

    key: str
    # The game's workings: each roll's dice, the payments, the keystones lost by name, the
    # outcome of each turning point and the reroll tokens left unspent.
    mechanics: bool


# The books (``editions.KINDS``) and the files made at once.
FORMATS = ("pdf", "epub", "vault", "md", "json")
EDITION_TABLE = {
    edition.key: edition
    for edition in (Edition("story", mechanics=False), Edition("annotated", mechanics=True))
}
EDITIONS = tuple(EDITION_TABLE)
PAPERS = ("a5", "a4", "b6", "a6", "shinsho", "half-letter")
DEFAULT_EDITION = "annotated"
DEFAULT_PAPER = "a5"
DEFAULT_LAYOUT = "book"
DEFAULT_THICKNESS_MM = 0.1  # 上質紙 70 kg, the usual paper of a Japanese self-published novel
THICKNESS_RANGE_MM = (0.04, 0.3)
# A PDF whose text fills more pages than this (A5 pages estimated from its length) is laid out a
# few chapters at a time, each part in a process of its own (``parts``): one layout of the
# largest legal life takes about 1 GB, a part of this size a third of it. 0: always one piece.
DEFAULT_PART_PAGES = 200
# About how many characters of text fill a page (Japanese characters; Latin letters are
# narrower, LATIN_FACTOR to one), to turn a text's length into pages.
CHARS_PER_PAGE = {"a5": 520, "a4": 1150, "b6": 400, "a6": 300, "shinsho": 330, "half-letter": 530}
LATIN_FACTOR = 2.6


def text_pages(text: str, paper: str = "a5") -> float:
    """About how many pages of ``paper`` this much text fills (Latin letters are narrower)."""
    latin = sum(1 for char in text if char.isascii())
    return (len(text) - latin + latin / LATIN_FACTOR) / CHARS_PER_PAGE.get(paper, 520)
