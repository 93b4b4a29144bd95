"""The companion's version: one source, shown by the command line, `/healthz`, every page and
the changelog, and carried by the built wheel."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient

from companion.app import main
from companion.base import __version__

ROOT = Path(__file__).resolve().parent.parent


def test_the_version_is_a_release_number_above_the_first_releases() -> None:
    parts = tuple(int(part) for part in __version__.split("."))
    assert len(parts) == 3 and parts > (0, 1, 0)


def test_the_package_metadata_takes_the_version_from_the_code() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "companion.base.__version__"
    }
    # The installed (editable) metadata was built from the same attribute.
    assert metadata.version("ijinsho-companion") == __version__


def test_companion_version_prints_it(app: Flask) -> None:
    result = app.test_cli_runner().invoke(main, ["--version"])
    assert result.exit_code == 0 and result.output == f"companion {__version__}\n"


def test_every_page_names_the_version_in_its_footer_in_both_languages(client: FlaskClient) -> None:
    ja = client.get("/?lang=ja").get_data(as_text=True)
    en = client.get("/?lang=en").get_data(as_text=True)
    assert f'<p class="site-version">バージョン {__version__}</p>' in ja
    assert f'<p class="site-version">Version {__version__}</p>' in en


def test_the_changelog_opens_with_this_version_and_keeps_the_first() -> None:
    text = (ROOT / "CHANGELOG.md").read_text()
    headings = re.findall(r"^## (\d+\.\d+\.\d+)", text, flags=re.M)
    assert headings[0] == __version__ and headings[-1] == "0.1.0"
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        assert "Upgrading" in section, section.splitlines()[0]
