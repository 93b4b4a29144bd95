"""`companion serve` behind Debian's nginx and Caddy, each run from the shipped deploy/ files.

One app server for the module, with the settings of the shipped systemd unit (all but
BASE_URL, so that the links prove the forwarded headers), and each proxy in front of it with its
health check on; tests/proxy_kit.py lists exactly what a test changes in the shipped files (ports,
a throw-away certificate, log folders). A small stand-in upstream shows what each proxy sends on:
the health check's Host, the forwarded headers, a live feed (server-sent events).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import segno
from play_helpers import SETUP_FORM
from proxy_kit import (
    CADDY,
    DEPLOY,
    NGINX,
    PUBLIC,
    Client,
    Proxy,
    Upstream,
    caddy_env,
    caddyfile,
    nginx_main,
    nginx_site,
    raw_request,
    start_caddy,
    start_nginx,
    unit_environment,
)
from server_client import SETUP, Server, free_port, next_command, request
from waiting import BOOK_ENDS, HANG, wait_until

KINDS = ["nginx", "caddy"]
STARTS = {"nginx": start_nginx, "caddy": start_caddy}
installed = {"nginx": Path(NGINX).exists(), "caddy": Path(CADDY).exists()}
needs = {
    kind: pytest.mark.skipif(not ok, reason=f"{kind} is not installed (scripts/setup --test)")
    for kind, ok in installed.items()
}
FORGED = {
    "X-Forwarded-For": "203.0.113.9",
    "X-Forwarded-Proto": "gopher",
    "X-Forwarded-Host": "evil.example",
    "X-Forwarded-Port": "6666",
    "X-Forwarded-Prefix": "//evil.example",
    "X-Forwarded-Server": "evil.example",
    "X-Real-IP": "203.0.113.9",
    "Forwarded": "for=203.0.113.9;host=evil.example;proto=http",
    "X-Request-Id": "chosen-by-the-client",
}


@needs["nginx"]
def test_nginx_accepts_the_shipped_site(tmp_path: Path) -> None:
    conf = nginx_main(tmp_path, nginx_site(tmp_path, free_port(), free_port(), 8000))
    checked = subprocess.run([NGINX, "-t", "-c", str(conf), "-p", str(tmp_path)],
                             capture_output=True, text=True)  # fmt: skip
    assert checked.returncode == 0 and "test is successful" in checked.stderr, checked.stderr


@needs["caddy"]
def test_caddy_validates_the_shipped_caddyfile_as_written_and_as_tested(tmp_path: Path) -> None:
    for path in (DEPLOY / "Caddyfile", caddyfile(tmp_path, free_port(), free_port(), 8000)):
        checked = subprocess.run(
            [CADDY, "validate", "--config", str(path), "--adapter", "caddyfile"],
            capture_output=True, text=True, env=caddy_env(tmp_path), cwd=tmp_path,
        )  # fmt: skip
        assert checked.returncode == 0 and "Valid configuration" in checked.stdout + checked.stderr


def test_the_shipped_unit_trusts_the_public_name_only_and_the_docs_ask_by_it() -> None:
    env = unit_environment()
    assert json.loads(env["COMPANION_TRUSTED_HOSTS"]) == [PUBLIC]
    assert env["COMPANION_PROXY_HOPS"] == "1"
    deploy = (DEPLOY.parent / "docs" / "deploy.md").read_text()
    # The loopback check in the docs names the public host, as the Caddy health check does.
    assert f"-H 'Host: {PUBLIC}' http://127.0.0.1:8000/healthz" in deploy
    assert f"Host {PUBLIC}" in (DEPLOY / "Caddyfile").read_text()


@pytest.fixture(scope="module")
def upstream() -> Iterator[Upstream]:
    stand_in = Upstream()
    yield stand_in
    stand_in.stop()


@pytest.fixture(scope="module", params=[pytest.param(k, marks=needs[k]) for k in KINDS])
def bare(
    request: pytest.FixtureRequest, upstream: Upstream, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Proxy]:
    """A proxy from the shipped files in front of the stand-in upstream."""
    proxy = STARTS[request.param](tmp_path_factory.mktemp(f"bare-{request.param}"), upstream.port)
    yield proxy
    proxy.stop()


def test_no_forwarded_header_a_client_sends_reaches_the_app(bare: Proxy) -> None:
    seen = Client(bare).get("/echo", headers=FORGED).json()
    assert seen["X-Forwarded-For"] == "127.0.0.1"
    assert seen["X-Forwarded-Proto"] == "https"
    assert seen["X-Forwarded-Host"] == f"{PUBLIC}:{bare.port}"
    for name in ("X-Forwarded-Port", "X-Forwarded-Prefix", "X-Forwarded-Server", "X-Real-IP"):
        assert name.lower() not in {key.lower() for key in seen}, (name, seen)
    assert "forwarded" not in {key.lower() for key in seen}
    ids = [value for key, value in seen.items() if key.lower() == "x-request-id"]
    assert len(ids) == 1 and ids[0] != FORGED["X-Request-Id"] and len(ids[0]) >= 16


def test_a_feed_passes_each_event_as_it_is_written(bare: Proxy, upstream: Upstream) -> None:
    upstream.first_received.clear()
    feed = Client(bare).get(
        "/c/" + "e" * 32 + "/events", stream=True, headers={"Accept-Encoding": "gzip"}
    )
    assert feed.headers["Content-Type"] == "text/event-stream"
    events = []
    # The stand-in sends "two" only after the test saw "one": a proxy that buffered the feed
    # would deliver nothing, and the read would time out.
    for line in feed.iter_lines():
        if line:
            events.append(line)
            upstream.first_received.set()
        if len(events) == 2:
            break
    feed.close()
    assert events == [b"data: one", b"data: two"]


def test_text_the_upstream_sent_plain_is_compressed_by_the_proxy(bare: Proxy) -> None:
    import zlib

    from proxy_kit import STYLE

    styled = Client(bare).get("/plain.css", headers={"Accept-Encoding": "gzip"}, stream=True)
    sent = styled.raw.read(decode_content=False)
    assert styled.headers.get("Content-Encoding") == "gzip", styled.headers
    assert "Accept-Encoding" in styled.headers.get("Vary", "")
    assert len(sent) < len(STYLE) / 3 and zlib.decompress(sent, 31) == STYLE


@needs["caddy"]
def test_caddys_health_check_asks_by_the_public_name(bare: Proxy, upstream: Upstream) -> None:
    if bare.kind != "caddy":
        pytest.skip("nginx (open source) has no active health check")
    assert upstream.checked.wait(timeout=60), "Caddy sent no health check"
    assert upstream.checks[0] == PUBLIC
    # The stand-in answers the check only for that name, as the app does: the site stays up.
    assert Client(bare).get("/echo").status_code == 200


def test_both_proxies_tell_browsers_to_keep_to_https(bare: Proxy) -> None:
    answer = Client(bare).get("/echo")
    assert answer.headers["Strict-Transport-Security"] == "max-age=31536000"


def test_a_body_over_the_limit_gets_a_page_that_says_so(bare: Proxy) -> None:
    size = 18 * 1024 * 1024
    head = (f"POST /import HTTP/1.1\r\nHost: {PUBLIC}:{bare.port}\r\nContent-Length: {size}\r\n"
            "Content-Type: application/octet-stream\r\nConnection: close\r\n\r\n")  # fmt: skip
    status, text = raw_request(bare, head, b"x" * size)
    assert status == 413, (status, text[:300])
    assert "too large" in text and "16 MB" in text and "ファイルが大きすぎます" in text


def test_an_app_that_does_not_answer_gets_a_page_that_says_so(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    for kind in KINDS:
        if not installed[kind]:
            continue
        down = STARTS[kind](tmp_path_factory.mktemp(f"unanswered-{kind}"), free_port())
        try:
            answer = Client(down).get("/")
        finally:
            down.stop()
        assert answer.status_code in (502, 503), (kind, answer.status_code)
        assert "not answering just now" in answer.text and "応答がありません" in answer.text


@pytest.fixture(scope="module")
def app_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    env = {k: v for k, v in unit_environment().items() if k != "COMPANION_BASE_URL"}
    env.pop("COMPANION_INSTANCE")
    database = tmp_path_factory.mktemp("proxied") / "app.sqlite3"
    server = Server(database, env=env, host=PUBLIC).start()
    yield server
    server.stop()


@pytest.fixture(scope="module", params=[pytest.param(k, marks=needs[k]) for k in KINDS])
def proxied(
    request: pytest.FixtureRequest, app_server: Server, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Proxy]:
    """A proxy from the shipped files in front of the real app."""
    proxy = STARTS[request.param](tmp_path_factory.mktemp(request.param), app_server.port)
    yield proxy
    proxy.stop()


def _play(client: Client, token: str, state: dict, moves: int) -> dict:  # type: ignore[type-arg]
    rng = random.Random(3)
    for _ in range(moves):  # draw, choose, answer, stakes, roll, narrate, ...
        command = next_command(state, rng)
        sent = client.post(
            f"/api/v1/chronicles/{token}/commands",
            json={"version": state["version"], "command": command},
        )
        assert sent.status_code == 200, sent.text
        state = client.get(f"/api/v1/chronicles/{token}/state").json()
    return state


@pytest.mark.slow
def test_a_turn_and_a_book_through_the_proxy_carry_the_public_address(proxied: Proxy) -> None:
    client, public = Client(proxied), proxied.public
    health = client.get("/healthz")
    assert health.status_code == 200 and health.json()["database_writable"] is True

    created = client.post("/api/v1/chronicles", json=SETUP)
    assert created.status_code == 201, created.text
    body = created.json()
    token = body["host_token"]
    assert body["links"]["host"] == f"{public}/c/{token}/"
    assert body["links"]["api"].startswith(f"{public}/api/v1/")
    state = _play(client, token, body["state"], 8)
    assert state["version"] >= 8

    links = client.get(f"/c/{token}/links", headers=FORGED).text
    assert f"{public}/c/{token}/" in links
    assert "evil.example" not in links and "127.0.0.1" not in links

    job = client.post(f"/api/v1/chronicles/{token}/exports", json={"format": "pdf"}).json()
    deadline = time.monotonic() + BOOK_ENDS
    while job["status"] != "done" and time.monotonic() < deadline:
        assert job["status"] in ("queued", "running"), job
        time.sleep(0.5)
        job = client.get(job["status_url"]).json()
    assert job["status"] == "done"
    pdf = client.get(job["file_url"])
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")


@pytest.mark.slow
def test_the_join_qr_codes_encode_the_public_address(proxied: Proxy) -> None:
    client, public = Client(proxied), proxied.public
    token = client.post("/api/v1/chronicles", json=SETUP).json()["host_token"]
    csrf = _csrf(client, f"/c/{token}/links")
    # Over HTTPS Flask-WTF also checks the Referer against the public host the proxy forwarded.
    issued = client.post(
        f"/c/{token}/links",
        data={"csrf_token": csrf, "issue": "seat-1"},
        headers={"Referer": f"{public}/c/{token}/links"},
    )
    assert issued.status_code == 200, issued.text[:300]
    new_links = [part.split("<", 1)[0] for part in issued.text.split("<code>")[1:] if "/c/" in part]
    seat_url = next(url for url in new_links if url != f"{public}/c/{token}/")
    assert seat_url.startswith(f"{public}/c/")
    expected = segno.make(seat_url, error="m").svg_inline(scale=4, dark="#221d18", light="#fffdf8")
    assert str(expected) in issued.text


def _csrf(client: Client, path: str) -> str:
    page = client.get(path).text
    match = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page)
    assert match, path
    return match.group(1)


@pytest.mark.slow
def test_a_backup_of_sixteen_megabytes_imports_through_the_proxy(proxied: Proxy) -> None:
    client, public = Client(proxied), proxied.public
    token = client.post("/api/v1/chronicles", json=SETUP).json()["host_token"]
    backup = client.get(f"/c/{token}/export.json")
    assert backup.status_code == 200
    padded = backup.content.rstrip() + b" " * (15 * 1024 * 1024) + b"\n"  # JSON allows it
    imported = client.post(
        "/import",
        data={"csrf_token": _csrf(client, "/")},
        files={"backup": ("big.json", padded, "application/json")},
        headers={"Referer": f"{public}/"},
        allow_redirects=False,
    )
    assert imported.status_code == 302, imported.text[:300]
    assert imported.headers["Location"].startswith(("/c/", f"{public}/c/"))


@pytest.mark.slow
def test_no_link_reaches_the_proxys_logs(
    proxied: Proxy, tmp_path_factory: pytest.TempPathFactory
) -> None:
    client = Client(proxied)
    created = client.post("/api/v1/chronicles", json=SETUP).json()
    host, reader = created["host_token"], created["reader_token"]
    _play(client, host, created["state"], 3)
    client.get(f"/c/{reader}/story", headers={"Referer": f"{proxied.public}/c/{host}/"})
    api = client.get(
        f"/api/v1/chronicles/{created['id']}/state", headers={"Authorization": f"Bearer {host}"}
    )
    assert api.status_code == 200, api.text
    unknown = "u" * 32
    assert client.get(f"/c/{unknown}/").status_code == 404
    # A form answers with a redirect whose Location holds the new link (a proxy that logs
    # response headers would keep it).
    made = client.post(
        "/new", data={**SETUP_FORM, "csrf_token": _csrf(client, "/new")},
        headers={"Referer": f"{proxied.public}/new"}, allow_redirects=False,
    )  # fmt: skip
    assert made.status_code in (302, 303), made.text[:300]
    formed = re.search(r"/c/([^/]+)/", made.headers["Location"])
    assert formed, made.headers["Location"]
    assert client.get(made.headers["Location"]).status_code == 200
    demo = client.post(
        "/demo", data={"csrf_token": _csrf(client, "/"), "lang": "en"},
        headers={"Referer": f"{proxied.public}/"}, allow_redirects=False,
    )  # fmt: skip
    assert demo.status_code in (302, 303), demo.text[:300]
    demo_token = re.search(r"/c/([^/]+)/", demo.headers["Location"])
    assert demo_token, demo.headers["Location"]
    tokens = [host, reader, unknown, formed.group(1), demo_token.group(1)]

    # A proxy whose app is down logs its failures (502, or 503 once Caddy's check saw it) too.
    down = STARTS[proxied.kind](tmp_path_factory.mktemp(f"down-{proxied.kind}"), free_port())
    try:
        assert Client(down).get(f"/c/{host}/story").status_code in (502, 503)
    finally:
        down.stop()

    for proxy, lines in ((proxied, 5), (down, 1)):
        logged = proxy.log_text()
        assert logged.count("[link]") >= lines, logged[-2000:]
        for token in tokens:
            assert token not in logged, (proxy.kind, token)


@pytest.mark.slow
def test_a_feed_passes_through_the_proxy_as_each_change_happens(proxied: Proxy) -> None:
    """The shipped proxies pass the app's server-sent events unbuffered (nginx: the app says
    X-Accel-Buffering: no; Caddy: text/event-stream): each change arrives while the feed stays
    open."""
    client = Client(proxied)
    body = client.post("/api/v1/chronicles", json=SETUP).json()
    token, state = body["host_token"], body["state"]
    with client.get(f"/c/{token}/events", stream=True, timeout=30) as feed:
        assert feed.status_code == 200
        assert feed.headers["Content-Type"].startswith("text/event-stream")
        lines = feed.iter_lines(decode_unicode=True)

        def next_version() -> int:
            for line in lines:  # each read waits at most 30 s for the proxy to pass data on
                if line.startswith("data: {"):
                    return int(json.loads(line[6:])["version"])
            raise AssertionError("the feed ended")

        assert next_version() == state["version"]
        rng = random.Random(5)
        for _ in range(3):
            sent = client.post(
                f"/api/v1/chronicles/{token}/commands",
                json={"version": state["version"], "command": next_command(state, rng)},
            )
            assert sent.status_code == 200, sent.text
            state = client.get(f"/api/v1/chronicles/{token}/state").json()
            assert next_version() == state["version"]


@pytest.mark.slow
@needs["caddy"]
def test_a_hung_book_worker_leaves_the_pages_up_behind_caddy_and_is_replaced(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """SIGSTOP the export supervisor behind the shipped Caddyfile: /healthz goes 503 (for
    monitoring), Caddy's readiness check stays 200 and every page answers, and the server
    replaces the hung supervisor by itself."""
    env = {k: v for k, v in unit_environment().items() if k != "COMPANION_BASE_URL"}
    env.pop("COMPANION_INSTANCE")
    env["COMPANION_ACCESS_LOG"] = "true"  # shows each of Caddy's checks
    folder = tmp_path_factory.mktemp("hung")
    server = Server(folder / "app.sqlite3", env=env, host=PUBLIC).start()
    proxy = start_caddy(folder / "caddy", server.port)
    exports = folder / "exports"
    try:
        client = Client(proxy)
        assert client.get("/").status_code == 200

        def supervisors() -> set[int]:
            return {int(p.stem.rsplit("-", 1)[1]) for p in exports.glob("supervisor-*.json")}

        wait_until(lambda: bool(supervisors()), "the export supervisor's first heartbeat")
        (hung,) = supervisors()
        os.kill(hung, signal.SIGSTOP)
        try:
            wait_until(
                lambda: (
                    request(server.port, "GET", "/healthz", headers={"Host": PUBLIC})[1].get(
                        "export_worker"
                    )
                    == "stale"
                ),
                "/healthz reporting the stale supervisor",
            )
            log = folder / "app.log"
            seen = log.read_text().count("GET /readyz")
            # Caddy asks again (every 10 s) while the supervisor is hung: the site stays up.
            wait_until(lambda: log.read_text().count("GET /readyz") > seen, "Caddy's next check")
            for path in ("/", "/packs/", "/games/", "/new"):
                assert client.get(path).status_code == 200, path
            assert client.post("/api/v1/chronicles", json=SETUP).status_code == 201
            # The server notices the silent heartbeat and starts another supervisor.
            wait_until(lambda: bool(supervisors() - {hung}), "a new supervisor", HANG)
            wait_until(
                lambda: request(server.port, "GET", "/healthz", headers={"Host": PUBLIC})[0] == 200,
                "/healthz healthy again",
            )
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(hung, signal.SIGCONT)
        assert "has written no heartbeat" in (folder / "app.log").read_text()
        assert client.get("/").status_code == 200
    finally:
        proxy.stop()
        server.stop()
