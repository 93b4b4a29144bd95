"""Checks every PDF the app makes must pass: qpdf reads it without a warning, and each font
program has a subset tag of its own (ISO 32000-1, 9.6.4)."""

from __future__ import annotations

import hashlib
import io
import re
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

needs_qpdf = pytest.mark.skipif(
    shutil.which("qpdf") is None, reason="qpdf is not installed (scripts/setup --test installs it)"
)
SUBSET = re.compile(r"^/?[A-Z]{6}\+")


def qpdf_warnings(tmp_path: Path, data: bytes, name: str = "book.pdf") -> list[str]:
    """What ``qpdf --check`` says is wrong with ``data``: every warning and error line."""
    path = tmp_path / name
    path.write_bytes(data)
    done = subprocess.run(["qpdf", "--check", str(path)], capture_output=True, text=True)
    lines = (done.stdout + done.stderr).splitlines()
    # qpdf exits 3 on warnings and 2 on errors; its lines name them so.
    problems = [line for line in lines if line.startswith(("WARNING", "ERROR")) or "qpdf:" in line]
    if done.returncode != 0:
        problems.append(f"qpdf exited {done.returncode}")
    return problems


def _fonts(resources: Any, seen: set[int]) -> list[Any]:
    """The fonts of a resource dictionary and of every form XObject under it."""
    found: list[Any] = []
    if resources is None:
        return found
    resources = resources.get_object()
    for font in resources.get("/Font", {}).values():
        found.append(font.get_object())
    for xobject in resources.get("/XObject", {}).values():
        ref = getattr(xobject, "idnum", None)
        if ref is not None and ref in seen:
            continue
        if ref is not None:
            seen.add(ref)
        xobject = xobject.get_object()
        if xobject.get("/Subtype") == "/Form":
            found.extend(_fonts(xobject.get("/Resources"), seen))
    return found


def subset_programs(data: bytes) -> dict[str, set[str]]:
    """Each subset font name of ``data`` with the digests of the font programs it names."""
    reader = PdfReader(io.BytesIO(data))
    programs: dict[str, set[str]] = defaultdict(set)
    seen: set[int] = set()
    for page in reader.pages:
        for font in _fonts(page.get("/Resources"), seen):
            for part in [font, *(d.get_object() for d in font.get("/DescendantFonts", []))]:
                descriptor = part.get("/FontDescriptor")
                if descriptor is None:
                    continue
                descriptor = descriptor.get_object()
                name = str(descriptor.get("/FontName", ""))
                if not SUBSET.match(name):
                    continue
                for key in ("/FontFile", "/FontFile2", "/FontFile3"):
                    if key in descriptor:
                        program = descriptor[key].get_object().get_data()
                        programs[name].add(hashlib.sha256(program).hexdigest())
    return dict(programs)


def shared_subset_tags(data: bytes) -> dict[str, int]:
    """Subset names that stand for more than one font program, with how many."""
    return {name: len(p) for name, p in subset_programs(data).items() if len(p) > 1}
