"""Each page names in its head the font slices its characters need, and only those."""

from __future__ import annotations

import json
import re
from pathlib import Path

from flask.testing import FlaskClient
from play_helpers import create

from companion.web.shell.font_preload import JAPANESE

ROOT = Path(__file__).resolve().parent.parent
INDEX = json.loads((ROOT / "static" / "fonts" / "screen" / "faces.json").read_text("utf-8"))


def preloads(html: str) -> list[str]:
    found = re.findall(r'<link rel="preload" href="/static/fonts/screen/([^"]+)" as="font"'
                       r' type="font/woff2" crossorigin>', html)  # fmt: skip
    head = html.split("</head>")[0]
    assert all(f"/static/fonts/screen/{name}" in head for name in found)
    return found


def drawn_by(family: str, names: list[str]) -> set[int]:
    files = dict((filename, spans) for filename, spans in INDEX[family])
    return {
        code
        for name in names
        if name in files
        for low, high in files[name]
        for code in range(low, high + 1)
    }


def test_a_japanese_page_preloads_the_gothic_slices_of_its_characters(
    client: FlaskClient,
) -> None:
    html = client.get("/new?lang=ja").get_data(as_text=True)
    names = preloads(html)
    shown = {ord(ch) for ch in JAPANESE.findall(html)}
    assert shown <= drawn_by("Ijin Gothic", names) | drawn_by("Ijin Names", names)
    # Only what it needs: every slice it names draws one of its characters.
    for name in names:
        if name.startswith("gothic-"):
            assert drawn_by("Ijin Gothic", [name]) & shown, name


def test_an_english_page_preloads_no_japanese_text_slice(client: FlaskClient) -> None:
    for path in ("/?lang=en", "/new?lang=en", "/games/?lang=en"):
        names = preloads(client.get(path).get_data(as_text=True))
        assert names and not [n for n in names if n.startswith("gothic-")], (path, names)


def test_fragments_and_books_are_left_as_they_are(client: FlaskClient) -> None:
    token = create(client, language="ja")
    fragment = client.get(f"/c/{token}/?fragment=1").get_data(as_text=True)
    assert 'rel="preload"' not in fragment
    from companion.web.shell.font_preload import PreloadingTemplate

    template = client.application.jinja_env.from_string("<html><head></head>日本</html>")
    assert isinstance(template, PreloadingTemplate)
    assert template.render() == "<html><head></head>日本</html>"  # no request: a book's page
