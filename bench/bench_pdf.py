"""The PDF book of a full life: our export next to WeasyPrint alone on the same HTML.

Run: ``.venv/bin/python bench/bench_pdf.py [--runs N] [--edition annotated] [--paper a5] [--emoji]``.
With ``--largest`` it makes the largest legal life instead (36 turning points of about 20,000
characters each, ten times the full life, every text within the chronicle's limit): the home
book (as one document, and in parts of at most ``--part-pages`` estimated pages, each laid out
in a process of its own: the peak of its largest part and of the process joining them) and the
print shop's body beside WeasyPrint alone on the same HTML, each with its CPU seconds, wall
seconds and peak memory, and what the print shop's last pass (crop marks and PDF/X-1a) costs on
its own. ``--life-scale N`` makes a smaller life (N times the full life's text) for a quicker
look.
With ``--editions`` it times the other books of the same life instead, each run alternating
between them: the home-printer PDF and WeasyPrint alone on its HTML, the print shop's body
(target: at most 1.3 times the home book), the booklet (at most 1.15 times the home book: the
finished book imposed, never typeset again), the vertical PDF printed by Chromium and one bare
Chromium ``page.pdf()`` of the same HTML (at most 1.3 times it: the book is printed once, only
its front matter again), the EPUB and the Obsidian vault. ``--emoji`` puts an emoji (ZWJ
sequences among them) after every sentence of the texts.

The life is built through the rules core in table mode: the sample life's Pioneer and keystones,
36 turning points (every round goes to its third turn; five build a legacy mark, the others fail
there, some after a sacrifice), each with about 2,000 characters of mixed Japanese and English
Markdown taken from both sample lives; then the same life with four times the text.

Every measurement runs in a fresh subprocess, so ``ru_maxrss`` is the peak memory of that
export alone (tracemalloc does not see WeasyPrint's C libraries). Each child imports WeasyPrint
(and Playwright) before its clock starts, ours and the baselines alike, so no side pays for an
import the other does not. "ours" times the whole export from the state (HTML from the
templates, then WeasyPrint with our fetcher); "WeasyPrint alone" times
``HTML(string=...).write_pdf()`` on the same HTML with WeasyPrint's default fetcher; "Chromium
alone" times launching the browser, opening the vertical book's HTML and one ``page.pdf()``.
Runs alternate between the kinds so other load on the machine skews them alike; medians are
printed, each with its baseline and the ratio.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.export import DEFAULT_PART_PAGES  # noqa: E402
from companion.legacy import (  # noqa: E402
    AcceptFailure,
    AnswerPrompt,
    BuildMark,
    ChoosePrompt,
    DeclareStakes,
    DrawCard,
    NarrateSuccess,
    RollDice,
    SacrificeKeystone,
    State,
    WriteEpilogue,
    start,
    step,
)
from companion.legacy.cards import PILE_CARDS, PILES, pile_index  # noqa: E402
from companion.samples import load_sample, sample_setup  # noqa: E402

EDITION_LABELS = {
    "ours": "home-printer PDF",
    "alone": "WeasyPrint alone",
    "print": "print shop (body)",
    "booklet": "booklet (A4 sheets)",
    "vertical": "vertical PDF",
    "chromium": "Chromium alone",
    "epub": "EPUB",
    "vault": "Obsidian vault",
}
EDITION_KINDS = tuple(EDITION_LABELS)
BASELINES = ("alone", "chromium")
# Each book against the baseline it is measured by, and the target ratio.
TARGETS = (
    ("ours", "alone", 1.2),
    ("print", "ours", 1.3),
    ("booklet", "ours", 1.15),
    ("vertical", "chromium", 1.3),
)
EMOJI = (
    "🦊",
    "🌊",
    "👩\u200d👩\u200d👧",
    "🏳\ufe0f\u200d🌈",
    "👨🏽\u200d💻",
    "❤\ufe0f\u200d🔥",
    "🐈\u200d⬛",
    "✨",
)
MARK_ROUNDS = {1, 3, 5, 7, 10}  # rounds (1-12) whose third turn builds a mark
SACRIFICE_ROUNDS = {2, 4, 6, 8}  # rounds whose second turn fails once and is bought back


def sample_texts() -> list[str]:
    """Every answer and narration of both sample lives, as Markdown paragraphs."""
    texts = []
    for language in ("ja", "en"):
        for command in load_sample(language)["commands"]:
            for field in ("answer", "narration", "why", "outcome"):
                if command.get(field):
                    texts.append(command[field])
    return texts


class Writer:
    """Mixed Japanese and English Markdown of a given length, drawn in turn from the samples;
    with ``emoji``, an emoji after every sentence."""

    def __init__(self, emoji: bool = False) -> None:
        self.texts = [_with_emoji(t) for t in sample_texts()] if emoji else sample_texts()
        self.next = 0

    def paragraph(self) -> str:
        text = self.texts[self.next % len(self.texts)]
        self.next += 1
        return text

    def write(self, chars: int, scale: int = 1) -> str:
        """About ``chars`` characters, ``scale`` times over (each time different text)."""
        return "\n\n".join(self._write(chars) for _ in range(scale))

    def _write(self, chars: int) -> str:
        parts: list[str] = []
        while sum(len(p) for p in parts) < chars:
            paragraph = self.paragraph()
            if len(parts) % 5 == 3:
                paragraph = f"> {paragraph}"
            elif len(parts) % 7 == 5:
                paragraph = f"- {paragraph[:120]}\n- **{paragraph[120:200]}**"
            parts.append(paragraph)
        return "\n\n".join(parts)


def _with_emoji(text: str) -> str:
    count = iter(range(10**6))
    return re.sub(r"(?<=[。.!?！？])", lambda _m: EMOJI[next(count) % len(EMOJI)], text)


def life(scale: int = 1, emoji: bool = False) -> State:
    """A full life of 36 turning points, about 2,000 characters of text each, ``scale`` times."""
    writer = Writer(emoji)
    state, _ = start(sample_setup(load_sample("ja")))
    for number in range(12):
        for turn in (1, 2, 3):
            state = _turning_point(state, writer, scale, number + 1, turn)
    state, _ = step(state, WriteEpilogue(0, writer.write(1000, scale)))
    assert state.ended and len(state.story) == 36, (state.end, len(state.story))
    return state


def _turning_point(state: State, writer: Writer, scale: int, round_: int, turn: int) -> State:
    seat = state.seat
    pile = PILES[pile_index(state.stage, turn)]
    card = next(c for c in PILE_CARDS[pile] if c in state.pile_cards(pile))
    commands: list[Any] = [
        DrawCard(seat, card),
        ChoosePrompt(seat, 0),
        AnswerPrompt(seat, writer.write(800, scale)),
        DeclareStakes(seat, writer.write(100, scale), writer.write(100, scale)),
    ]
    fails = turn == 3 and round_ not in MARK_ROUNDS
    bought = turn == 2 and round_ in SACRIFICE_ROUNDS and state.sacrifice_kind() is not None
    miss, hit = [1] * state.dice, [6] + [1] * (state.dice - 1)
    if bought:
        kind = state.sacrifice_kind()
        keystone = next(k.id for k in state.kept() if k.kind == kind)
        why, outcome = writer.write(200, scale), writer.write(200, scale)
        commands += [RollDice(seat, miss), SacrificeKeystone(seat, keystone, why, outcome)]
    commands.append(RollDice(seat, miss if fails else hit))
    narration = writer.write(500, scale)
    if fails:
        commands.append(AcceptFailure(seat, narration))
    elif turn == 3:
        description = writer.write(150, scale)
        commands.append(BuildMark(seat, writer.paragraph()[:24], description, narration))
    else:
        commands.append(NarrateSuccess(seat, narration))
    for command in commands:
        state, _ = step(state, command)
    return state


LARGEST_SCALE = 10  # ten times the full life: about 20,000 characters per turning point


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _timed_print_ready() -> dict[str, float]:
    """Wrap the print shop's last pass so the child can say what it cost (CPU seconds)."""
    from companion.export import pdfx, print_shop

    spent = {"print_ready": 0.0, "pdfx": 0.0}

    def timing(name: str, function: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            began = _cpu()
            try:
                return function(*args, **kwargs)
            finally:
                spent[name] += _cpu() - began

        return timed

    print_shop.print_ready = timing("print_ready", print_shop.print_ready)
    pdfx.make_pdfx = timing("pdfx", pdfx.make_pdfx)
    return spent


def child(kind: str, scale: int, html_path: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One measurement, in this (fresh) process: seconds, CPU seconds, peak memory, pages, bytes."""
    import weasyprint  # noqa: F401 - every side loads it before its clock starts

    from companion.app import create_app

    spent = _timed_print_ready() if kind == "print" else {}
    spent_children = 0.0

    static = ROOT / "static"
    if kind in ("vertical", "chromium"):
        import playwright.sync_api  # noqa: F401 - likewise
    if kind == "alone":
        from weasyprint import HTML

        html = html_path.read_text(encoding="utf-8")
        started, cpu = time.perf_counter(), _cpu()
        pdf = HTML(string=html, base_url=static.as_uri() + "/").write_pdf()
    elif kind == "chromium":
        started, cpu = time.perf_counter(), _cpu()
        pdf = _bare_chromium(html_path.with_suffix(".vertical.html"))
    else:
        from companion.export import editions
        from companion.export.book import make_book
        from companion.export.parts import home_book

        state = life(scale, args.emoji)
        app = create_app({"SECRET_KEY": "bench", "DATABASE": str(html_path) + ".db"})
        started, cpu = time.perf_counter(), _cpu()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        spent_children = before.ru_utime + before.ru_stime
        with app.app_context():
            if kind == "ours":
                pdf = make_book(state, args.edition, args.paper)
            elif kind == "parts":
                pdf = home_book(state, args.edition, args.paper, static, args.part_pages)
            else:
                pdf = editions.make(state, args.edition, args.paper, kind, static, key="bench")
    seconds, cpu = time.perf_counter() - started, _cpu() - cpu
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # A book in parts lays each out in a child of its own: the peak of the largest of them.
    part_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if kind == "parts" else 0
    figures = {"seconds": seconds, "cpu": cpu, "rss_mb": rss_kb / 1024, "bytes": len(pdf)}
    figures["part_rss_mb"] = part_kb / 1024
    if kind == "parts":  # its children's CPU too
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        figures["cpu"] += children.ru_utime + children.ru_stime - spent_children
    return {**figures, "pages": _pages(pdf), **spent}


def _bare_chromium(page_file: Path) -> bytes:
    """Launch Chromium as the vertical book does, open the page, print it once."""
    from playwright.sync_api import sync_playwright

    from companion.export.vertical import LAUNCH_ARGS, PDF_OPTIONS, chromium_path

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=LAUNCH_ARGS)
        try:
            page = browser.new_context(java_script_enabled=False, offline=True).new_page()
            page.goto(page_file.as_uri(), wait_until="load")
            pdf: bytes = page.pdf(**PDF_OPTIONS)
        finally:
            browser.close()
    return pdf


def _pages(pdf: bytes) -> int:
    import io

    from pypdf import PdfReader

    if pdf[:2] == b"PK":  # an EPUB or a vault: a zip, not pages
        return 0

    return len(PdfReader(io.BytesIO(pdf)).pages)


def measure(kind: str, scale: int, html: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Run one measurement in a subprocess and read its figures."""
    command = [sys.executable, __file__, "--child", kind, "--scale", str(scale)]
    command += ["--html", str(html), "--edition", args.edition, "--paper", args.paper]
    command += ["--emoji"] if args.emoji else []
    command += ["--part-pages", str(args.part_pages)]
    result = subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT)
    return json.loads(result.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def write_html(scale: int, folder: Path, args: argparse.Namespace) -> tuple[Path, int]:
    """The book's HTML for the life at ``scale`` (and the vertical book's, beside it, ready
    for Chromium), and the characters of text in the life."""
    from companion.app import create_app
    from companion.export.book import book_html
    from companion.legacy import iter_texts

    state = life(scale, args.emoji)
    app = create_app({"SECRET_KEY": "bench", "DATABASE": str(folder / "bench.db")})
    with app.app_context():
        html = book_html(state, args.edition, args.paper)
        if args.editions:
            from companion.export.vertical import vertical_html

            base = f'<base href="{(ROOT / "static").resolve().as_uri()}/">'
            tate = vertical_html(state, args.edition, args.paper)
            (folder / f"book-{scale}.vertical.html").write_text(
                tate.replace("<head>", "<head>" + base, 1), encoding="utf-8"
            )
    path = folder / f"book-{scale}.html"
    path.write_text(html, encoding="utf-8")
    return path, sum(len(text.value) for text in iter_texts(state))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--edition", default="annotated", choices=["story", "annotated"])
    parser.add_argument("--paper", default="a5", choices=["a5", "a4", "b6", "a6", "shinsho"])
    parser.add_argument("--editions", action="store_true", help="time every kind of book")
    parser.add_argument("--emoji", action="store_true", help="an emoji after every sentence")
    parser.add_argument("--largest", action="store_true", help="the largest legal life")
    parser.add_argument(
        "--only",
        help="with --editions: these kinds alone, comma-separated (e.g. vertical,chromium)",
    )
    parser.add_argument("--child", choices=(*EDITION_KINDS, "parts"))
    parser.add_argument(
        "--part-pages",
        type=int,
        default=DEFAULT_PART_PAGES,
        help="with --largest: the pages of a part of the book made in parts",
    )
    parser.add_argument(
        "--life-scale",
        type=int,
        default=LARGEST_SCALE,
        help="with --largest: a smaller life (this many times the full life's text)",
    )
    parser.add_argument("--scale", type=int, default=1)
    parser.add_argument("--html", type=Path)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.scale, args.html, args)))
        return
    if args.editions:
        report_editions(args)
        return
    if args.largest:
        report_largest(args)
        return
    report(args)


