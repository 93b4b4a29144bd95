"""Exports of a chronicle: the PDF book, a Markdown file and the JSON backup (and its import).

The PDF is rendered by WeasyPrint in a separate process (``worker``), queued in the ``exports``
table (``jobs``); Markdown and JSON are quick enough to make during a request. See
``docs/exports.md``.
"""

from __future__ import annotations

FORMATS = ("pdf", "md", "json")
EDITIONS = ("story", "annotated")
PAPERS = ("a5", "a4", "b6")
DEFAULT_EDITION = "annotated"
DEFAULT_PAPER = "a5"
