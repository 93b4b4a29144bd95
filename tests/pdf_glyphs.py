"""Which glyphs a PDF really draws: every text-showing operator followed to a glyph of an embedded
font, read back with fontTools.

Extracting text proves nothing about the page (a missing glyph still extracts as its character),
so this follows each code a page shows through its font's ToUnicode map and CID-to-glyph map into
the embedded font program, and reports the characters drawn by real glyphs and the problems: a
font that is not embedded, a code drawn as ``.notdef`` (glyph 0) or as an empty glyph while it
stands for a visible character, a Type 3 font.
"""

from __future__ import annotations

import io
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from fontTools.ttLib import TTFont
from pypdf import PdfReader
from pypdf.generic import ContentStream


@dataclass
class Drawn:
    """What the pages of a PDF draw: characters by font, and what is wrong."""

    chars: dict[str, set[str]] = field(default_factory=dict)  # font name -> characters
    problems: list[str] = field(default_factory=list)
    glyphs: int = 0

    @property
    def all_chars(self) -> set[str]:
        return set().union(*self.chars.values()) if self.chars else set()


class _Font:
    def __init__(self, font: Any) -> None:
        self.name = str(font.get("/BaseFont", "?")).lstrip("/")
        self.subtype = str(font["/Subtype"])
        self.to_unicode = (
            _to_unicode(font["/ToUnicode"].get_object()) if "/ToUnicode" in font else {}
        )
        self.program: TTFont | None = None
        self.cid_to_gid: dict[int, int] | None = None
        self.empty: set[int] = set()
        self.glyph_count = 0
        if self.subtype != "/Type0":
            return
        descendant = font["/DescendantFonts"][0].get_object()
        descriptor = descendant["/FontDescriptor"].get_object()
        data = None
        for key in ("/FontFile2", "/FontFile3", "/FontFile"):
            if key in descriptor:
                data = descriptor[key].get_object().get_data()
        if data is None:
            return
        mapping = descendant.get("/CIDToGIDMap")
        mapping = mapping.get_object() if mapping is not None else None
        if mapping is not None and hasattr(mapping, "get_data"):
            raw = mapping.get_data()
            self.cid_to_gid = {i // 2: (raw[i] << 8) | raw[i + 1] for i in range(0, len(raw), 2)}
        self._load(data)

    def _load(self, data: bytes) -> None:
        try:
            program = TTFont(io.BytesIO(data))
        except Exception:  # a bare CFF program (FontFile3 /Type1C / CIDFontType0C)
            from fontTools.cffLib import CFFFontSet

            cff = CFFFontSet()
            cff.decompile(io.BytesIO(data), None)
            self._load_cff(cff[cff.fontNames[0]])
            return
        self.program = program
        order = program.getGlyphOrder()
        self.glyph_count = len(order)
        if "glyf" in program:
            glyf = program["glyf"]
            self.empty = {i for i, name in enumerate(order) if glyf[name].numberOfContours == 0}
        elif "CFF " in program:
            self._load_cff(program["CFF "].cff[program["CFF "].cff.fontNames[0]], order)

    def _load_cff(self, top: Any, order: list[str] | None = None) -> None:
        names = order or top.getGlyphOrder()
        self.glyph_count = len(names)
        strings = top.CharStrings
        self.empty = set()
        for index, name in enumerate(names):
            charstring = strings[name]
            if charstring.calcBounds(strings) is None:
                self.empty.add(index)
        if hasattr(top, "ROS") and self.cid_to_gid is None:  # CID-keyed: glyph names are cids
            self.cid_to_gid = {
                int(name[3:]) if name.startswith("cid") else 0: index
                for index, name in enumerate(names)
            }

    def gid(self, cid: int) -> int:
        if self.cid_to_gid is None:
            return cid
        return self.cid_to_gid.get(cid, 0)


def _hex(text: str) -> bytes:
    return bytes.fromhex(text)


def _to_unicode(stream: Any) -> dict[int, str]:
    """A ToUnicode CMap's codes (two-byte CIDs) and the text each stands for."""
    data = stream.get_data().decode("latin-1")
    mapping: dict[int, str] = {}
    for block in re.findall(r"beginbfchar(.*?)endbfchar", data, re.S):
        for src, dst in re.findall(r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]*)>", block):
            mapping[int(src, 16)] = _hex(dst).decode("utf-16-be", "surrogatepass")
    for block in re.findall(r"beginbfrange(.*?)endbfrange", data, re.S):
        for low, high, rest in re.findall(
            r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(<[0-9A-Fa-f]*>|\[[^\]]*\])", block
        ):
            start, end = int(low, 16), int(high, 16)
            if rest.startswith("["):
                targets = re.findall(r"<([0-9A-Fa-f]*)>", rest)
                for offset, target in enumerate(targets):
                    mapping[start + offset] = _hex(target).decode("utf-16-be", "surrogatepass")
                continue
            base = _hex(rest[1:-1])
            for offset in range(end - start + 1):
                value = int.from_bytes(base, "big") + offset
                text = value.to_bytes(len(base), "big").decode("utf-16-be", "surrogatepass")
                mapping[start + offset] = text
    return mapping