def report_largest(args: argparse.Namespace) -> None:
    """The largest legal life: our books beside WeasyPrint alone, CPU, wall time, peak memory."""
    from companion.base.limits import TEXT_LIMIT
    from companion.legacy import iter_texts

    kinds = ("ours", "parts", "alone", "print")
    scale = args.life_scale
    with tempfile.TemporaryDirectory() as tmp:
        html, chars = write_html(scale, Path(tmp), args)
        longest = max(len(text.value) for text in iter_texts(life(scale, args.emoji)))
        assert longest <= TEXT_LIMIT, longest  # legal: every text within the chronicle's limit
        figures: dict[str, list[dict[str, Any]]] = {kind: [] for kind in kinds}
        for _ in range(args.runs):
            for kind in kinds:
                figures[kind].append(measure(kind, scale, html, args))
    m = {
        k: {key: statistics.median(r[key] for r in rs) for key in rs[0]}
        for k, rs in figures.items()
    }
    what = "largest legal life" if scale == LARGEST_SCALE else f"life x{scale}"
    print(
        f"{what}: 36 turning points, {chars:,} characters (longest text {longest:,}"
        f" of {TEXT_LIMIT:,}), {int(m['ours']['pages'])} pages ({args.edition},"
        f" {args.paper.upper()}), median of {args.runs} runs"
    )
    for kind, label in (
        ("ours", "home book"),
        ("parts", "home book in parts"),
        ("alone", "WeasyPrint alone"),
        ("print", "print shop body"),
    ):
        f = m[kind]
        print(
            f"  {label:17} CPU {f['cpu']:6.1f} s  wall {f['seconds']:6.1f} s  peak"
            f" {f['rss_mb']:5.0f} MB  {int(f['pages'])} pages  {f['bytes'] / 1024:6.0f} KB"
            f"  CPU per page {f['cpu'] / max(1, f['pages']):.3f} s"
        )
    ours, alone, shop, parts = m["ours"], m["alone"], m["print"], m["parts"]
    print(
        f"  in parts of at most {args.part_pages} estimated pages: peak of the largest part"
        f" {parts['part_rss_mb']:.0f} MB, of the process joining them {parts['rss_mb']:.0f} MB,"
        f" against {ours['rss_mb']:.0f} MB in one document; CPU {parts['cpu'] / ours['cpu']:.2f}x,"
        f" pages {int(parts['pages'])} against {int(ours['pages'])}"
    )
    print(
        f"  home book / WeasyPrint alone: CPU {ours['cpu'] / alone['cpu']:.2f}x,"
        f" peak {ours['rss_mb'] / alone['rss_mb']:.2f}x"
    )
    print(
        f"  print shop / home book: CPU {shop['cpu'] / ours['cpu']:.2f}x (target at most 1.3x);"
        f" its last pass (crop marks + PDF/X-1a) {shop['print_ready']:.1f} CPU s,"
        f" of which the PDF/X rewrite {shop['pdfx']:.1f} s"
    )


