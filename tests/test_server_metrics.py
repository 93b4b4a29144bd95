"""What an operator alerts on is in `/metrics`, checked by Prometheus' own promtool: the version,
the server's processes, its health, the exports folder against its budget, the oldest queued
book, 503s by reason, and a HELP text that says what each figure is."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.app import create_app
from companion.base import __version__
from companion.store.db import init_db

PROMTOOL = Path(sys.executable).parent / "promtool"
BEARER = {"Authorization": "Bearer t0ken"}

pytestmark = pytest.mark.sqlite_only


@pytest.fixture
def metered(tmp_path: Path) -> Flask:
    database = tmp_path / "m.sqlite3"
    init_db(database)
    return create_app({
        "TESTING": True, "SECRET_KEY": "x", "DATABASE": str(database), "METRICS_TOKEN": "t0ken",
        "EXPORTS_DIR": str(tmp_path / "exports"), "EXPORTS_MAX_BYTES": 5_000_000,
        "WTF_CSRF_ENABLED": False, "RATELIMIT_ENABLED": False,
    })  # fmt: skip


def _scrape(client: FlaskClient) -> str:
    answer = client.get("/metrics", headers=BEARER)
    assert answer.status_code == 200
    return answer.get_data(as_text=True)


def _value(text: str, sample: str) -> float:
    found = re.search(rf"^{re.escape(sample)} (\S+)$", text, re.M)
    assert found, f"{sample} not in the scrape"
    return float(found.group(1))


def test_the_scrape_holds_what_an_operator_alerts_on(metered: Flask) -> None:
    (Path(metered.config["EXPORTS_DIR"])).mkdir()
    (Path(metered.config["EXPORTS_DIR"]) / "a-book.pdf").write_bytes(b"%PDF" + b"x" * 996)
    text = _scrape(metered.test_client())
    python = re.search(r'companion_build_info\{python="([^"]+)",version="([^"]+)"\} 1', text)
    assert python and python.group(2) == __version__
    assert _value(text, 'companion_health{check="database"}') == 1
    assert _value(text, 'companion_health{check="export_worker"}') == 1
    assert _value(text, "companion_exports_bytes") == 1000
    assert _value(text, "companion_exports_budget_bytes") == 5_000_000
    assert _value(text, "companion_exports_free_bytes") > 0
    assert _value(text, "companion_export_oldest_queued_seconds") == 0
    assert _value(text, "companion_processes") >= 1
    assert _value(text, "companion_process_resident_memory_bytes") > 10_000_000
    assert _value(text, "companion_process_open_fds") >= 3
    assert _value(text, "companion_process_cpu_seconds_total") > 0


def test_the_oldest_queued_book_is_measured_from_when_it_was_asked_for(metered: Flask) -> None:
    client = metered.test_client()
    created = client.post("/api/v1/chronicles", json={"pioneer": {"name": "Kaya"},
                                                      "players": ["Ali"]}).get_json()  # fmt: skip
    metered.config["EXPORT_WORKERS"] = 0
    job = client.post(f"/api/v1/chronicles/{created['host_token']}/exports", json={"format": "pdf"})
    assert job.status_code in (200, 202), job.get_json()
    an_hour_ago = (datetime.now(UTC) - timedelta(hours=1)).isoformat(timespec="milliseconds")
    conn = sqlite3.connect(metered.config["DATABASE"])
    with conn:
        conn.execute("UPDATE exports SET created = ? WHERE status = 'queued'", [an_hour_ago])
    conn.close()
    waited = _value(_scrape(client), "companion_export_oldest_queued_seconds")
    assert 3600 <= waited < 3600 + 600


def test_a_503_is_counted_by_its_reason(metered: Flask) -> None:
    client = metered.test_client()
    holder = sqlite3.connect(metered.config["DATABASE"], isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # a stuck writer: nothing else can write, or read
    try:
        answer = client.post("/api/v1/chronicles", json={"pioneer": {"name": "K"},
                                                         "players": ["A"]})  # fmt: skip
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert answer.status_code == 503
    assert _value(_scrape(client), 'companion_unavailable_answers_total{reason="busy"}') >= 1


def test_every_figure_has_a_help_text_that_says_what_it_is(metered: Flask) -> None:
    text = _scrape(metered.test_client())
    helps = re.findall(r"^# HELP (companion_\S+) (.*)$", text, re.M)
    assert len(helps) >= 12
    short = [(name, words) for name, words in helps if len(words.split()) < 4]
    assert short == []


@pytest.mark.skipif(not PROMTOOL.exists(), reason="promtool: scripts/setup --test installs it")
def test_promtool_finds_the_scrape_well_formed(metered: Flask) -> None:
    text = _scrape(metered.test_client())
    checked = subprocess.run([str(PROMTOOL), "check", "metrics"], input=text,
                             capture_output=True, text=True, timeout=60)  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr


def _shared(text: str, how: str) -> float:
    found = re.search(rf'^companion_shared_pages_total\{{how="{how}"\}} (\S+)$', text, re.M)
    return float(found.group(1)) if found else 0.0


def test_a_page_one_worker_made_is_counted_as_kept_by_the_other(metered: Flask) -> None:
    client = metered.test_client()
    created = client.post("/api/v1/chronicles", json={"pioneer": {"name": "Kaya"},
                                                      "players": ["Ali"]}).get_json()  # fmt: skip
    part = f"/c/{created['host_token']}/?fragment=1"
    before = _scrape(client)
    assert client.get(part).status_code == 200
    other = create_app(dict(metered.config))  # another worker: its own cache, the same store
    assert other.test_client().get(part).status_code == 200
    after = _scrape(client)
    gained = {how: _shared(after, how) - _shared(before, how) for how in ("made", "kept")}
    assert gained == {"made": 1, "kept": 1}