def _visible(text: str) -> bool:
    return any(
        not char.isspace() and unicodedata.category(char) not in ("Cf", "Mn", "Zs") for char in text
    )


def drawn(pdf: bytes) -> Drawn:
    """Every glyph the PDF's pages draw (forms included), followed into its embedded font."""
    reader = PdfReader(io.BytesIO(pdf))
    result = Drawn()
    fonts: dict[int, _Font] = {}
    for number, page in enumerate(reader.pages, start=1):
        _walk(reader, page.get("/Resources"), page.get_contents(), number, fonts, result, set())
    return result


def _walk(
    reader: PdfReader,
    resources: Any,
    contents: Any,
    number: int,
    fonts: dict[int, _Font],
    result: Drawn,
    seen: set[int],
) -> None:
    if contents is None:
        return
    resources = resources.get_object() if resources is not None else {}
    font_table = resources.get("/Font", {})
    font_table = font_table.get_object() if hasattr(font_table, "get_object") else font_table
    forms = resources.get("/XObject", {})
    forms = forms.get_object() if hasattr(forms, "get_object") else forms
    current: _Font | None = None
    stream = contents if isinstance(contents, ContentStream) else ContentStream(contents, reader)
    for operands, operator in stream.operations:
        if operator == b"Tf":
            ref = font_table[operands[0]]
            key = ref.idnum if hasattr(ref, "idnum") else id(ref)
            if key not in fonts:
                fonts[key] = _Font(ref.get_object())
            current = fonts[key]
            if current.subtype == "/Type3":
                result.problems.append(f"page {number}: Type 3 font {current.name}")
            elif current.program is None and current.glyph_count == 0:
                result.problems.append(f"page {number}: font {current.name} is not embedded")
        elif operator in (b"Tj", b"'", b'"', b"TJ") and current is not None:
            strings = operands[-1] if operator == b"TJ" else [operands[-1]]
            for item in strings:
                if hasattr(item, "original_bytes"):
                    _codes(item.original_bytes, current, number, result)
                elif isinstance(item, bytes):
                    _codes(bytes(item), current, number, result)
        elif operator == b"Do":
            form = forms[operands[0]].get_object()
            if form.get("/Subtype") == "/Form" and id(form) not in seen:
                _walk(
                    reader,
                    form.get("/Resources", resources),
                    form,
                    number,
                    fonts,
                    result,
                    seen | {id(form)},
                )


def _codes(raw: bytes, font: _Font, number: int, result: Drawn) -> None:
    for index in range(0, len(raw) - 1, 2):
        cid = (raw[index] << 8) | raw[index + 1]
        text = font.to_unicode.get(cid, "")
        gid = font.gid(cid)
        result.glyphs += 1
        if gid == 0 or gid >= font.glyph_count:
            result.problems.append(f"page {number}: {text!r} drawn as .notdef in {font.name}")
        elif gid in font.empty and _visible(text):
            result.problems.append(
                f"page {number}: {text!r} drawn as an empty glyph in {font.name}"
            )
        else:
            result.chars.setdefault(font.name.split("+", 1)[-1], set()).update(text)
