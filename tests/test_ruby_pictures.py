"""Pictures of a page with ruby in each edition, compared with the references kept in
``tests/data/ruby/`` pixel by pixel: the A5 book (WeasyPrint, our inline blocks), the vertical
book (Chromium's own ruby, beside the column) and the EPUB shown in Chromium.

A picture that differs from its reference in more than TOLERANCE of its pixels fails; if a
change of layout is meant, make the references again with ``RUBY_PICTURES=write`` in the
environment and look at them before committing them.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from flask import Flask
from PIL import Image, ImageChops
from ruby_life import ruby_life

from companion.base.paths import CHECKOUT as ROOT
from companion.export import editions
from companion.export.book import book_html, render_book
from companion.export.vertical import LAUNCH_ARGS, chromium_path

STATIC = ROOT / "static"
REFERENCES = Path(__file__).parent / "data" / "ruby"
TOLERANCE = 0.01  # share of pixels that may differ by more than DIFFERENCE
DIFFERENCE = 64  # of 255, in grey
DPI = 60
needs_pdftoppm = pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="needs poppler")
needs_chromium = pytest.mark.skipif(chromium_path() is None, reason="Chromium is not installed")


@pytest.fixture(scope="module")
def ruby_app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    from conftest import make_app

    return make_app(tmp_path_factory.mktemp("ruby"))


def page_with(
    pdf: bytes, words: str, tmp_path: Path, scattered: bool = False, dpi: int = DPI
) -> Image.Image:
    """The first page of ``pdf`` whose text holds ``words`` (or, ``scattered``, each of their
    characters: poppler reads a vertical page's columns interleaved), as a grey picture."""
    path = tmp_path / "book.pdf"
    path.write_bytes(pdf)
    pages = int(
        next(
            line.split()[-1]
            for line in subprocess.run(
                ["pdfinfo", str(path)], capture_output=True, text=True, check=True
            ).stdout.splitlines()
            if line.startswith("Pages:")
        )
    )
    for number in range(1, pages + 1):
        text = subprocess.run(
            ["pdftotext", "-f", str(number), "-l", str(number), str(path), "-"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        text = "".join(text.split())
        if all(char in text for char in words) if scattered else words in text:
            prefix = tmp_path / "page"
            subprocess.run(
                ["pdftoppm", "-r", str(dpi), "-f", str(number), "-l", str(number), "-png"]
                + ["-singlefile", str(path), str(prefix)],
                check=True,
            )
            return Image.open(f"{prefix}.png").convert("L")
    raise AssertionError(f"no page shows {words!r}")


def compare(picture: Image.Image, name: str) -> None:
    """``picture`` against the reference ``name``, or written as it when asked to."""
    reference_path = REFERENCES / f"{name}.png"
    pictures = os.environ.get("RUBY_PICTURES_DIR")
    if pictures:
        picture.save(Path(pictures) / f"{name}.png")
    if os.environ.get("RUBY_PICTURES") == "write":
        REFERENCES.mkdir(parents=True, exist_ok=True)
        picture.save(reference_path, optimize=True)
    reference = Image.open(reference_path).convert("L")
    assert picture.size == reference.size
    difference = ImageChops.difference(picture, reference).point(
        lambda value: 255 if value > DIFFERENCE else 0
    )
    changed = sum(difference.histogram()[255:]) / (picture.width * picture.height)
    assert changed <= TOLERANCE, f"{name}: {changed:.2%} of the pixels differ"


def ink_rows(picture: Image.Image) -> list[int]:
    """The rows of the text column that hold ink (a pixel darker than mid-grey), leaving out
    the left fifth of the page, where the card's picture and the prompt's rule stand."""
    column = picture.crop((picture.width // 5, 0, picture.width * 9 // 10, picture.height))
    dark = column.point(lambda value: 255 if value < 128 else 0)
    return [y for y in range(dark.height) if dark.crop((0, y, dark.width, y + 1)).getbbox()]


@needs_pdftoppm
@pytest.mark.parametrize("language", ["ja", "en"])
def test_a_page_of_the_a5_book_with_ruby(ruby_app: Flask, tmp_path: Path, language: str) -> None:
    with ruby_app.app_context():
        pdf = render_book(book_html(ruby_life(language), "story", "a5"), STATIC)
    words = "なみの" if language == "ja" else "nagi"
    compare(page_with(pdf, words, tmp_path), f"a5-{language}")


@needs_pdftoppm
def test_the_reading_sits_over_its_base_without_moving_the_lines(
    ruby_app: Flask, tmp_path: Path
) -> None:
    """The same paragraph with and without its readings: the lines stay where they are."""
    from ruby_life import RUBY_TEXT

    from companion.text.ruby import to_plain

    bare = RUBY_TEXT.replace("｜《", "《")
    with ruby_app.app_context():
        with_ruby = render_book(book_html(ruby_life("ja"), "story", "a5"), STATIC)
        without = render_book(
            book_html(ruby_life("ja", text=to_plain(bare)), "story", "a5"), STATIC
        )
    pictures = [page_with(pdf, "最後の舟", tmp_path, dpi=200) for pdf in (with_ruby, without)]
    rows = [set(ink_rows(p)) for p in pictures]
    # every row of ink without the readings has ink with them too (no line moved) ...
    assert rows[1] <= rows[0]
    # ... and the readings add rows of ink of their own, above the lines' (in the leading)
    assert len(rows[0] - rows[1]) > 5


@needs_pdftoppm
@needs_chromium
@pytest.mark.slow  # Chromium prints the vertical book
def test_a_page_of_the_vertical_book_with_ruby(ruby_app: Flask, tmp_path: Path) -> None:
    with ruby_app.app_context():
        pdf = editions.make(ruby_life("ja"), "story", "a6", "vertical", STATIC)
    compare(page_with(pdf, "逆巻鷗灯鷲", tmp_path, scattered=True), "vertical-a6")


@needs_chromium
@pytest.mark.slow  # Chromium starts
def test_the_epub_shows_ruby_in_chromium(ruby_app: Flask, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    with ruby_app.app_context():
        data = editions.make(ruby_life("ja"), "story", "a5", "epub", STATIC, key="t", date="2024")
    folder = tmp_path / "epub"
    zipfile.ZipFile(io.BytesIO(data)).extractall(folder)
    chapter = next(p for p in sorted(folder.rglob("*.xhtml")) if "なみの" in p.read_text("utf-8"))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=LAUNCH_ARGS)
        try:
            page = browser.new_page(viewport={"width": 480, "height": 640})
            page.goto(chapter.as_uri())
            page.evaluate("() => document.fonts.ready.then(() => true)")
            heights = page.evaluate(
                "() => [...document.querySelectorAll('ruby')].map(r => {"
                " const rt = r.querySelector('rt').getBoundingClientRect();"
                " const all = r.getBoundingClientRect(); return [rt.bottom, all.bottom]; })"
            )
            shot = page.screenshot()
        finally:
            browser.close()
    assert heights and all(rt_bottom < bottom for rt_bottom, bottom in heights)
    compare(Image.open(io.BytesIO(shot)).convert("L"), "epub-chromium")
