"""The application shell: factory, start page, languages, headers, errors."""

from __future__ import annotations

import pytest
from conftest import plain_static
from flask import Flask
from flask.testing import FlaskClient

from companion.app import create_app


def test_factory_takes_test_config(app: Flask) -> None:
    assert app.testing
    assert app.config["DATABASE"].endswith("test.sqlite3")


def test_factory_without_test_config_keeps_secret_in_instance(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("COMPANION_INSTANCE", str(tmp_path / "instance"))
    real = create_app()
    assert not real.testing
    key = real.secret_key  # made on first use, kept in the instance folder
    assert isinstance(key, str) and len(key) >= 32
    assert create_app().config["SECRET_KEY"] == key


@pytest.mark.parametrize(
    ("lang", "phrase"),
    [("en", "Chronicles opened in this browser"), ("ja", "このブラウザで開いた年代記")],
)
def test_start_page_renders_in_both_languages(client: FlaskClient, lang: str, phrase: str) -> None:
    response = client.get(f"/?lang={lang}")
    assert response.status_code == 200
    assert phrase in response.get_data(as_text=True)
    assert f'<html lang="{lang}">' in response.get_data(as_text=True)


def test_language_switch_is_remembered(client: FlaskClient) -> None:
    response = client.post("/language", data={"lang": "ja", "next": "/"})
    assert response.status_code == 302
    assert "このブラウザで開いた年代記" in client.get("/").get_data(as_text=True)


def test_language_switch_never_redirects_off_site(client: FlaskClient) -> None:
    response = client.post("/language", data={"lang": "en", "next": "//evil.example/"})
    assert response.headers["Location"] == "/"


def test_security_headers_on_every_page(client: FlaskClient) -> None:
    response = client.get("/")
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "no-referrer"


def test_unknown_page_is_a_friendly_404(client: FlaskClient) -> None:
    response = client.get("/no/such/page")
    assert response.status_code == 404
    assert "Nothing here" in response.get_data(as_text=True)


def test_csrf_token_required_on_forms(csrf_app: Flask) -> None:
    client = csrf_app.test_client()
    response = client.post("/language", data={"lang": "ja", "next": "/"})
    assert response.status_code == 303  # sent back to a page (Back never posts again)
    page = client.get(response.headers["Location"]).get_data(as_text=True)
    assert "nothing was sent" in page and '<html lang="en">' in page  # the language stays
    asked = client.post("/language", data={"lang": "ja"}, headers={"Accept": "application/json"})
    assert asked.status_code == 400


def test_every_page_links_an_icon_that_is_served(client: FlaskClient) -> None:
    import re

    for path in ("/", "/games/", "/no-such-page"):
        html = client.get(path).get_data(as_text=True)
        icons = re.findall(r'<link rel="icon" href="([^"]+)"', html)
        assert [plain_static(icon) for icon in icons] == [
            "/static/favicon.svg",
            "/static/favicon.ico",
        ], path
    for path, kind in (
        (icons[0], "image/svg+xml"),
        (icons[1], "image/vnd.microsoft.icon"),
        ("/favicon.ico", "image/vnd.microsoft.icon"),  # where browsers look unasked
    ):
        response = client.get(path)
        assert response.status_code == 200 and response.mimetype == kind, path
