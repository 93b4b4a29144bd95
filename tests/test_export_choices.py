"""The book choices players click: the exports page's form, its posts, and the JSON API's exports."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.export import keeper, vertical
from companion.export.vertical import INSTALL_COMMAND
from companion.store.db import connect
from companion.streams import chronicles
from companion.streams.demo import create_demo

# Each choice on the page: its value and the sentence that says what it is for.
SENTENCES = {
    "book": "to print at home or read on a screen.",
    "print-shop": "files a print shop accepts as they are.",
    "vertical": "like a Japanese paperback.",
    "epub": "the text follows the reader's font and size.",
    "epub-vertical": "the e-book in vertical Japanese, pages turning right to left.",
    "booklet": "print both sides, flipping on the short edge, then fold the stack in half",
    "booklet-vertical": "the vertical book as a booklet, bound on the right",
    "vault": "a zip of linked notes, one per turning point",
}


@pytest.fixture
def spawned(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The worker starts asked for, without starting one."""
    started: list[Any] = []
    monkeypatch.setattr(keeper, "ensure_for_app", started.append)
    return started


@pytest.fixture
def chromium(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vertical, "chromium_path", lambda: "/usr/bin/chromium")


@pytest.fixture
def no_chromium(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vertical, "chromium_path", lambda: None)


def demo(app: Flask, language: str) -> chronicles.Created:
    return create_demo(connect(app.config["DATABASE"]), language)


def queued_layouts(app: Flask) -> list[str]:
    db = connect(app.config["DATABASE"])
    rows = db.execute("SELECT layout, status FROM exports ORDER BY layout").fetchall()
    assert all(status == "queued" for _layout, status in rows)
    return [layout for layout, _status in rows]


def book_form(client: FlaskClient, token: str) -> str:
    html = client.get(f"/c/{token}/story?lang=en").get_data(as_text=True)
    match = re.search(r'<details class="export-pdf".*?</details>', html, re.S)
    assert match, "the story page has no book form"
    return match.group(0)


def offered(form: str) -> set[str]:
    return set(re.findall(r'name="kind" value="([^"]+)"', form))


def test_a_japanese_life_is_offered_every_book_with_its_sentence(
    app: Flask, client: FlaskClient, chromium: None
) -> None:
    form = book_form(client, demo(app, "ja").host_token)
    assert offered(form) == set(SENTENCES)
    for kind, sentence in SENTENCES.items():
        label = re.search(
            rf'<label><input type="radio" name="kind" value="{kind}".*?</label>', form
        )
        assert label and sentence in label.group(0), kind
    assert 'value="story"' in form and 'value="annotated"' in form
    assert re.findall(r'<option value="([a-z0-9-]+)"', form)[2:] == [
        "a5",
        "a4",
        "b6",
        "a6",
        "shinsho",
        "half-letter",
    ]
    thicknesses = re.findall(r'name="thickness">(.*?)</select>', form, re.S)[0]
    assert re.findall(r'value="([0-9.]+)"', thicknesses) == ["0.08", "0.1", "0.13", "0.16"]
    assert 'value="0.1" selected' in thicknesses
    assert INSTALL_COMMAND not in form


def test_an_english_life_has_no_vertical_books(
    app: Flask, client: FlaskClient, no_chromium: None
) -> None:
    form = book_form(client, demo(app, "en").host_token)
    assert offered(form) == {"book", "print-shop", "booklet", "epub", "vault"}
    assert INSTALL_COMMAND not in form  # nothing to install for a book it cannot have


