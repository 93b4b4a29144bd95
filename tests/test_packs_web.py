"""Prompt packs in the browser: list, preview, download, upload with its checks, and chronicles
that keep the prompts they were set up with."""

from __future__ import annotations

import io

import pytest
from flask import Flask
from flask.testing import FlaskClient
from play_helpers import chronicle, create, post_turn

from companion.packs.registry import get_pack, pack_to_text


def custom_pack_text(name: str = "harbour", marker: str = "HARBOUR") -> str:
    """The English standard pack renamed, with every prompt made recognisably ours."""
    text = pack_to_text(get_pack("standard", "en"))
    lines = []
    for line in text.splitlines():
        if line.startswith("name:"):
            line = f"name: {name}"
        elif line.startswith("title:"):
            line = "title: Harbour Pack"
        elif line.startswith("- "):
            line = f"- {marker} {line[2:]}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def upload(client: FlaskClient, text: str, filename: str = "harbour.en.md"):  # type: ignore[no-untyped-def]
    return client.post(
        "/packs/upload",
        data={"pack": (io.BytesIO(text.encode("utf-8")), filename)},
        content_type="multipart/form-data",
    )


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_pack_pages_render(client: FlaskClient, lang: str) -> None:
    listing = client.get(f"/packs/?lang={lang}").get_data(as_text=True)
    assert "standard" in listing
    preview = client.get(f"/packs/standard/{lang}").get_data(as_text=True)
    pack = get_pack("standard", lang)
    assert all(prompt in preview for prompt in pack.prompts["KS"])
    assert preview.count("<dt>") == 52


def test_download_gives_the_pack_file(client: FlaskClient) -> None:
    response = client.get("/packs/standard/ja/download")
    assert response.status_code == 200
    assert "attachment" in response.headers["Content-Disposition"]
    assert response.get_data(as_text=True) == pack_to_text(get_pack("standard", "ja"))


def test_unknown_pack_is_404(client: FlaskClient) -> None:
    assert client.get("/packs/nope/en").status_code == 404
    assert client.get("/packs/standard/fr").status_code == 404


def test_upload_installs_a_valid_pack(client: FlaskClient) -> None:
    response = upload(client, custom_pack_text())
    assert response.status_code == 302
    assert "HARBOUR" in client.get("/packs/harbour/en").get_data(as_text=True)


def test_upload_lists_every_problem_with_line_and_card(client: FlaskClient) -> None:
    broken = custom_pack_text().replace("## 7H", "## 7X", 1)
    response = upload(client, broken)
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert "was not installed" in page
    assert "7X" in page and "7H" in page and "line" in page
    assert client.get("/packs/harbour/en").status_code == 404


def test_upload_refuses_to_replace_the_standard_pack(client: FlaskClient) -> None:
    response = upload(client, custom_pack_text(name="standard"))
    assert response.status_code == 400
    assert "HARBOUR" not in client.get("/packs/standard/en").get_data(as_text=True)


def test_a_chronicle_plays_with_a_custom_pack_and_keeps_its_prompts(
    client: FlaskClient, app: Flask
) -> None:
    upload(client, custom_pack_text())
    token = create(client, pack="harbour")
    post_turn(client, app, token, action="draw", card="AH")
    assert "HARBOUR" in client.get(f"/c/{token}/").get_data(as_text=True)
    upload(client, custom_pack_text(marker="CHANGED"))
    page = client.get(f"/c/{token}/").get_data(as_text=True)
    assert "HARBOUR" in page and "CHANGED" not in page
    assert chronicle(app, token).state.setup.pack_name == "harbour"
