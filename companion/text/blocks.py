"""A Markdown text cut into the blocks a translator translates whole, and put back together.

A block is a heading, a paragraph, a list item with its continuation lines, or a table. Its
message is the block's words with their inline Markdown (emphasis, links, hard breaks); the
marks that give the block its shape (``#``, ``-``, ``1.``, the continuation indent) stay out of
the message and are put back around the translation, so a translation cannot break the page's
structure. The rules pages are translated with these blocks and the extractor offers the same
blocks to the catalogue. No Flask here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

_HEADING = re.compile(r"(#{1,6}[ \t]+)(.*)")
_ITEM = re.compile(r"([ \t]*(?:[-+*]|[0-9]{1,9}[.)])[ \t]+)(.*)")


@dataclass(frozen=True)
class Block:
    """One translatable block: where it starts, its shape and its message."""

    lineno: int  # of its first line, counting from 1
    height: int  # how many source lines it spans
    marker: str  # "# ", "- ", "1. " or "": the block's shape, kept out of the message
    indent: str  # in front of each continuation line of a list item
    text: str  # the message

    def dressed(self, text: str) -> str:
        """``text`` (this block's message or its translation) in the block's shape."""
        first, *rest = text.split("\n")
        return "\n".join([self.marker + first, *(self.indent + line for line in rest)])


def blocks(markdown: str) -> list[Block]:
    """Every translatable block of ``markdown``, in order."""
    return list(_scan(markdown.split("\n")))


def translate(markdown: str, translated: Callable[[str], str]) -> str:
    """``markdown`` with each block's message replaced by ``translated(message)``; the blank
    lines between blocks are kept as they are."""
    lines = markdown.split("\n")
    out: list[str] = []
    done = 0
    for block in blocks(markdown):
        out.extend(lines[done : block.lineno - 1])
        out.append(block.dressed(translated(block.text)))
        done = block.lineno - 1 + block.height
    out.extend(lines[done:])
    return "\n".join(out)


def _scan(lines: list[str]) -> Iterator[Block]:
    at = 0
    while at < len(lines):
        if not lines[at].strip():
            at += 1
            continue
        block = _block(lines, at)
        yield block
        at += block.height


def _block(lines: list[str], at: int) -> Block:
    line = lines[at]
    heading = _HEADING.fullmatch(line)
    if heading:
        return Block(at + 1, 1, heading.group(1), "", heading.group(2))
    item = _ITEM.fullmatch(line)
    if item:
        return _item(lines, at, item)
    if line.lstrip().startswith("|"):
        return _run(lines, at, lambda next_line: next_line.lstrip().startswith("|"))
    return _run(lines, at, lambda next_line: not _starts_block(next_line))


def _item(lines: list[str], at: int, item: re.Match[str]) -> Block:
    """A list item and the indented lines under it, up to the next item or a blank line."""
    end = at + 1
    while end < len(lines) and lines[end][:1] in (" ", "\t") and not _ITEM.fullmatch(lines[end]):
        end += 1
    rest = lines[at + 1 : end]
    indent = _indent(rest[0]) if rest else " " * len(item.group(1))
    text = "\n".join([item.group(2), *(line.lstrip(" \t") for line in rest)])
    return Block(at + 1, end - at, item.group(1), indent, text)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _run(lines: list[str], at: int, goes_on: Callable[[str], bool]) -> Block:
    """A paragraph or a table: its first line and the lines after it that ``goes_on`` keeps."""
    end = at + 1
    while end < len(lines) and lines[end].strip() and goes_on(lines[end]):
        end += 1
    return Block(at + 1, end - at, "", "", "\n".join(lines[at:end]))


def _starts_block(line: str) -> bool:
    """Whether ``line`` ends the paragraph before it: a heading, a list item or a table."""
    return bool(_HEADING.fullmatch(line) or _ITEM.fullmatch(line) or line.lstrip()[:1] == "|")
