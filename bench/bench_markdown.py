"""Markdown rendering on hostile texts next to ordinary prose of the same length.

Run: ``.venv/bin/python bench/bench_markdown.py [--runs N] [--size 20000]``.

Every case is a text of ``--size`` characters (the longest text a player can save) made by
repeating one pattern: the inputs that make Markdown parsers or HTML sanitizers super-linear
(unclosed brackets, link and image openers, backtick runs, list and quote markers, emphasis
runs, ``<``, ``&#``, reference definitions, backslashes, table pipes, deep nesting, and
mixtures). Each is rendered by ``render_markdown`` (parse, flatten, demote, clean) with its
cache bypassed; the median CPU time of ``--runs`` runs is printed (CPU time, so that other
load on the machine skews it less), then the worst case and its ratio to
ordinary prose measured in the same run. Target: worst case at most 50 ms and 5 times the prose.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.text.markdown import _render  # noqa: E402

PATTERNS = {
    "brackets": "[",
    "closed brackets": "[]",
    "link openers": "[a](",
    "link with spaces": "[a](b ",
    "image openers": "![",
    "empty images": "![]",
    "backtick runs": "``a`",
    "single backticks": "`a",
    "list markers": "-\n",
    "nested list markers": "- ",
    "ordered markers": "1. ",
    "quote markers": ">",
    "spaced quotes": "> ",
    "emphasis runs": "*a",
    "strong runs": "**a",
    "underscores": "_a",
    "emphasis mix": "*_",
    "strike runs": "~~a",
    "angle brackets": "<",
    "tag openers": "<a",
    "autolink openers": "<a:",
    "char references": "&#",
    "ampersands": "&",
    "reference definitions": "[a]: x\n",
    "references in use": "[a][b]",
    "backslashes": "\\",
    "hard breaks": "a\\\n",
    "table pipes": "|",
    "table rows": "|a|\n",
    "short lines": "a\n",
    "fences": "```\n",
    "headings": "# ",
    "mixture": "[*_`<&#!\\",
    "quote list mixture": "> - ",
    "parentheses": "(",
}
PROSE = (
    "The wind came down from the hills and the *old* house held its breath. She wrote the "
    "names of the dead on the door, one by one, and **none** of them answered. Later, by the "
    "fire, her brother read the [letters](https://example.org) aloud.\n\n"
    "- the key to the cellar\n- a rope, *frayed*\n\n> Nobody leaves before the thaw.\n\n"
)


def repeat(pattern: str, size: int) -> str:
    """``pattern`` repeated to exactly ``size`` characters."""
    return (pattern * (size // len(pattern) + 1))[:size]


def deep_list(size: int) -> str:
    """A list nested by indentation as deep as ``size`` characters allow."""
    lines, depth = [], 0
    while sum(map(len, lines)) < size:
        lines.append("  " * depth + "- item\n")
        depth += 1
    return "".join(lines)[:size]


def median_ms(text: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        _render(text)
        times.append(time.process_time() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--size", type=int, default=20_000)
    args = parser.parse_args()
    cases = {name: repeat(p, args.size) for name, p in PATTERNS.items()}
    cases["deep indented list"] = deep_list(args.size)
    prose = median_ms(repeat(PROSE, args.size), args.runs)
    results = sorted(((median_ms(t, args.runs), name) for name, t in cases.items()), reverse=True)
    for ms, name in results:
        print(f"{name:24} {ms:8.2f} ms")
    worst, name = results[0]
    print(f"{'prose':24} {prose:8.2f} ms")
    print(f"worst: {name} {worst:.2f} ms, {worst / prose:.1f}x the prose")


if __name__ == "__main__":
    main()
