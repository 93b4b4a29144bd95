"""The booklet: the finished book imposed two pages a side, for a home printer.

The A5 book is laid out on A4 sheets, the half-letter book on US Letter, in saddle-stitch order:
printed on both sides (flipped on the short edge), the stack folded once and stapled at the fold
reads in order. Blank pages round the count up to a multiple of four. A book read left to right is
bound on the left (the first page on the right half of the outer side); the vertical book binds on
the right. The book is not typeset again: each page of its PDF becomes a form XObject, drawn at
its place on a sheet by pypdf.
"""

from __future__ import annotations

import io

from .contents import EditionError

MM = 72 / 25.4
# The book's paper and the sheet it is printed on (width, height in millimetres, landscape).
SHEETS = {"a5": ("A4", 297.0, 210.0), "half-letter": ("US Letter", 279.4, 215.9)}

Side = tuple[int | None, int | None]  # the pages (from 1) on a side's left and right halves


def check_paper(paper: str) -> None:
    """Refuse a book paper no home printer's sheet takes two of."""
    if paper not in SHEETS:
        raise EditionError("a booklet is an A5 book on A4 sheets or a half-letter book on Letter")


def saddle_order(pages: int, right_bound: bool = False) -> list[Side]:
    """The sides in printing order (sheet 1 outside, sheet 1 inside, sheet 2 outside, ...),
    each as the pages on its left and right halves; None is a blank page."""
    total = -(-pages // 4) * 4
    sides: list[Side] = []
    for sheet in range(total // 4):
        outside = (total - 2 * sheet, 2 * sheet + 1)
        inside = (2 * sheet + 2, total - 2 * sheet - 1)
        for left, right in (outside, inside):
            first, second = (right, left) if right_bound else (left, right)
            sides.append((first if first <= pages else None, second if second <= pages else None))
    return sides


def impose(pdf: bytes, paper: str, right_bound: bool = False) -> bytes:
    """The booklet of a finished PDF book: two of its pages on each side of a sheet."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import (
        ArrayObject,
        DecodedStreamObject,
        DictionaryObject,
        FloatObject,
        IndirectObject,
        NameObject,
    )

    check_paper(paper)
    _name, sheet_w_mm, sheet_h_mm = SHEETS[paper]
    width, height = sheet_w_mm * MM, sheet_h_mm * MM
    reader = PdfReader(io.BytesIO(pdf))
    writer = PdfWriter()
    forms: dict[int, tuple[IndirectObject, list[float]]] = {}

    def form(number: int) -> tuple[IndirectObject, list[float]]:
        if number not in forms:
            page = reader.pages[number - 1]
            box = [float(value) for value in page.mediabox]
            stream = DecodedStreamObject()
            contents = page.get_contents()
            stream.set_data(contents.get_data() if contents is not None else b"")
            stream.update(
                {
                    NameObject("/Type"): NameObject("/XObject"),
                    NameObject("/Subtype"): NameObject("/Form"),
                    NameObject("/BBox"): ArrayObject(FloatObject(v) for v in box),
                    NameObject("/Resources"): page.raw_get("/Resources").clone(writer)
                    if "/Resources" in page
                    else DictionaryObject(),
                }
            )
            forms[number] = (writer._add_object(stream.flate_encode()), box)
        return forms[number]

    for left, right in saddle_order(len(reader.pages), right_bound):
        sheet = writer.add_blank_page(width, height)
        drawn, objects = [], DictionaryObject()
        for half, number in ((0, left), (1, right)):
            if number is None:
                continue
            ref, box = form(number)
            page_w, page_h = box[2] - box[0], box[3] - box[1]
            # The two pages meet at the fold, in the middle of the sheet, centred in height.
            x = width / 2 - page_w if half == 0 else width / 2
            y = (height - page_h) / 2
            name = f"/P{number}"
            objects[NameObject(name)] = ref
            dx, dy = round(x - box[0], 3) + 0.0, round(y - box[1], 3) + 0.0
            drawn.append(f"q 1 0 0 1 {dx:.3f} {dy:.3f} cm {name} Do Q")
        content = DecodedStreamObject()
        content.set_data("\n".join(drawn).encode("ascii"))
        sheet[NameObject("/Resources")] = DictionaryObject({NameObject("/XObject"): objects})
        sheet[NameObject("/Contents")] = writer._add_object(content.flate_encode())
    if reader.metadata:
        writer.add_metadata({k: str(v) for k, v in reader.metadata.items() if isinstance(v, str)})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
