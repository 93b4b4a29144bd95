"""Prompt packs in the browser: list, preview, download, upload with its checks, and chronicles
that keep the prompts they were set up with."""

from __future__ import annotations

import io

import pytest
from conftest import make_app
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
    assert installed_name(response).startswith("harbour-")
    assert "HARBOUR" in client.get(response.headers["Location"]).get_data(as_text=True)


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
    name = installed_name(upload(client, custom_pack_text()))
    token = create(client, pack=name)
    post_turn(client, app, token, action="draw", card="AH")
    assert "HARBOUR" in client.get(f"/c/{token}/").get_data(as_text=True)
    assert installed_name(upload(client, custom_pack_text(marker="CHANGED"))) == name
    assert "CHANGED" in client.get(f"/packs/{name}/en").get_data(as_text=True)
    page = client.get(f"/c/{token}/").get_data(as_text=True)
    assert "HARBOUR" in page and "CHANGED" not in page
    assert chronicle(app, token).state.setup.pack_name == name


def installed_name(response) -> str:  # type: ignore[no-untyped-def]
    """The stored name of an uploaded pack, from the preview page the upload redirects to."""
    assert response.status_code == 302, response.get_data(as_text=True)[-800:]
    return str(response.headers["Location"]).split("/")[2]


def test_the_same_name_from_two_people_keeps_both(app: Flask) -> None:
    first, second = app.test_client(), app.test_client()
    mine = installed_name(upload(first, custom_pack_text(marker="FIRST")))
    theirs = installed_name(upload(second, custom_pack_text(marker="SECOND")))
    assert mine != theirs
    assert "FIRST" in first.get(f"/packs/{mine}/en").get_data(as_text=True)
    assert "SECOND" in first.get(f"/packs/{theirs}/en").get_data(as_text=True)
    assert ">yours<" in first.get("/packs/").get_data(as_text=True)


def test_an_uploader_adds_the_other_language_under_the_same_name(client: FlaskClient) -> None:
    name = installed_name(upload(client, custom_pack_text()))
    japanese = custom_pack_text().replace("language: en", "language: ja")
    assert installed_name(upload(client, japanese, "harbour.ja.md")) == name


def test_too_many_packs_are_refused_with_a_sentence(tmp_path) -> None:  # type: ignore[no-untyped-def]
    app = make_app(tmp_path, PACKS_PER_CLIENT=2, PACKS_MAX=3)
    one, other = app.test_client(), app.test_client()
    for name in ("a", "b"):
        installed_name(upload(one, custom_pack_text(name=name)))
    refused = upload(one, custom_pack_text(name="c"))
    assert refused.status_code == 400
    assert "as many as one person may" in refused.get_data(as_text=True)
    installed_name(upload(other, custom_pack_text(name="d")))
    full = upload(other, custom_pack_text(name="e"))
    assert full.status_code == 400 and "make room" in full.get_data(as_text=True)


def test_a_file_over_the_size_limit_is_refused(client: FlaskClient) -> None:
    big = custom_pack_text() + "<!-- " + "x" * (256 * 1024) + " -->\n"
    response = upload(client, big)
    assert response.status_code == 400 and "was not installed" in response.get_data(as_text=True)
