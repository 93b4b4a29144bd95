"""The PDF/X-1a:2001 preflight of the print shop's body and cover, written from ISO 15930-1.

No free PDF/X preflight is packaged here, so this one reads the files back: the header, trailer
and Info keys; the output intent (a registered condition, no profile embedded); the boxes of
every page; no annotation, transparency, encryption or action; every font embedded and subset,
in PDF 1.3's formats; and every colour operator of every content stream (pages and form
XObjects, nested), with the colour spaces they name: DeviceCMYK, DeviceGray or the crop marks'
``/Separation /All`` only; text in black only but for the ornaments' process colours.
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from pdf_checks import needs_qpdf, qpdf_warnings
from pypdf import PdfReader
from pypdf.generic import ArrayObject, ContentStream
from test_export_pdf import sample_state

from companion.base.paths import CHECKOUT as ROOT
from companion.export import editions
from companion.export.pdfx import CONDITIONS, PALETTE, REGISTRY, cmyk, to_cmyk

STATIC = ROOT / "static"
RGB_OPERATORS = {b"rg", b"RG"}
SET_COLOUR = {b"k", b"K", b"g", b"G", b"sc", b"SC", b"scn", b"SCN"}
ALLOWED_SPACES = {"/DeviceCMYK", "/DeviceGray"}
# The ornaments' process colours: the only colours text may have other than black (a suit's
# ♥ or ♦ in a heading, a card's corner, the cover's words on its dark ground).
ORNAMENTS = {v for v in PALETTE.values() if v[:3] != (0, 0, 0)}


@pytest.fixture(scope="module")
def pdfx_app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    from conftest import make_app

    return make_app(tmp_path_factory.mktemp("pdfx"))


@pytest.fixture(scope="module")
def made(pdfx_app: Flask) -> Callable[[str, str], bytes]:
    cache: dict[tuple[str, str], bytes] = {}

    def make(layout: str, language: str) -> bytes:
        if (layout, language) not in cache:
            with pdfx_app.app_context():
                cache[layout, language] = editions.make(
                    sample_state(language), "annotated", "a5", layout, STATIC
                )
        return cache[layout, language]

    return make


def content_streams(reader: PdfReader) -> Iterator[tuple[Any, Any]]:
    """Every content stream with its resources: each page's, each form XObject's, nested."""
    seen: set[int] = set()

    def forms(resources: Any) -> Iterator[tuple[Any, Any]]:
        if resources is None:
            return
        for ref in resources.get_object().get("/XObject", {}).values():
            if ref.idnum in seen:
                continue
            seen.add(ref.idnum)
            xobject = ref.get_object()
            yield xobject, xobject.get("/Resources")
            yield from forms(xobject.get("/Resources"))

    for page in reader.pages:
        yield page.get_contents(), page.get("/Resources")
        yield from forms(page.get("/Resources"))


def colour_space(name: Any, resources: Any) -> Any:
    if str(name) in ALLOWED_SPACES:
        return str(name)
    spaces = resources.get_object().get("/ColorSpace", {}).get_object()
    return spaces[name].get_object()


def preflight(data: bytes, language: str) -> list[str]:
    """What in ``data`` breaks PDF/X-1a:2001; empty if nothing does."""
    problems: list[str] = []
    if not data.startswith(b"%PDF-1.3"):
        problems.append(f"header {data[:8]!r}: X-1a:2001 is PDF 1.3")
    reader = PdfReader(io.BytesIO(data))
    trailer = reader.trailer
    if "/ID" not in trailer or len(trailer["/ID"]) != 2:
        problems.append("no file identifier in the trailer")
    if "/Encrypt" in trailer:
        problems.append("encrypted")
    info = trailer["/Info"].get_object()
    expected = {
        "/GTS_PDFXVersion": "PDF/X-1:2001",
        "/GTS_PDFXConformance": "PDF/X-1a:2001",
        "/Trapped": "/False",
    }
    for key, value in expected.items():
        if str(info.get(key)) != value:
            problems.append(f"Info {key} is {info.get(key)!r}")
    for key in ("/Title", "/CreationDate", "/ModDate"):
        if not str(info.get(key, "")):
            problems.append(f"no Info {key}")
    catalog = trailer["/Root"].get_object()
    for key in ("/OpenAction", "/AA", "/AcroForm", "/Metadata"):
        if key in catalog:
            problems.append(f"catalogue has {key}")
    intents = catalog.get("/OutputIntents", [])
    if len(intents) != 1:
        problems.append(f"{len(intents)} output intents")
    for intent in intents:
        intent = intent.get_object()
        condition = CONDITIONS[language]
        if intent.get("/S") != "/GTS_PDFX":
            problems.append("output intent is not GTS_PDFX")
        if str(intent.get("/OutputConditionIdentifier")) != condition.identifier:
            problems.append(f"condition {intent.get('/OutputConditionIdentifier')!r}")
        # A registered condition needs no profile: none is embedded (none is ours to give).
        if "/DestOutputProfile" in intent or str(intent.get("/RegistryName")) != REGISTRY:
            problems.append("output intent not a registered condition")
    for number, page in enumerate(reader.pages, 1):
        problems += [f"page {number}: {p}" for p in page_problems(page)]
    problems += font_problems(reader)
    for stream, resources in content_streams(reader):
        if stream.get("/Subtype") == "/Image":
            if stream.get("/ColorSpace") not in ALLOWED_SPACES or "/SMask" in stream:
                problems.append(f"an image in {stream.get('/ColorSpace')}")
            continue
        if "/Group" in stream:
            problems.append("a transparency group")
        problems += colour_problems(stream, resources, reader)
    return problems


def page_problems(page: Any) -> list[str]:
    problems = []
    for key in ("/Annots", "/Group", "/AA"):
        if key in page:
            problems.append(f"has {key}")
    if "/TrimBox" not in page or "/BleedBox" not in page:
        return [*problems, "no TrimBox or BleedBox"]
    media, bleed, trim = (
        [Decimal(str(v)) for v in page[key]] for key in ("/MediaBox", "/BleedBox", "/TrimBox")
    )
    for outer, inner, names in ((media, bleed, "Media/Bleed"), (bleed, trim, "Bleed/Trim")):
        if not (outer[0] <= inner[0] and outer[1] <= inner[1]) or not (
            inner[2] <= outer[2] and inner[3] <= outer[3]
        ):
            problems.append(f"{names} boxes not nested")
    states = page.get("/Resources", {}).get("/ExtGState", {})
    for state in states.values():
        state = state.get_object()
        for key in ("/SMask", "/TR", "/TR2"):
            if key in state and state[key] != "/None":
                problems.append(f"graphics state {key}")
        if float(state.get("/CA", 1)) != 1 or float(state.get("/ca", 1)) != 1:
            problems.append("opacity")
        if state.get("/BM", "/Normal") not in ("/Normal", "/Compatible"):
            problems.append("blend mode")
    return problems


def font_problems(reader: PdfReader) -> list[str]:
    problems = []
    for page in reader.pages:
        for font in page.get("/Resources", {}).get("/Font", {}).values():
            font = font.get_object()
            for part in [font, *(d.get_object() for d in font.get("/DescendantFonts", []))]:
                descriptor = part.get("/FontDescriptor")
                if part.get("/Subtype") == "/Type0":
                    continue
                if descriptor is None:
                    problems.append(f"font {part.get('/BaseFont')} not embedded")
                    continue
                descriptor = descriptor.get_object()
                if not str(descriptor.get("/FontName", ""))[1:7].isupper():
                    problems.append(f"font {descriptor.get('/FontName')} not a subset")
                programs = [k for k in ("/FontFile", "/FontFile2", "/FontFile3") if k in descriptor]
                if not programs:
                    problems.append(f"font {descriptor.get('/FontName')} not embedded")
                if "/FontFile3" in descriptor:
                    subtype = descriptor["/FontFile3"].get_object().get("/Subtype")
                    if subtype not in ("/Type1C", "/CIDFontType0C"):
                        problems.append(f"font program {subtype} is not PDF 1.3")
    return problems


def colour_problems(stream: Any, resources: Any, reader: PdfReader) -> list[str]:
    problems: list[str] = []
    fill: tuple[Any, ...] = ("/DeviceGray", 0.0)
    spaces = {"fill": "/DeviceGray", "stroke": "/DeviceGray"}
    in_text = False
    for operands, operator in ContentStream(stream, reader).operations:
        if operator in RGB_OPERATORS:
            problems.append(f"DeviceRGB colour {operands} {operator!r}")
        elif operator == b"BI":
            problems.append("an inline image")
        elif operator in (b"cs", b"CS"):
            space = colour_space(operands[0], resources)
            ok = str(space) in ALLOWED_SPACES or (
                isinstance(space, ArrayObject)
                and space[0] == "/Separation"
                and space[1] == "/All"
                and space[2] == "/DeviceCMYK"
            )
            if not ok:
                problems.append(f"colour space {space!r}")
            spaces["fill" if operator == b"cs" else "stroke"] = str(operands[0])
        elif operator in (b"k", b"g"):
            fill = ("/DeviceCMYK" if operator == b"k" else "/DeviceGray", *map(float, operands))
        elif operator in (b"sc", b"scn"):
            fill = (spaces["fill"], *map(float, operands))
        elif operator == b"BT":
            in_text = True
        elif operator == b"ET":
            in_text = False
        elif operator in (b"Tj", b"TJ", b"'", b'"') and in_text and not black(fill):
            problems.append(f"text in {fill}")
        elif operator == b"sh":
            problems.append("a shading")
    return sorted(set(problems))


def black(fill: tuple[Any, ...]) -> bool:
    """Whether a fill is black only (K or grey), or an ornament's process colour."""
    if fill[0] == "/DeviceGray":
        return True
    if fill[0] == "/DeviceCMYK":
        c, m, y, k = fill[1:]
        return (c, m, y) == (0, 0, 0) or any(
            all(abs(a - b) < 0.002 for a, b in zip(fill[1:], o, strict=True)) for o in ORNAMENTS
        )
    return False


