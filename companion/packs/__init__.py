"""Prompt packs: the questions (問いかけ) each card offers, one human-editable file per language.

The file format lives in ``format.py`` (documented in ``docs/prompt-packs.md``), the installed
packs in ``registry.py`` and the ``companion packs`` commands in ``cli.py``.
"""

from companion.packs.format import CARDS, Pack, PackError, Problem, parse_pack, parse_pack_bytes

__all__ = ["CARDS", "Pack", "PackError", "Problem", "parse_pack", "parse_pack_bytes"]
