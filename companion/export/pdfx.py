"""The print shop's files made PDF/X-1a:2001 (ISO 15930-1), the file a Japanese print shop asks for.

PDF/X-1a:2001 because it is what 同人誌 and other print shops in Japan ask for first, because it
takes a *registered* print condition by name (Japan Color 2001 Coated, FOGRA39) without an
embedded ICC profile (PDF/X-4 must embed one, and the profiles of those conditions are not ours
to give away), and because a book has nothing X-4 would add (no transparency, no RGB images).

WeasyPrint writes DeviceRGB, transparency groups, link annotations and (for Latin faces) CFF
fonts as ``/OpenType`` programs (PDF 1.6); its own ``pdf/x-1a`` variant changes none of this,
and names PDF/X-1a:2003. So the finished PDF is rewritten here, in the one pypdf pass that also
draws the crop marks:

- every ``rg``/``RG`` of every content stream (pages and form XObjects) becomes ``k``/``K``:
  text and rules in black only (K, a tint of it for grey), the ornaments (suits, marks, dice,
  cards, the cover's colours) in CMYK, from ``PALETTE``; a colour outside it goes to K if it
  is grey, else to CMYK by the usual formula;
- transparency groups and opacity keys (all opaque) go, and so do the links (annotations may
  not lie on the printed page) and the XMP packet (a PDF 1.4 key);
- each CFF font program is embedded bare (``/CIDFontType0C``, PDF 1.3);
- the crop marks are stroked in registration, ``/Separation /All``;
- the catalogue gets its output intent, the Info dictionary the PDF/X keys and ``/Trapped``,
  the trailer an ``/ID``, the header ``%PDF-1.3``.

``tests/test_pdfx.py`` is the preflight: it reads every operator back against the standard.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

PDFX_VERSION = "PDF/X-1:2001"
PDFX_CONFORMANCE = "PDF/X-1a:2001"
REGISTRY = "http://www.color.org"
REGISTRATION = "/Reg"  # the resource name of the registration colour space


@dataclass(frozen=True)
class Condition:
    """A registered print condition (ICC's characterization registry)."""

    identifier: str
    name: str


# Japanese books are printed in Japan on coated paper; the English ones, by a European or any
# other shop that follows ISO 12647-2, on coated paper: FOGRA39 is what such shops ask for.
CONDITIONS = {
    "ja": Condition("JC200103", "Japan Color 2001 Coated"),
    "en": Condition(
        "FOGRA39",
        "Coated FOGRA39 (ISO 12647-2:2004/Amd 1:2007), offset, coated paper, 60 lines/cm",
    ),
}
# Every colour the book's and the cover's stylesheets and pictures use, as printed. Text and rules
# are in black only (K); the ornaments (the suits, the legacy marks' gold, the dice and cards,
# the cover) in process colours.
PALETTE: dict[str, tuple[float, float, float, float]] = {
    # text and rules: black only
    "#221d18": (0, 0, 0, 1),  # body text
    "#26221e": (0, 0, 0, 1),  # spades
    "#000000": (0, 0, 0, 1),
    "#5a5047": (0, 0, 0, 0.75),  # labels, folios, running heads
    "#8e2020": (0, 0, 0, 1),  # a failed roll, a lost keystone
    "#2f6b3a": (0, 0, 0, 1),  # a successful roll
    "#a3361d": (0, 0, 0, 1),  # sacrifices' titles and rules
    "#cbbfa8": (0, 0, 0, 0.3),  # rules between turning points
    "#f6f1e7": (0, 0, 0, 0.05),  # the stakes' box
    "#fffdf8": (0, 0, 0, 0),  # paper
    "#ffffff": (0, 0, 0, 0),
    # ornaments: process colours
    "#a3261d": (0, 0.85, 0.85, 0.3),  # hearts
    "#b0471f": (0, 0.7, 0.9, 0.25),  # diamonds
    "#1f3b4f": (0.85, 0.55, 0.3, 0.5),  # clubs
    "#9a7b2f": (0.15, 0.3, 0.85, 0.3),  # the marks' gold
    "#6b2416": (0.2, 0.9, 1, 0.45),  # the back of a card
    "#3a1a10": (0.3, 0.85, 0.9, 0.7),
    "#d9a441": (0.1, 0.35, 0.8, 0.05),
    "#c9a227": (0.15, 0.3, 0.95, 0.1),
    "#6b5314": (0.25, 0.4, 1, 0.5),
    # the cover: a dark ground, gold and paper-coloured words
    "#2e2722": (0.55, 0.6, 0.65, 0.75),
    "#3a302a": (0.5, 0.6, 0.65, 0.65),
    "#f3ead8": (0, 0.03, 0.12, 0),
    "#d8cab0": (0, 0.05, 0.2, 0.15),
    "#c9a45c": (0.1, 0.3, 0.7, 0.1),
}
NUMBER = rb"[-+]?(?:\d+\.?\d*|\.\d+)"
RGB = re.compile(
    rb"(?<![\w.+-])(" + NUMBER + rb")\s+(" + NUMBER + rb")\s+(" + NUMBER + rb")\s+(rg|RG)(?![\w])"
)


def cmyk(red: float, green: float, blue: float) -> tuple[float, float, float, float]:
    """The process colour an sRGB colour of the books prints as (``PALETTE``, else computed)."""
    key = "#" + "".join(f"{round(max(0.0, min(1.0, v)) * 255):02x}" for v in (red, green, blue))
    if key in PALETTE:
        return PALETTE[key]
    if max(red, green, blue) - min(red, green, blue) < 0.12:  # a grey: black only
        return (0, 0, 0, round(1 - (0.299 * red + 0.587 * green + 0.114 * blue), 3))
    black = 1 - max(red, green, blue)
    return (
        round((1 - red - black) / (1 - black), 3),
        round((1 - green - black) / (1 - black), 3),
        round((1 - blue - black) / (1 - black), 3),
        round(black, 3),
    )


def to_cmyk(content: bytes) -> bytes:
    """A content stream with every DeviceRGB colour operator made a DeviceCMYK one."""

    def one(match: re.Match[bytes]) -> bytes:
        c, m, y, k = cmyk(*(float(match.group(i)) for i in (1, 2, 3)))
        operator = b"k" if match.group(4) == b"rg" else b"K"
        return b"%s %s %s %s %s" % (*(_number(v) for v in (c, m, y, k)), operator)

    return RGB.sub(one, content)


def _number(value: float) -> bytes:
    return (f"{value:.3f}".rstrip("0").rstrip(".") or "0").encode("ascii")


def registration_space(writer: Any) -> Any:
    """``[/Separation /All /DeviceCMYK f]``: the colour of every plate, for the crop marks."""
    from pypdf.generic import (
        ArrayObject,
        DictionaryObject,
        FloatObject,
        NameObject,
        NumberObject,
    )

    function = DictionaryObject(
        {
            NameObject("/FunctionType"): NumberObject(2),
            NameObject("/Domain"): ArrayObject([NumberObject(0), NumberObject(1)]),
            NameObject("/C0"): ArrayObject([FloatObject(0)] * 4),
            NameObject("/C1"): ArrayObject([FloatObject(1)] * 4),
            NameObject("/N"): NumberObject(1),
        }
    )
    return writer._add_object(
        ArrayObject(
            [
                NameObject("/Separation"),
                NameObject("/All"),
                NameObject("/DeviceCMYK"),
                writer._add_object(function),
            ]
        )
    )


def make_pdfx(writer: Any, language: str, title: str) -> None:
    """Make the document of ``writer`` (its crop marks drawn) PDF/X-1a:2001, in place."""
    from pypdf.generic import ArrayObject, NameObject

    seen: set[int] = set()
    for page in writer.pages:
        for key in ("/Annots", "/Group"):
            if key in page:
                del page[key]
        contents = page.raw_get("/Contents")
        resolved = contents.get_object()
        streams = list(resolved) if isinstance(resolved, ArrayObject) else [contents]
        for stream in streams:
            _recolour(stream.get_object())
        _clean_resources(page.get("/Resources"), seen)
    _bare_cff(writer)
    catalog = writer._root_object
    for key in ("/Metadata", "/OpenAction", "/AA"):
        if key in catalog:
            del catalog[key]
    condition = CONDITIONS.get(language, CONDITIONS["en"])
    catalog[NameObject("/OutputIntents")] = ArrayObject([_intent(writer, condition)])
    _info(writer, title)
    writer.pdf_header = b"%PDF-1.3"
    if not isinstance(writer._ID, ArrayObject):
        writer.generate_file_identifiers()


def _recolour(stream: Any) -> None:
    data = stream.get_data()
    changed = to_cmyk(data)
    if changed != data:
        stream.set_data(changed)


def _clean_resources(resources: Any, seen: set[int]) -> None:
    """Opacity keys, colour spaces no operator may use, and transparency groups taken out of a
    resource dictionary and of every form XObject under it; their streams recoloured."""
    from pypdf.generic import NameObject

    if resources is None:
        return
    resources = resources.get_object()
    states = resources.get("/ExtGState")
    if states is not None:
        for state in states.get_object().values():
            state = state.get_object()
            for key in ("/CA", "/ca", "/BM", "/SMask", "/AIS"):
                if key in state:
                    del state[key]
    spaces = resources.get("/ColorSpace")
    if spaces is not None:
        spaces = spaces.get_object()
        for name in [n for n in spaces if n != REGISTRATION]:
            del spaces[name]  # WeasyPrint lists Lab and sRGB spaces it never uses here
    for xobject_ref in resources.get("/XObject", {}).values():
        number = getattr(xobject_ref, "idnum", None)
        if number is not None and number in seen:
            continue
        if number is not None:
            seen.add(number)
        xobject = xobject_ref.get_object()
        if xobject.get("/Subtype") != "/Form":
            continue
        if "/Group" in xobject:
            del xobject[NameObject("/Group")]
        _recolour(xobject)
        _clean_resources(xobject.get("/Resources"), seen)


def _bare_cff(writer: Any) -> None:
    """Each ``/OpenType`` font program (PDF 1.6) embedded as its bare CFF table (PDF 1.3)."""
    from fontTools.ttLib import TTFont
    from pypdf.generic import NameObject

    for obj in _objects(writer):
        if not hasattr(obj, "get") or obj.get("/Type") != "/FontDescriptor":
            continue
        program_ref = obj.get("/FontFile3")
        if program_ref is None:
            continue
        program = program_ref.get_object()
        if program.get("/Subtype") != "/OpenType":
            continue
        font = TTFont(io.BytesIO(program.get_data()))
        cff = font.reader["CFF "]
        program.set_data(cff)
        # A CFF that is not CID-keyed under a CIDFontType0 font is read with CIDs as glyph
        # indices (ISO 32000-1, 9.7.4.2): the codes WeasyPrint wrote are glyph indices already.
        program[NameObject("/Subtype")] = NameObject("/CIDFontType0C")


def _objects(writer: Any) -> list[Any]:
    found = []
    for index in range(len(writer._objects)):
        obj = writer._objects[index]
        if obj is not None:
            found.append(obj)
    return found


def _intent(writer: Any, condition: Condition) -> Any:
    from pypdf.generic import DictionaryObject, NameObject, TextStringObject

    return writer._add_object(
        DictionaryObject(
            {
                NameObject("/Type"): NameObject("/OutputIntent"),
                NameObject("/S"): NameObject("/GTS_PDFX"),
                NameObject("/OutputConditionIdentifier"): TextStringObject(condition.identifier),
                NameObject("/OutputCondition"): TextStringObject(condition.name),
                NameObject("/RegistryName"): TextStringObject(REGISTRY),
                NameObject("/Info"): TextStringObject(condition.name),
            }
        )
    )


def _info(writer: Any, title: str) -> None:
    from pypdf.generic import NameObject, TextStringObject

    info = writer._info.get_object() if writer._info is not None else None
    if info is None:
        writer.add_metadata({})
        info = writer._info.get_object()
    existing = {str(k): v for k, v in info.items()}
    stamp = existing.get("/CreationDate") or datetime.now(UTC).strftime("D:%Y%m%d%H%M%SZ")
    for key in ("/Title", "/GTS_PDFXVersion", "/GTS_PDFXConformance", "/Trapped"):
        if key in info:
            del info[key]
    info[NameObject("/Title")] = TextStringObject(title or "Book")
    info[NameObject("/CreationDate")] = TextStringObject(str(stamp))
    info[NameObject("/ModDate")] = TextStringObject(str(existing.get("/ModDate") or stamp))
    info[NameObject("/GTS_PDFXVersion")] = TextStringObject(PDFX_VERSION)
    info[NameObject("/GTS_PDFXConformance")] = TextStringObject(PDFX_CONFORMANCE)
    info[NameObject("/Trapped")] = NameObject("/False")
