"""Where the data lives, what `companion info` says, and /healthz's view of the database."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.base import __version__, paths

ROOT = Path(__file__).resolve().parent.parent


def test_a_checkout_keeps_its_data_in_instance(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COMPANION_INSTANCE", raising=False)
    assert paths.is_checkout()
    assert paths.instance_folder() == ROOT / "instance"
    assert paths.resources().templates == ROOT / "templates"


def test_an_installed_package_keeps_its_data_in_the_users_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(paths, "is_checkout", lambda: False)
    monkeypatch.delenv("COMPANION_INSTANCE", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert paths.instance_folder() == tmp_path / ".local" / "share" / "ijinsho-companion"
    assert paths.resources().static == paths.BUNDLE / "static"
    monkeypatch.setenv("COMPANION_INSTANCE", str(tmp_path / "elsewhere"))
    assert paths.instance_folder() == tmp_path / "elsewhere"


def test_info_names_the_files_and_versions(app: Flask) -> None:
    result = app.test_cli_runner().invoke(args=["info"])
    assert result.exit_code == 0, result.output
    assert f"database:     {app.config['DATABASE']}" in result.output
    assert f"exports:      {app.config['EXPORTS_DIR']}" in result.output
    assert f"companion:    {__version__}" in result.output
    for name in ("instance:", "schema:", "server:       not running", "sqlite:", "weasyprint:"):
        assert name in result.output


def test_every_command_has_a_one_line_summary(app: Flask) -> None:
    from companion.app import main

    listing = app.test_cli_runner().invoke(main, ["--help"]).output.split("Running a server:")[1]
    lines = [line for line in listing.splitlines() if line.startswith("  ")]
    for wanted in ("backup", "info", "restore", "serve", "demo", "export", "import", "init-db"):
        assert any(line.split()[0] == wanted for line in lines), wanted
    assert not any(line.rstrip().endswith("...") for line in lines), listing


def test_healthz_reports_a_writable_database(client: FlaskClient) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json == {
        "status": "ok",
        "version": __version__,
        "database_writable": True,
        "export_worker": "on-demand",
    }


def test_healthz_is_503_when_the_database_takes_no_writes(app: Flask, client: FlaskClient) -> None:
    holder = sqlite3.connect(app.config["DATABASE"], isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # a stuck writer: nothing else can write
    try:
        response = client.get("/healthz")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert response.status_code == 503
    assert response.json is not None
    assert response.json["status"] == "unavailable"
    assert response.json["database_writable"] is False
    assert client.get("/healthz").status_code == 200