def report_editions(args: argparse.Namespace) -> None:
    """Time every kind of book of the same life, alternating, and print medians and ratios."""
    with tempfile.TemporaryDirectory() as tmp:
        html, chars = write_html(1, Path(tmp), args)
        kinds = args.only.split(",") if args.only else list(EDITION_KINDS)
        figures: dict[str, list[dict[str, Any]]] = {kind: [] for kind in kinds}
        for _ in range(args.runs):
            for kind in kinds:
                figures[kind].append(measure(kind, 1, html, args))
    text = "emoji-heavy " if args.emoji else ""
    print(
        f"life x1: {chars:,} characters of {text}text ({args.edition}, {args.paper.upper()}),"
        f" median of {args.runs} runs"
    )
    medians = {k: statistics.median(r["seconds"] for r in rs) for k, rs in figures.items()}
    for kind, label in EDITION_LABELS.items():
        if kind not in figures:
            continue
        pages = statistics.median(r["pages"] for r in figures[kind])
        size = statistics.median(r["bytes"] for r in figures[kind]) / 1024
        peak = statistics.median(r["rss_mb"] for r in figures[kind])
        shown = f"{int(pages)} pages" if pages else "zip"
        print(
            f"  {label:22} {medians[kind]:6.2f} s  {shown:>10}  {size:7.0f} KB  peak {peak:4.0f} MB"
        )
    for kind, baseline, target in TARGETS:
        if kind not in medians or baseline not in medians:
            continue
        ratio = medians[kind] / medians[baseline]
        print(
            f"  {EDITION_LABELS[kind]} / {EDITION_LABELS[baseline]}: {medians[kind]:.2f} s /"
            f" {medians[baseline]:.2f} s = {ratio:.2f}x (target at most {target}x)"
        )


