"""A link spelt otherwise: doubled slashes, dot segments, escaped letters. Refused, and no log
holds it: not the app's own (access log on), not the shipped nginx's nor Caddy's.

A server that merges slashes or decodes escapes serves ``/%63/<link>/`` as ``/c/<link>/``; the
logs' redaction, which looks for ``/c/<link>``, passed it whole. Every spelling here is refused
with 400 by the app and by both proxies, and every log writes it without the link.
"""

from __future__ import annotations

import http.client
import ssl
from collections.abc import Iterator
from pathlib import Path

import pytest
from proxy_kit import CADDY, NGINX, PUBLIC, Proxy, start_caddy, start_nginx
from server_client import SETUP, Server, request

from attacks.probe import answered

SPELLINGS = (
    "//c/{t}/",
    "/c//{t}/",
    "/%63/{t}/",
    "/%43/{t}/",
    "/c/./{t}/",
    "/c/%2e/{t}/",
    "/c/x/../{t}/",
    "/c%2f{t}/",
    "/%63/{t}/version",
    "/c/{t}//story",
    "//api/v1/chronicles/{t}/state",
    "/api/v1/%63hronicles/{t}/state",
    "/api//v1/chronicles/{t}/state",
)


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server of its own that writes an access line for every request."""
    folder = tmp_path_factory.mktemp("spelling")
    env = {"COMPANION_ACCESS_LOG": "true", "COMPANION_TRUSTED_HOSTS": "[]"}
    server = Server(folder / "spelling.sqlite3", env=env).start()
    try:
        yield server
    finally:
        server.stop()


def _raw(conn: http.client.HTTPConnection, path: str, host: str) -> tuple[int, str]:
    """GET ``path`` exactly as written (http.client neither merges nor decodes anything)."""
    try:
        conn.request("GET", path, headers={"Host": host})
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        conn.close()


def _chronicle(port: int) -> str:
    status, body = request(port, "POST", "/api/v1/chronicles", SETUP)
    assert status == 201, body
    return str(body["host_token"])


def test_every_other_spelling_of_a_link_is_refused_and_never_logged(logged: Server) -> None:
    token = _chronicle(logged.port)
    for spelling in SPELLINGS:
        path = spelling.format(t=token)
        conn = http.client.HTTPConnection("127.0.0.1", logged.port, timeout=30)
        status, _body = _raw(conn, path, "127.0.0.1")
        assert status == 400, (path, status)
        answered(logged.port)
    assert request(logged.port, "GET", f"/c/{token}/")[0] == 200
    log = logged.database.with_suffix(".log").read_text("utf-8", "replace")
    assert log.count("route=refused-path") >= len(SPELLINGS), log[-3000:]
    assert token not in log, [line for line in log.splitlines() if token in line][:3]


def _proxied(kind: str, folder: Path, upstream: int) -> Proxy:
    return (start_nginx if kind == "nginx" else start_caddy)(folder, upstream)


@pytest.mark.parametrize(
    "kind",
    [
        pytest.param(
            "nginx", marks=pytest.mark.skipif(not Path(NGINX).exists(), reason="no nginx")
        ),
        pytest.param(
            "caddy", marks=pytest.mark.skipif(not Path(CADDY).exists(), reason="no Caddy")
        ),
    ],
)
def test_the_shipped_proxies_refuse_them_and_log_no_link(
    logged: Server, tmp_path: Path, kind: str
) -> None:
    token = _chronicle(logged.port)
    proxy = _proxied(kind, tmp_path / kind, logged.port)
    try:
        context = ssl.create_default_context()
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
        for spelling in SPELLINGS:
            path = spelling.format(t=token)
            conn = http.client.HTTPSConnection("127.0.0.1", proxy.port, timeout=30, context=context)
            status, _body = _raw(conn, path, f"{PUBLIC}:{proxy.port}")
            assert status == 400, (kind, path, status)
            answered(logged.port)
        conn = http.client.HTTPSConnection("127.0.0.1", proxy.port, timeout=30, context=context)
        assert _raw(conn, f"/c/{token}/", f"{PUBLIC}:{proxy.port}")[0] == 200
    finally:
        proxy.stop()
    text = proxy.log_text()
    assert text.count("[link]") + text.count("[refused path]") >= len(SPELLINGS), text[-3000:]
    assert token not in text, [line for line in text.splitlines() if token in line][:3]
