"""A Babel extractor for the card games' rules: each block of a game's English rules source,
as the rules page asks for it, ``pgettext(<game key>, block)``.

``babel.cfg`` names the extractor and gives each rules file its game's message context::

    [extractors]
    rules_markdown = companion.ops.i18n_extract:extract_rules

    [rules_markdown: companion/cardgames/traitors_flame/rules.md]
    context = traitors-flame
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import IO, Any

from companion.text.blocks import blocks

Extracted = tuple[int, str, tuple[str, str], list[str]]


def extract_rules(
    fileobj: IO[bytes],
    keywords: Collection[str],
    comment_tags: Collection[str],
    options: Mapping[str, Any],
) -> Iterator[Extracted]:
    """Every block of a rules Markdown file as a ``pgettext`` message in the file's context."""
    context = options.get("context")
    if not context:
        name = getattr(fileobj, "name", "a rules file")
        raise ValueError(f"babel.cfg gives {name!r} no context: add 'context = <game key>'")
    text = fileobj.read().decode(options.get("encoding", "utf-8"))
    for block in blocks(text):
        yield block.lineno, "pgettext", (str(context), block.text), []