def report(args: argparse.Namespace) -> None:
    """Measure both lives, both ways, and print the figures and the targets."""
    medians: dict[tuple[int, str], dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for scale in (1, 4):
            html, chars = write_html(scale, Path(tmp), args)
            figures: dict[str, list[dict[str, Any]]] = {"ours": [], "alone": []}
            for _ in range(args.runs):
                for kind in ("ours", "alone"):
                    figures[kind].append(measure(kind, scale, html, args))
            for kind, results in figures.items():
                medians[scale, kind] = {
                    key: statistics.median(r[key] for r in results)
                    for key in ("seconds", "rss_mb", "pages", "bytes")
                }
            text = "emoji-heavy " if args.emoji else ""
            print(
                f"life x{scale}: 36 turning points, {chars:,} characters of {text}text, "
                f"{int(medians[scale, 'ours']['pages'])} pages ({args.edition},"
                f" {args.paper.upper()}), median of {args.runs} runs"
            )
            for kind, label in (("ours", "our export"), ("alone", "WeasyPrint alone")):
                m = medians[scale, kind]
                print(
                    f"  {label:17} {m['seconds']:6.2f} s  peak {m['rss_mb']:6.0f} MB"
                    f"  {m['bytes'] / 1024:7.0f} KB"
                )
            ours, alone = medians[scale, "ours"]["seconds"], medians[scale, "alone"]["seconds"]
            print(
                f"  ours / WeasyPrint alone (the baseline): {ours:.2f} s / {alone:.2f} s ="
                f" {ours / alone:.2f}x (target at most 1.2x)"
            )
    growth = medians[4, "ours"]["seconds"] / medians[1, "ours"]["seconds"]
    alone = medians[4, "alone"]["seconds"] / medians[1, "alone"]["seconds"]
    print(f"four times the text: {growth:.2f}x the time (target at most 4.5x);")
    print(f"  WeasyPrint alone: {alone:.2f}x")


if __name__ == "__main__":
    main()
