"""Make the screen's Japanese faces: WOFF2 slices of the bundled IPAex Gothic, each with the
unicode-range of its characters, so a page downloads only the slices its characters need.

    .venv/bin/python scripts/screen_fonts.py [STATIC_FOLDER]

Run by scripts/setup and by the wheel's build (setup.py); it does nothing when the slices in
``static/fonts/screen/`` were made from the same fonts, characters and script. The books keep
the full faces (static/css/book-fonts.css); only pages use these.

Pages draw Japanese in one face, Gothic: a Mincho glyph costs about 37% more, and a page set in
both pays twice for every character the two share (the sample life's story in Japanese, first
visit: 499 KB with Mincho text and Gothic labels, under 300 KB in Gothic alone). Mincho stays
for the brand mark and the game's title (a face of those few glyphs) and for the books.

How the characters are sliced (the way the big web-font services serve CJK faces):

- the characters the app itself shows in Japanese (its catalogue, templates, prompt packs, card
  games and sample lives), most frequent first, in slices of ``COMMON`` characters: a Japanese
  page loads the first few and a handful of others;
- every other Japanese character of the font in code point order, in slices of ``REST``, each
  named by one span of code points (which keeps the stylesheet small); the slices of the first
  kind come later in the stylesheet and so are chosen first for their own characters;
- the symbols of the Gothic face (arrows, shapes, card suits, warnings) as "Ijin Symbols", last
  in every stack, for a device whose own faces lack them;
- the few Japanese names an English page shows (every Japanese character in the app's English
  words: the game's title 遺燼抄, the language's own name 日本語, the card games' Japanese
  names) as "Ijin Names", in every stack and in no other slice, so an English page loads no
  Japanese text face at all; and the brand mark with the game's title in Mincho as "Ijin Mark".

The IPA Font License (static/fonts/LICENSE-IPA.txt, Article 3.1) asks of a derived font that
it not carry the original's name, that its licence and the means to get back to the original go
with it: the slices are named "Ijin ..." in their name tables and files, and the folder holds the
licence and a README saying so (the originals are beside it in static/fonts).
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import shutil
import sys
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMON = 48  # characters per slice of the app's own characters
REST = 96  # characters per slice of the others
DIGEST_CHARS = 12  # as companion/web/shell/static_files.py names a file by its content
FOLDER = "fonts/screen"
STYLESHEET = "faces.css"
# font-display: a face that is not there within a moment is not swapped in later, so nothing
# ever moves; pages preload the slices their characters need (faces.json, read by
# companion/web/shell/font_preload.py), which come within that moment, and the next page finds
# them in the cache.
DISPLAY = "optional"
INDEX = "faces.json"
JAPANESE = (
    (0x3000, 0x303F),  # CJK symbols and punctuation
    (0x3040, 0x30FF),  # hiragana, katakana
    (0x31F0, 0x31FF),  # katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF00, 0xFFEF),  # half- and full-width forms
)
SYMBOLS = (
    (0x2190, 0x21FF),  # arrows
    (0x2200, 0x22FF),  # mathematical operators
    (0x2300, 0x23FF),  # miscellaneous technical
    (0x2460, 0x24FF),  # enclosed alphanumerics
    (0x2500, 0x25FF),  # box drawing, blocks, geometric shapes
    (0x2600, 0x27BF),  # miscellaneous symbols, dingbats
)
# face key -> (the original file, the family pages name)
FACES = {"gothic": ("ipaexg.ttf", "Ijin Gothic"), "mincho": ("ipaexm.ttf", "Ijin Mincho")}
TEXT_FACES = ("gothic",)  # the faces cut into slices for text; Mincho gives the mark only
MARK = "遺燼抄"  # the brand mark and the game's title, in Mincho
README = """The screen's faces: slices of IPAex Gothic (static/fonts/ipaexg.ttf) and a few glyphs of
IPAex Mincho (static/fonts/ipaexm.ttf) in WOFF2, made by scripts/screen_fonts.py, which says how
they are cut.
They are derived programs under the IPA Font License Agreement v1.0 (LICENSE-IPA.txt beside this
file), renamed as its Article 3.1 asks. To use the original fonts instead, point the @font-face
rules of faces.css at ../ipaexg.ttf and ../ipaexm.ttf (or run the script on them again).
"""


def japanese(code: int, ranges: tuple[tuple[int, int], ...] = JAPANESE) -> bool:
    """Whether ``code`` is in one of ``ranges``."""
    return any(low <= code <= high for low, high in ranges)


def corpus_files(root: Path) -> list[Path]:
    """The files whose Japanese the app shows: templates, packs, sources, data (the catalogue
    is read entry by entry, ``catalogue_entries``)."""
    found: list[Path] = []
    for folder, patterns in (
        (root / "companion", ("*.py", "*.json", "*.toml", "*.md")),
        (root / "templates", ("*.html",)),
    ):
        for pattern in patterns:
            found += folder.rglob(pattern)
    return sorted(path for path in found if "__pycache__" not in path.parts)


def catalogue_entries(root: Path) -> list[tuple[list[str], str]]:
    """Each entry of the Japanese catalogue: the files that use it (its ``#:`` lines) and its
    translation."""
    entries: list[tuple[list[str], str]] = []
    places: list[str] = []
    said: list[str] = []
    catalogue = root / "companion" / "translations" / "ja" / "LC_MESSAGES" / "messages.po"
    for line in catalogue.read_text("utf-8").splitlines() + [""]:
        if line.startswith("#:"):
            if said:
                entries.append((places, "".join(said)))
                places, said = [], []
            places += [ref.rsplit(":", 1)[0] for ref in line[2:].split()]
        elif line.startswith("msgstr") or (said and line.startswith('"')):
            said.append(line)
        elif not line.strip() and said:
            entries.append((places, "".join(said)))
            places, said = [], []
    return entries


# Where a character shows, as a rank: the characters of every page first (the frame, the start
# page), then those of each page in the order a table meets them, then the content shipped with
# the app, then the rest. A page then finds most of its characters in a few slices of its own,
# and the next page it opens needs few new ones.
RANKS = (
    ("templates/base.html", "templates/main/index.html", "templates/_macros.html",
     "companion/web/shell/main.py", "companion/base/languages.py"),
    ("templates/chronicle/new.html", "companion/web/chronicle/new", "companion/web/chronicle/setup"),
    ("templates/chronicle/", "companion/web/chronicle/", "companion/legacy/", "companion/streams/",
     "companion/text/", "templates/_links_sheet.html"),
    ("templates/tables/", "companion/web/tables/", "companion/web/boards/", "companion/cardgames/"),
    ("companion/packs/data/", "companion/samples/"),
)  # fmt: skip


def rank_of(place: str) -> int:
    """The rank of a file the app's words come from (``RANKS``; the rest after them all)."""
    for rank, prefixes in enumerate(RANKS):
        if place.startswith(prefixes):
            return rank
    return len(RANKS)


def common_characters(root: Path) -> list[int]:
    """The Japanese characters the app shows, by where they first show (``RANKS``), in code
    point order within each rank (kana together; a new word moves few characters)."""
    counts: Counter[int] = Counter()
    ranks: dict[int, int] = {}

    def seen(text: str, places: list[str]) -> None:
        rank = min((rank_of(place) for place in places), default=len(RANKS))
        for ch in text:
            code = ord(ch)
            if japanese(code):
                counts[code] += 1
                ranks[code] = min(ranks.get(code, rank), rank)

    for path in corpus_files(root):
        seen(path.read_text("utf-8", "ignore"), [path.relative_to(root).as_posix()])
    for places, text in catalogue_entries(root):
        seen(text, places)
    return sorted(counts, key=lambda code: (ranks[code], code))


def english_names(root: Path) -> list[int]:
    """The Japanese characters the app's English words hold (its catalogue's source strings and
    its templates): names an English page shows as they are written."""
    catalogue = (root / "companion" / "translations" / "messages.pot").read_text("utf-8")
    found = "".join(re.findall(r'^msgid(?:_plural)? ((?:".*"\n?)+)', catalogue, re.M))
    found += "".join(
        path.read_text("utf-8") for path in sorted((root / "templates").rglob("*.html"))
    )
    # The language picker's names, as their own readers write them.
    languages = (root / "companion" / "base" / "languages.py").read_text("utf-8")
    found += "".join(re.findall(r'Language\("\w+", "([^"]+)"', languages))
    return sorted({ord(ch) for ch in found if japanese(ord(ch))})


@dataclass(frozen=True)
class Slice:
    """One WOFF2 file to make: its face, family, characters and the range the CSS names."""

    face: str
    family: str
    name: str
    codes: tuple[int, ...]
    # Runs of code points the CSS names for the characters: the span of a slice of the rest,
    # less the app's own characters (a browser loads every face whose range holds a character
    # of the page, so no two slices of a family may claim one).
    runs: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Made:
    """A slice as made: its file name (with its digest) and what it draws."""

    slice: Slice
    filename: str
    size: int


def plan(root: Path, cmaps: dict[str, set[int]]) -> list[Slice]:
    """Every slice, in the order the stylesheet names them. No character is in two faces of
    the stacks: while a face loads, a browser draws with the next one and loads it too."""
    names = tuple(code for code in english_names(root) if code in cmaps["gothic"])
    common = [code for code in common_characters(root) if code not in names]
    slices: list[Slice] = []
    for face in TEXT_FACES:
        family = FACES[face][1]
        have = cmaps[face]
        mine = [code for code in common if code in have]
        chosen = set(mine)
        rest = sorted(
            code for code in have if japanese(code) and code not in chosen and code not in names
        )
        for n, start in enumerate(range(0, len(rest), REST)):
            codes = tuple(rest[start : start + REST])
            runs = _runs(
                code
                for code in range(codes[0], codes[-1] + 1)
                if code not in chosen and code not in names
            )
            slices.append(Slice(face, family, f"{face}-r{n:02d}", codes, tuple(runs)))
        for n, start in enumerate(range(0, len(mine), COMMON)):
            slices.append(
                Slice(face, family, f"{face}-c{n:02d}", tuple(mine[start : start + COMMON]))
            )
    symbols = sorted(code for code in cmaps["gothic"] if japanese(code, SYMBOLS))
    for n, start in enumerate(range(0, len(symbols), COMMON)):
        codes = tuple(symbols[start : start + COMMON])
        slices.append(Slice("gothic", "Ijin Symbols", f"symbols-{n:02d}", codes))
    slices.append(Slice("gothic", "Ijin Names", "names", names))
    slices.append(Slice("mincho", "Ijin Mark", "mark", tuple(sorted(map(ord, MARK)))))
    return slices


def make(source: Path, job: Slice) -> tuple[bytes, str]:
    """The WOFF2 bytes of ``job`` cut from ``source``, renamed; and its file name."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    options = subset.Options()
    options.flavor = "woff2"
    options.hinting = False  # phones' screens are dense: hints only cost bytes
    # Pages never set Japanese vertically (the books do, with the full faces): no vertical
    # forms, metrics or layout tables, which cost every slice a kilobyte or more.
    options.layout_features = []
    options.drop_tables += ["vhea", "vmtx", "BASE", "GDEF", "GPOS", "GSUB"]
    # The copyright and the licence's address stay; the licence's text is beside the files.
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 14]
    font = TTFont(str(source), lazy=True, recalcTimestamp=False)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=job.codes)
    subsetter.subset(font)
    _rename(font, job.family)
    out = io.BytesIO()
    font.flavor = "woff2"
    font.save(out, reorderTables=False)
    data = out.getvalue()
    digest = hashlib.sha256(data).hexdigest()[:DIGEST_CHARS]
    return data, f"{job.name}.{digest}.woff2"


def _rename(font: object, family: str) -> None:
    """Names the derived font by ``family`` (never the original's name, as the licence asks)."""
    table = font["name"]  # type: ignore[index]
    plain = family.replace(" ", "")
    for record in table.names:
        if record.nameID in (1, 16):
            record.string = family
        elif record.nameID == 4:
            record.string = family
        elif record.nameID in (3, 6):
            record.string = plain
        elif record.nameID == 17:
            record.string = "Regular"


def _make_one(args: tuple[str, Slice, str]) -> Made:
    source, job, target = args
    data, filename = make(Path(source), job)
    Path(target, filename).write_bytes(data)
    return Made(job, filename, len(data))


def _runs(codes: Iterable[int]) -> list[tuple[int, int]]:
    """Consecutive code points joined into runs (first, last)."""
    runs: list[list[int]] = []
    for code in sorted(codes):
        if runs and code == runs[-1][1] + 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    return [(a, b) for a, b in runs]


def unicode_range(job: Slice) -> str:
    """The CSS unicode-range of a slice: its runs, or its characters in runs."""
    runs = job.runs or tuple(_runs(job.codes))
    return ",".join(f"U+{a:X}" if a == b else f"U+{a:X}-{b:X}" for a, b in runs)


def stylesheet(made: list[Made], stamp: str) -> str:
    """The @font-face rules of every slice, in plan order."""
    lines = [
        f"/* {stamp} */",
        "/* The screen's faces, cut from IPAex by scripts/screen_fonts.py (see README.txt). */",
    ]
    for item in made:
        lines.append(
            f'@font-face{{font-family:"{item.slice.family}";'
            f'src:url("{item.filename}") format("woff2");font-display:{DISPLAY};'
            f"unicode-range:{unicode_range(item.slice)}}}"
        )
    return "\n".join(lines) + "\n"


def index(made: list[Made]) -> str:
    """Which file draws which characters, per family (for the pages' preloads)."""
    import json

    families: dict[str, list[list[object]]] = {}
    for item in made:
        runs = item.slice.runs or tuple(_runs(item.slice.codes))
        families.setdefault(item.slice.family, []).append([item.filename, [list(r) for r in runs]])
    return json.dumps(families, separators=(",", ":")) + "\n"


def stamp_of(root: Path, static: Path) -> str:
    """What the slices are made from: this script, the fonts and the app's characters."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    for _face, (file, _family) in sorted(FACES.items()):
        digest.update(hashlib.sha256((static / "fonts" / file).read_bytes()).digest())
    digest.update(repr(common_characters(root)).encode())
    digest.update(repr(english_names(root)).encode())
    return "made from " + digest.hexdigest()[:16]


def build(static: Path, root: Path = ROOT, workers: int | None = None) -> bool:
    """Make the slices and their stylesheet under ``static/fonts/screen``; False when they
    were up to date already."""
    from fontTools.ttLib import TTFont

    target = static / FOLDER
    stamp = stamp_of(root, static)
    css = target / STYLESHEET
    if css.exists() and css.read_text("utf-8").startswith(f"/* {stamp} */"):
        return False
    cmaps = {
        face: set(TTFont(str(static / "fonts" / file), lazy=True).getBestCmap())
        for face, (file, _family) in FACES.items()
    }
    jobs = plan(root, cmaps)
    building = target.with_name(target.name + ".new")
    shutil.rmtree(building, ignore_errors=True)
    building.mkdir(parents=True)
    args = [(str(static / "fonts" / FACES[job.face][0]), job, str(building)) for job in jobs]
    with ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        made = list(pool.map(_make_one, args, chunksize=4))
    (building / STYLESHEET).write_text(stylesheet(made, stamp), "utf-8")
    (building / INDEX).write_text(index(made), "utf-8")
    (building / "README.txt").write_text(README, "utf-8")
    shutil.copyfile(static / "fonts" / "LICENSE-IPA.txt", building / "LICENSE-IPA.txt")
    shutil.rmtree(target, ignore_errors=True)
    building.rename(target)
    return True


def main(argv: list[str]) -> int:
    static = Path(argv[0]) if argv else ROOT / "static"
    if build(static):
        print(f"Made the screen's faces in {static / FOLDER}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
