"""Playwright is the `vertical` extra, not a dependency: without it the app runs, offers no
vertical PDF, and says in a sentence what to install when one is asked for."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape
from test_export_choices import api_export, book_form, demo, offered, queued_layouts

from companion.export import keeper, vertical
from companion.export.vertical import EXTRA_COMMAND

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def no_playwright(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    monkeypatch.setattr(vertical, "chromium_path", lambda: "/usr/bin/chromium")
    monkeypatch.setattr(vertical, "playwright_installed", lambda: False)
    started: list[Any] = []
    monkeypatch.setattr(keeper, "ensure_for_app", started.append)
    return started


def test_playwright_is_an_extra_and_no_lock_of_the_app_holds_it() -> None:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not any(d.startswith("playwright") for d in project["dependencies"])
    assert project["optional-dependencies"]["vertical"] == ["playwright>=1.40"]
    for lock in ("app.lock", "postgres.lock"):
        assert "\nplaywright==" not in (ROOT / "requirements" / lock).read_text(), lock
    assert "\nplaywright==" in (ROOT / "requirements" / "vertical.lock").read_text()


def test_the_app_and_a_book_load_without_playwright() -> None:
    code = (
        "import sys; sys.modules['playwright'] = None\n"  # an import of it would fail
        "from companion.app import create_app\n"
        "import companion.export.vertical, companion.export.worker, companion.ops.cli\n"
        "create_app({'TESTING': True, 'SECRET_KEY': 'x', 'DATABASE': ':memory:'})\n"
        "assert sys.modules['playwright'] is None\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr


def test_without_playwright_the_page_names_the_extra(
    app: Flask, client: FlaskClient, no_playwright: list[Any]
) -> None:
    token = demo(app, "ja").host_token
    form = book_form(client, token)
    assert "vertical" not in offered(form) and "epub-vertical" in offered(form)
    assert str(escape(EXTRA_COMMAND)) in form
    response = client.post(
        f"/c/{token}/export/pdf?lang=en",
        data={"kind": "vertical", "edition": "story", "paper": "a6"},
        follow_redirects=True,
    )
    page = response.get_data(as_text=True)
    assert (
        "printed by Chromium through Playwright" in page and "ijinsho-companion[vertical]" in page
    )
    assert queued_layouts(app) == [] and no_playwright == []


def test_without_playwright_the_api_and_the_cli_name_the_extra(
    app: Flask, client: FlaskClient, no_playwright: list[Any], tmp_path: Path
) -> None:
    created = demo(app, "ja")
    response = api_export(client, created.host_token, format="pdf", vertical=True)
    assert response.status_code == 400 and EXTRA_COMMAND in response.get_json()["error"]
    pdf = tmp_path / "life.pdf"
    args = ["export", created.id, "--format", "pdf", "--vertical", "-o", str(pdf)]
    refused = app.test_cli_runner().invoke(args=args)
    assert refused.exit_code == 1 and EXTRA_COMMAND in refused.output and not pdf.exists()
    assert "Traceback" not in refused.output
