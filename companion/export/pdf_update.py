"""An incremental update of a PDF: changed and new objects appended to the file as it is.

pypdf's writer parses and writes every object of a book again (over a second for a vertical
book of a hundred pages); the vertical book only needs its catalogue, its metadata and the first
pages' drawing changed, so those objects are appended after Chromium's file with a new
cross-reference section pointing back to the old one (PDF 1.7, 7.5.6).
"""

from __future__ import annotations

import hashlib
import io
import re
from typing import Any

from pypdf import PdfReader
from pypdf.generic import (
    ArrayObject,
    DictionaryObject,
    EncodedStreamObject,
    IndirectObject,
    NameObject,
    NumberObject,
    PdfObject,
    StreamObject,
    TextStringObject,
)

STARTXREF = re.compile(rb"startxref\s+(\d+)\s+%%EOF\s*$")
SUBSET_TAG = re.compile(r"^/([A-Z]{6})\+")
FONT_NAME_KEYS = ("/BaseFont", "/FontName")


class Update:
    """The objects to append to ``pdf``, by number; numbers past the file's are new."""

    def __init__(self, pdf: bytes) -> None:
        self.pdf = pdf
        self.reader = PdfReader(io.BytesIO(pdf))
        size = self.reader.trailer["/Size"]
        assert isinstance(size, int), size  # a NumberObject
        self.size: int = int(size)
        self.objects: dict[int, PdfObject] = {}
        self.info: IndirectObject | None = None

    def add(self, obj: PdfObject) -> IndirectObject:
        """A new object of the file; its reference."""
        number = self.size
        self.size += 1
        self.objects[number] = obj
        return IndirectObject(number, 0, None)

    def replace(self, ref: IndirectObject, obj: PdfObject) -> None:
        """Object ``ref`` of the file, changed."""
        self.objects[ref.idnum] = obj

    def copy_from(self, obj: Any, numbers: dict[int, IndirectObject]) -> Any:
        """``obj`` of another PDF, with every object it refers to added to this one."""
        if isinstance(obj, IndirectObject):
            if obj.idnum not in numbers:
                numbers[obj.idnum] = self.add(NumberObject(0))  # reserved, then filled
                self.objects[numbers[obj.idnum].idnum] = self.copy_from(obj.get_object(), numbers)
            return numbers[obj.idnum]
        if isinstance(obj, StreamObject):
            stream = EncodedStreamObject()
            stream.update({k: self.copy_from(v, numbers) for k, v in obj.items()})
            stream._data = obj._data
            return stream
        if isinstance(obj, DictionaryObject):
            return DictionaryObject({k: self.copy_from(v, numbers) for k, v in obj.items()})
        if isinstance(obj, ArrayObject):
            return ArrayObject(self.copy_from(v, numbers) for v in obj)
        return obj

    def retag_subsets(self, copied: dict[int, IndirectObject]) -> None:
        """Give the font subsets among the ``copied`` objects tags no font of the file has.

        Two printings of one book each name their first subset ``AAAAAA+``; ISO 32000 (9.6.4)
        wants a tag per subset, so the copied ones are renamed, the same way each time.
        """
        taken = {tag for name in _font_names(self.reader) if (tag := subset_tag(name))}
        renamed: dict[str, str] = {}
        for ref in copied.values():
            obj = self.objects.get(ref.idnum)
            if not isinstance(obj, DictionaryObject):
                continue
            for key in FONT_NAME_KEYS:
                name = obj.get(key)
                tag = subset_tag(name) if isinstance(name, str) else None
                if tag is None or tag not in taken:
                    continue
                if tag not in renamed:
                    renamed[tag] = fresh_subset_tag(tag, taken)
                    taken.add(renamed[tag])
                obj[NameObject(key)] = NameObject(f"/{renamed[tag]}+{str(name)[8:]}")

    def set_info(self, entries: dict[str, str]) -> None:
        """The document's metadata (a new Info dictionary)."""
        self.info = self.add(
            DictionaryObject({NameObject(k): TextStringObject(v) for k, v in entries.items()})
        )

    def write(self) -> bytes:
        """The file with this update appended."""
        match = STARTXREF.search(self.pdf[-64:])
        if match is None:
            raise ValueError("not a PDF that ends with startxref")
        out = bytearray(self.pdf if self.pdf.endswith(b"\n") else self.pdf + b"\n")
        offsets = {}
        for number in sorted(self.objects):
            offsets[number] = len(out)
            body = io.BytesIO()
            self.objects[number].write_to_stream(body)
            out += b"%d 0 obj\n%s\nendobj\n" % (number, body.getvalue())
        xref = len(out)
        out += b"xref\n"
        numbers = sorted(offsets)
        start = 0
        while start < len(numbers):
            end = start
            while end + 1 < len(numbers) and numbers[end + 1] == numbers[end] + 1:
                end += 1
            out += b"%d %d\n" % (numbers[start], end - start + 1)
            for number in numbers[start : end + 1]:
                out += b"%010d 00000 n \n" % offsets[number]
            start = end + 1
        trailer = DictionaryObject(
            {
                NameObject("/Size"): NumberObject(self.size),
                NameObject("/Root"): self.reader.trailer.raw_get("/Root"),
                NameObject("/Prev"): NumberObject(int(match.group(1))),
            }
        )
        if self.info is not None:
            trailer[NameObject("/Info")] = self.info
        if "/ID" in self.reader.trailer:
            trailer[NameObject("/ID")] = self.reader.trailer.raw_get("/ID")
        body = io.BytesIO()
        trailer.write_to_stream(body)
        out += b"trailer\n%s\nstartxref\n%d\n%%%%EOF\n" % (body.getvalue(), xref)
        return bytes(out)


def subset_tag(name: str) -> str | None:
    """The six-letter subset tag of a font name (``ABCDEF+Name``), or None."""
    match = SUBSET_TAG.match(name)
    return match.group(1) if match else None


def _font_names(reader: PdfReader) -> set[str]:
    """Every font and font descriptor name the pages of ``reader`` use."""
    names: set[str] = set()
    for page in reader.pages:
        fonts = page.get("/Resources", {}).get("/Font", {})
        for font in fonts.values():
            font = font.get_object()
            for part in [font, *(d.get_object() for d in font.get("/DescendantFonts", []))]:
                names.add(str(part.get("/BaseFont", "")))
                descriptor = part.get("/FontDescriptor")
                if descriptor is not None:
                    names.add(str(descriptor.get_object().get("/FontName", "")))
    return names


def fresh_subset_tag(tag: str, taken: set[str]) -> str:
    """Six capital letters derived from ``tag``, none of ``taken``."""
    seed = tag.encode("ascii")
    while True:
        seed = hashlib.sha256(seed).digest()
        fresh = "".join(chr(65 + byte % 26) for byte in seed[:6])
        if fresh not in taken:
            return fresh
