"""`/metrics` of `companion serve` (two gunicorn workers): off unless METRICS_TOKEN is set, then
only for a scrape that brings it; every worker's counts add up in each scrape; routes are
endpoint names, never paths with links."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator

import pytest
import requests
from server_client import SETUP, Server, request

from attacks.probe import answered, during

SECRET = "scrape-secret-for-tests"


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("measured")
    server = Server(folder / "measured.sqlite3", env={"COMPANION_METRICS_TOKEN": SECRET})
    server.start()
    try:
        yield server
    finally:
        server.stop()


def scrape(server: Server) -> str:
    answer = requests.get(
        f"{server.url}/metrics", headers={"Authorization": f"Bearer {SECRET}"}, timeout=30
    )
    assert answer.status_code == 200, answer.text
    return answer.text


def value(text: str, name: str, **labels: str) -> float:
    """The sample ``name{labels}`` of a scrape (labels in any order), 0 when absent."""
    for line in text.splitlines():
        found = re.fullmatch(rf"{name}(?:\{{(.*)\}})? (\S+)", line)
        if found is None:
            continue
        have = dict(re.findall(r'(\w+)="([^"]*)"', found.group(1) or ""))
        if all(have.get(k) == v for k, v in labels.items()):
            return float(found.group(2))
    return 0.0


def test_metrics_are_off_without_a_token(served: Server) -> None:
    assert request(served.port, "GET", "/metrics")[0] == 404


def test_a_scrape_needs_the_token(measured: Server) -> None:
    assert requests.get(f"{measured.url}/metrics", timeout=30).status_code == 401
    wrong = {"Authorization": "Bearer not-it"}
    assert requests.get(f"{measured.url}/metrics", headers=wrong, timeout=30).status_code == 401


def test_every_worker_counts_into_each_scrape_by_route_never_by_path(measured: Server) -> None:
    status, created = request(measured.port, "POST", "/api/v1/chronicles", SETUP)
    assert status == 201
    token = created["host_token"]
    before = value(
        scrape(measured), "companion_requests_total", route="chronicle.play", status="200"
    )
    pages = 24  # spread over both workers by the kernel
    for _ in range(pages):
        assert request(measured.port, "GET", f"/c/{token}/")[0] == 200
    for _ in range(4):  # whichever worker answers the scrape, it tells every worker's count
        text = scrape(measured)
        count = value(text, "companion_requests_total", route="chronicle.play", status="200")
        assert count == before + pages
    assert token not in text and created["reader_token"] not in text and "/c/" not in text
    seconds = value(text, "companion_request_seconds_count", route="chronicle.play")
    assert seconds >= pages
    assert (
        value(text, "companion_requests_total", route="api.commands.create_chronicle", status="201")
        >= 1
    )
    assert value(text, "companion_db_query_seconds_count", statement="select") > 0
    assert 'companion_export_jobs{status="queued"} 0.0' in text
    assert "companion_live_watchers" in text


def _series(text: str) -> int:
    return sum(line.startswith("companion_requests_total{") for line in text.splitlines())


def test_invented_methods_add_no_series_to_the_scrape(measured: Server) -> None:
    """gunicorn passes on any method of capital letters; each one counted under its own label
    would be a series every scrape carries for ever. They are all counted as "other"."""
    invented = ["Q" + "".join(chr(65 + (n // 26**k) % 26) for k in range(3)) for n in range(240)]
    before = scrape(measured)

    def attack(under_way: threading.Event) -> list[int]:
        statuses = []
        for n, method in enumerate(invented):
            statuses.append(request(measured.port, method, "/healthz")[0])
            if n == 40:
                under_way.set()
        return statuses

    statuses = during(attack, lambda: answered(measured.port), probes=3)
    assert len(statuses) == len(invented) and 200 not in statuses
    after = scrape(measured)
    grown = _series(after) - _series(before)
    assert grown <= 3, f"{grown} new series for {len(invented)} invented methods"
    assert value(after, "companion_requests_total", method="other") >= len(invented)
    assert not any(f'method="{method}"' in after for method in invented)
    assert len(after) < len(before) + 2048