@needs_qpdf
@pytest.mark.parametrize("layout", ["print", "cover-100"])
@pytest.mark.parametrize("language", ["ja", "en"])
def test_the_print_shop_files_pass_the_pdfx_preflight(
    made: Callable[[str, str], bytes], tmp_path: Path, layout: str, language: str
) -> None:
    data = made(layout, language)
    assert preflight(data, language) == []
    assert qpdf_warnings(tmp_path, data) == []


def test_the_body_text_is_solid_black_and_the_marks_in_registration(
    made: Callable[[str, str], bytes],
) -> None:
    reader = PdfReader(io.BytesIO(made("print", "ja")))
    operations = ContentStream(reader.pages[4].get_contents(), reader).operations
    text_fills = [tuple(map(float, o)) for o, op in operations if op == b"k"]
    assert (0, 0, 0, 1) in text_fills  # the body text: 100 % K, not a four-colour black
    assert any(op == b"SCN" for _o, op in operations)
    spaces = reader.pages[4]["/Resources"]["/ColorSpace"]
    registration = spaces["/Reg"].get_object()
    assert [str(v) for v in registration[:3]] == ["/Separation", "/All", "/DeviceCMYK"]


def test_the_preflight_refuses_what_the_home_book_does() -> None:
    """The home book (no PDF/X) fails it on every count the print shop's files pass."""
    from conftest import make_app

    from companion.export.book import book_html, render_book

    with make_app(Path(tempfile.mkdtemp())).app_context():
        data = render_book(book_html(sample_state("en", 20), "story", "a6"), STATIC)
    found = " ".join(preflight(data, "en"))
    for problem in ("header", "GTS_PDFXVersion", "output intents", "DeviceRGB", "/Annots"):
        assert problem in found


def test_colours_become_process_colours() -> None:
    assert to_cmyk(b"0.133333 0.113725 0.094118 rg\n0.5 .5 0.5 RG 1 0 0 rg") == (
        b"0 0 0 1 k\n0 0 0 0.5 K 0 1 1 0 k"
    )
    assert cmyk(0.2, 0.2, 0.2)[:3] == (0, 0, 0)  # a grey is black only
    assert cmyk(*(int("a3261d"[i : i + 2], 16) / 255 for i in (0, 2, 4))) == PALETTE["#a3261d"]