def test_without_chromium_the_page_gives_the_install_command(
    app: Flask, client: FlaskClient, no_chromium: None, spawned: list[Any]
) -> None:
    token = demo(app, "ja").host_token
    form = book_form(client, token)
    assert "vertical" not in offered(form) and "epub-vertical" in offered(form)
    assert "booklet-vertical" not in offered(form)
    assert f"<code>{INSTALL_COMMAND}</code>" in form
    response = client.post(
        f"/c/{token}/export/pdf?lang=en",
        data={"kind": "vertical", "edition": "story", "paper": "a6"},
        follow_redirects=True,
    )
    page = response.get_data(as_text=True)
    assert response.status_code == 200 and response.request.path.endswith("/story")
    assert "printed by Chromium, which is not installed" in page and INSTALL_COMMAND in page
    assert queued_layouts(app) == [] and spawned == []


@pytest.mark.parametrize(
    ("kind", "thickness", "layouts"),
    [
        ("book", None, ["book"]),
        ("print-shop", "0.13", ["cover-130", "print"]),
        ("print-shop", None, ["cover-100", "print"]),
        ("vertical", None, ["vertical"]),
        ("epub", None, ["epub"]),
        ("epub-vertical", "0.08", ["epub-vertical"]),
        ("booklet", None, ["booklet"]),
        ("booklet-vertical", None, ["booklet-vertical"]),
        ("vault", None, ["vault"]),
    ],
)
def test_each_choice_queues_its_books(
    app: Flask,
    client: FlaskClient,
    chromium: None,
    spawned: list[Any],
    kind: str,
    thickness: str | None,
    layouts: list[str],
) -> None:
    token = demo(app, "ja").host_token
    data = {"kind": kind, "edition": "annotated", "paper": "a5" if "booklet" in kind else "b6"}
    if thickness is not None:
        data["thickness"] = thickness
    response = client.post(f"/c/{token}/export/pdf?lang=en", data=data, follow_redirects=True)
    assert response.status_code == 200
    assert "The book is being made" in response.get_data(as_text=True)
    assert queued_layouts(app) == layouts and len(spawned) == 1
    # The page then lists each book being made under its own name.
    listed = client.get(f"/c/{token}/story?lang=en").get_data(as_text=True)
    assert listed.count('class="export-job export-queued"') == len(layouts)


@pytest.mark.parametrize(
    ("language", "data", "message"),
    [
        ("en", {"kind": "vertical"}, "cannot be made of this chronicle"),
        ("en", {"kind": "epub-vertical"}, "cannot be made of this chronicle"),
        ("ja", {"kind": "deluxe"}, "cannot be made of this chronicle"),
        ("ja", {"kind": "print-shop", "thickness": "thick"}, "A paper is 0.04 to 0.3 mm thick."),
        ("ja", {"kind": "print-shop", "thickness": "2"}, "A paper is 0.04 to 0.3 mm thick."),
        ("ja", {"kind": "print-shop", "thickness": "nan"}, "A paper is 0.04 to 0.3 mm thick."),
        ("ja", {"kind": "print-shop", "thickness": "1e999"}, "A paper is 0.04 to 0.3 mm thick."),
        ("ja", {"kind": "booklet", "paper": "b6"}, "A booklet is an A5 book printed on A4"),
        ("en", {"kind": "booklet-vertical"}, "cannot be made of this chronicle"),
    ],
)
def test_impossible_choices_are_refused_with_a_sentence(
    app: Flask,
    client: FlaskClient,
    chromium: None,
    spawned: list[Any],
    language: str,
    data: dict[str, str],
    message: str,
) -> None:
    token = demo(app, language).host_token
    response = client.post(
        f"/c/{token}/export/pdf?lang=en",
        data={"edition": "story", "paper": "a5", **data},
        follow_redirects=True,
    )
    assert response.status_code == 200 and message in response.get_data(as_text=True)
    assert queued_layouts(app) == [] and spawned == []


def test_the_refusal_speaks_japanese_to_a_japanese_reader(
    app: Flask, client: FlaskClient, no_chromium: None
) -> None:
    token = demo(app, "ja").host_token
    response = client.post(
        f"/c/{token}/export/pdf?lang=ja",
        data={"kind": "vertical", "edition": "story", "paper": "a6"},
        follow_redirects=True,
    )
    page = response.get_data(as_text=True)
    assert "このサーバーには入っていません" in page and INSTALL_COMMAND in page


