"""Each page names the font slices its characters need, so they come with the page.

The screen's faces are slices (``scripts/screen_fonts.py``) shown with ``font-display:
optional``: a slice that is not there within a moment is not swapped in later, so nothing on the
page ever moves. A browser learns which slices a page needs only once it has laid the page out;
told in the page's head (``<link rel="preload">``), it fetches them with the stylesheet and draws
the page with them from the first paint. The slices of a page's Japanese characters are found in
``static/fonts/screen/faces.json``, where no character is in two faces: the names face's, else
the Gothic slice's; the brand mark's face is named on every page.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask, current_app, has_request_context, url_for
from flask.globals import request_ctx
from jinja2 import Template

INDEX = "fonts/screen/faces.json"
FOLDER = "fonts/screen/"
JAPANESE = re.compile(
    "[\u3000-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]"
)
LANG = re.compile(r'<html lang="([\w-]+)"')
HEAD_END = "</head>"


@dataclass(frozen=True)
class Family:
    """One family's slices: the first code point of each run, its last, and its file."""

    starts: list[int]
    ends: list[int]
    files: list[str]

    def file_of(self, code: int) -> str | None:
        """The slice that draws ``code``, if one does."""
        at = bisect.bisect_right(self.starts, code) - 1
        return self.files[at] if at >= 0 and code <= self.ends[at] else None


def _family(slices: list[list[object]]) -> Family:
    runs = sorted(
        (int(low), int(high), str(filename))
        for filename, spans in slices
        for low, high in spans  # type: ignore[attr-defined]
    )
    return Family([r[0] for r in runs], [r[1] for r in runs], [r[2] for r in runs])


@dataclass(frozen=True)
class Faces:
    """The slices of the text face, of the names face and of the mark."""

    text: Family
    names: Family
    mark: list[str]

    def needed(self, characters: set[str], japanese_page: bool) -> list[str]:
        """The files that draw ``characters``, as the page's stylesheet chooses them."""
        files = set(self.mark)
        for ch in characters:
            code = ord(ch)
            found = self.names.file_of(code) or self.text.file_of(code)
            if found is not None:
                files.add(found)
        return sorted(files)


def load(static: Path) -> Faces | None:
    """The index of the screen's faces; None when they were not made."""
    try:
        data = json.loads((static / INDEX).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    mark = [str(filename) for filename, _spans in data.get("Ijin Mark", [])]
    return Faces(_family(data.get("Ijin Gothic", [])), _family(data.get("Ijin Names", [])), mark)


def with_preloads(html: str) -> str:
    """``html`` with the preloads of the slices its characters need in its head (a fragment,
    without a head, as it is)."""
    faces: Faces | None = current_app.extensions.get("companion.font_preload")
    head_end = html.find(HEAD_END)
    if faces is None or head_end < 0:
        return html
    lang = LANG.search(html, 0, head_end)
    japanese_page = bool(lang and lang.group(1).startswith("ja"))
    links = "".join(
        f'<link rel="preload" href="{url_for("static", filename=FOLDER + name)}" as="font"'
        ' type="font/woff2" crossorigin>'
        for name in faces.needed(set(JAPANESE.findall(html)), japanese_page)
    )
    return html[:head_end] + links + html[head_end:]


class PreloadingTemplate(Template):
    """A template whose whole pages, rendered for a request, name their font slices (so a page
    kept by the render cache keeps them too). The books' pages are left as they are."""

    def render(self, *args: Any, **kwargs: Any) -> str:
        html = super().render(*args, **kwargs)
        name = self.name or ""
        # A request refused before it was routed (a host not trusted) has no way to build URLs.
        routed = has_request_context() and request_ctx.url_adapter is not None
        if routed and not name.startswith("book/"):
            return with_preloads(html)
        return html


def init_app(app: Flask) -> None:
    """Add the preloads to every page ``app`` renders."""
    app.extensions["companion.font_preload"] = load(Path(str(app.static_folder)))
    app.jinja_env.template_class = PreloadingTemplate
