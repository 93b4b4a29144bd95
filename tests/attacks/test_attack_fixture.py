"""The shared attack server answers like the real server does."""

from __future__ import annotations

from server_client import Server


def test_served_is_gunicorn_with_its_health_check(served: Server) -> None:
    import requests

    answer = requests.get(served.url + "/healthz", timeout=30)
    assert answer.status_code == 200
    assert "gunicorn" in answer.headers.get("Server", "").lower()