def api_export(client: FlaskClient, token: str, **body: Any) -> Any:
    return client.post(f"/api/v1/chronicles/{token}/exports?lang=en", json=body)


def test_the_api_queues_every_kind_of_book(
    app: Flask, client: FlaskClient, chromium: None, spawned: list[Any]
) -> None:
    app.config["EXPORT_QUEUE_PER_STREAM"] = 5  # every kind at once: more than the default share
    token = demo(app, "ja").reader_token
    epub = api_export(client, token, format="epub", edition="story")
    assert epub.status_code == 202 and epub.get_json()["layout"] == "epub"
    assert epub.get_json()["format"] == "epub" and "cover" not in epub.get_json()
    tate = api_export(client, token, format="epub", vertical=True)
    assert tate.status_code == 202 and tate.get_json()["layout"] == "epub-vertical"
    shop = api_export(client, token, format="pdf", print_shop=True, paper_thickness=0.13)
    body = shop.get_json()
    assert shop.status_code == 202 and body["layout"] == "print" and body["format"] == "pdf"
    assert body["cover"]["layout"] == "cover-130" and body["cover"]["status"] == "queued"
    assert client.get(body["cover"]["status_url"]).get_json()["id"] == body["cover"]["id"]
    book = api_export(client, token, format="pdf", vertical=True, paper="a6")
    assert book.status_code == 202 and book.get_json()["layout"] == "vertical"
    assert queued_layouts(app) == ["cover-130", "epub", "epub-vertical", "print", "vertical"]
    again = api_export(client, token, format="pdf", print_shop=True, paper_thickness=0.13)
    assert again.get_json()["cover"]["id"] == body["cover"]["id"]  # the same jobs, not new ones


def test_the_api_refuses_a_vertical_pdf_without_chromium(
    app: Flask, client: FlaskClient, no_chromium: None, spawned: list[Any]
) -> None:
    token = demo(app, "ja").host_token
    response = api_export(client, token, format="pdf", vertical=True)
    body = response.get_json()
    assert response.status_code == 400 and body["code"] == "chromium-missing"
    assert INSTALL_COMMAND in body["error"]
    assert api_export(client, token, format="epub", vertical=True).status_code == 202


@pytest.mark.parametrize(
    ("language", "body", "message"),
    [
        ("ja", {"format": "pdf", "print_shop": "yes"}, "true or false"),
        ("ja", {"format": "pdf", "vertical": 1}, "true or false"),
        ("ja", {"format": "pdf", "print_shop": True, "paper_thickness": "0.1"}, "millimetres"),
        ("ja", {"format": "pdf", "print_shop": True, "paper_thickness": True}, "millimetres"),
        ("ja", {"format": "pdf", "print_shop": True, "paper_thickness": 2}, "0.04 to 0.3 mm"),
        ("ja", {"format": "pdf", "print_shop": True, "paper_thickness": 0}, "0.04 to 0.3 mm"),
        ("ja", {"format": "pdf", "print_shop": True, "vertical": True}, "cannot be made"),
        ("en", {"format": "pdf", "vertical": True}, "cannot be made"),
        ("en", {"format": "epub", "vertical": True}, "cannot be made"),
        ("ja", {"format": "docx"}, "Choose a format"),
        ("ja", {"format": "epub", "bleed": 3}, "Choose a format"),
    ],
)
def test_the_api_refuses_bad_book_requests_with_a_message(
    app: Flask,
    client: FlaskClient,
    chromium: None,
    spawned: list[Any],
    language: str,
    body: dict[str, Any],
    message: str,
) -> None:
    token = demo(app, language).host_token
    response = api_export(client, token, **body)
    assert response.status_code == 400, response.get_data(as_text=True)
    assert response.get_json()["code"] == "bad-export"
    assert message in response.get_json()["error"]
    assert queued_layouts(app) == [] and spawned == []


def test_the_cli_writes_an_epub_and_names_what_a_vertical_pdf_needs(
    app: Flask, no_chromium: None, tmp_path: Any
) -> None:
    import zipfile

    created = demo(app, "ja")
    runner = app.test_cli_runner()
    epub = tmp_path / "life.epub"
    result = runner.invoke(args=["export", created.id, "--format", "epub", "-o", str(epub)])
    assert result.exit_code == 0, result.output
    archive = zipfile.ZipFile(epub)
    assert archive.read("mimetype") == b"application/epub+zip"
    assert "page-progression-direction" not in archive.read("EPUB/content.opf").decode()
    pdf = tmp_path / "life.pdf"
    args = ["export", created.id, "--format", "pdf", "--vertical", "-o", str(pdf)]
    refused = runner.invoke(args=args)
    assert refused.exit_code == 1 and INSTALL_COMMAND in refused.output
    assert not pdf.exists()


# What the exports page calls each book: its kind, its edition, and its paper when it has one.
LABELS = {
    ("book", "a5"): ("Story edition, A5", "物語版・A5"),
    ("print", "b6"): ("Print shop: the pages · Story edition, B6", None),
    ("vertical", "a6"): ("Vertical PDF · Story edition, A6", None),
    ("booklet", "a5"): (
        "Booklet · Story edition, A5 on A4",
        "小冊子・物語版・A5（A4 用紙に面付け）",
    ),
    ("booklet", "half-letter"): ("Booklet · Story edition, Half letter on US Letter", None),
    ("epub", "a5"): ("EPUB · Story edition", "EPUB・物語版"),
    ("epub-vertical", "a4"): ("Vertical EPUB · Story edition", None),
    ("vault", "a5"): ("Obsidian vault · Story edition", "Obsidian 保管庫・物語版"),
}


@pytest.mark.parametrize(("layout", "paper"), list(LABELS))
def test_every_job_names_its_edition_and_only_a_pdf_its_paper(
    app: Flask, layout: str, paper: str
) -> None:
    from companion.export import jobs
    from companion.web.chronicle.export_view import describe

    created = demo(app, "ja")
    db = connect(app.config["DATABASE"])
    job, _new = jobs.request_book(
        db, Path(app.config["EXPORTS_DIR"]), created.id, 1, "story", paper, layout
    )
    english, japanese = LABELS[layout, paper]
    for lang, expected in (("en", english), ("ja", japanese)):
        with app.test_request_context(f"/?lang={lang}"):
            label = describe(created.host_token, job)["label"]
        if expected is not None:
            assert label == expected, (lang, label)
        if layout in ("epub", "epub-vertical", "vault"):
            assert "A5" not in label and "A4" not in label  # an e-book has no paper size


def test_the_api_queues_booklets_and_the_vault(
    app: Flask, client: FlaskClient, chromium: None, spawned: list[Any]
) -> None:
    token = demo(app, "ja").reader_token
    vault = api_export(client, token, format="vault")
    assert vault.status_code == 202, vault.get_json()
    assert (vault.get_json()["layout"], vault.get_json()["format"]) == ("vault", "vault")
    booklet = api_export(client, token, format="pdf", booklet=True, paper="half-letter")
    assert booklet.status_code == 202 and booklet.get_json()["layout"] == "booklet"
    tate = api_export(client, token, format="pdf", booklet=True, vertical=True)
    assert tate.status_code == 202 and tate.get_json()["layout"] == "booklet-vertical"
    for bad in ({"paper": "b6"}, {"print_shop": True}, {"booklet": "yes"}):
        refused = api_export(client, token, format="pdf", **{"booklet": True, **bad})
        assert refused.status_code == 400 and refused.get_json()["code"] == "bad-export"
    assert queued_layouts(app) == ["booklet", "booklet-vertical", "vault"]
