"""`companion serve` behind nginx with TLS, set up from deploy/nginx: links carry the public address.

nginx (Debian's) listens on a loopback port with a throw-away certificate for a public name and
includes the shipped proxy snippet; the app trusts one proxy (COMPANION_PROXY_HOPS=1).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
import segno
from server_client import SETUP, Server, free_port, next_command

ROOT = Path(__file__).resolve().parent.parent
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
PUBLIC = "play.example.org"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not Path(NGINX).exists(), reason="nginx is not installed (scripts/setup --test)"
    ),
]


def _certificate(folder: Path) -> tuple[Path, Path]:
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", f"/CN={PUBLIC}", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


def _nginx_conf(folder: Path, port: int, upstream: int) -> Path:
    cert, key = _certificate(folder)
    temp = "\n".join(
        f"    {kind}_temp_path {folder / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )  # fmt: skip
    conf = folder / "nginx.conf"
    conf.write_text(
        f"""
{"user root;" if os.geteuid() == 0 else ""}
daemon off;
worker_processes 1;
pid {folder / "nginx.pid"};
error_log {folder / "error.log"} warn;
events {{ worker_connections 64; }}
http {{
    access_log off;
{temp}
    upstream companion {{ server 127.0.0.1:{upstream}; }}
    server {{
        listen 127.0.0.1:{port} ssl;
        server_name {PUBLIC};
        ssl_certificate {cert};
        ssl_certificate_key {key};
        include {ROOT / "deploy" / "nginx" / "companion-proxy.conf"};
    }}
}}
"""
    )
    return conf


@pytest.fixture(scope="module")
def proxied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str]]:
    """The app behind nginx: the server, and the public base address the client uses."""
    folder = tmp_path_factory.mktemp("proxied")
    env = {"COMPANION_PROXY_HOPS": "1", "COMPANION_TRUSTED_HOSTS": f'["{PUBLIC}", "127.0.0.1"]'}
    server = Server(folder / "app.sqlite3", env=env).start()
    port = free_port()
    nginx = subprocess.Popen(
        [NGINX, "-c", str(_nginx_conf(folder, port, server.port)), "-p", str(folder)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        _wait_for(port)
        yield server, f"https://{PUBLIC}:{port}"
    finally:
        nginx.terminate()
        nginx.wait(timeout=10)
        server.stop()


def _wait_for(port: int) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                requests.get(f"https://127.0.0.1:{port}/healthz", verify=False, timeout=2)
            return
        except requests.ConnectionError:
            time.sleep(0.1)
    raise RuntimeError("nginx did not start")


class Client(requests.Session):
    """Talks to nginx on loopback as if it were the public name (Host header, SNI aside)."""

    def __init__(self, public: str) -> None:
        super().__init__()
        self.public = public
        self.port = public.rsplit(":", 1)[1]

    def request(self, method, url, *args, **kwargs):  # type: ignore[no-untyped-def, override]
        headers = {"Host": f"{PUBLIC}:{self.port}", **kwargs.pop("headers", {})}
        kwargs.setdefault("timeout", 60)
        kwargs["verify"] = False  # per request: a CA bundle in the environment would win otherwise
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the throw-away certificate is not trusted
            return super().request(
                method, f"https://127.0.0.1:{self.port}{url}", *args, headers=headers, **kwargs
            )


def test_a_turn_and_a_book_through_the_proxy_carry_the_public_address(
    proxied: tuple[Server, str],
) -> None:
    _server, public = proxied
    client = Client(public)
    health = client.get("/healthz")
    assert health.status_code == 200 and health.json()["database_writable"] is True

    created = client.post("/api/v1/chronicles", json=SETUP)
    assert created.status_code == 201, created.text
    body = created.json()
    token = body["host_token"]
    assert body["links"]["host"] == f"{public}/c/{token}/"
    assert body["links"]["api"].startswith(f"{public}/api/v1/")

    rng, state = random.Random(3), body["state"]
    for _ in range(8):  # a whole turn: draw, choose, answer, stakes, roll, narrate
        command = next_command(state, rng)
        sent = client.post(
            f"/api/v1/chronicles/{token}/commands",
            json={"version": state["version"], "command": command},
        )
        assert sent.status_code == 200, sent.text
        state = client.get(f"/api/v1/chronicles/{token}/state").json()
    assert state["version"] >= 8

    links = client.get(f"/c/{token}/links").text
    host_url = f"{public}/c/{token}/"
    assert host_url in links
    assert f"http://127.0.0.1:{_server.port}" not in links

    job = client.post(f"/api/v1/chronicles/{token}/exports", json={"format": "pdf"}).json()
    deadline = time.monotonic() + 120
    while job["status"] != "done" and time.monotonic() < deadline:
        assert job["status"] in ("queued", "running"), job
        time.sleep(0.5)
        job = client.get(job["status_url"]).json()
    assert job["status"] == "done"
    pdf = client.get(job["file_url"])
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")


def test_the_join_qr_codes_encode_the_public_address(proxied: tuple[Server, str]) -> None:
    _server, public = proxied
    client = Client(public)
    token = client.post("/api/v1/chronicles", json=SETUP).json()["host_token"]
    page = client.get(f"/c/{token}/links")
    csrf = page.text.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
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


def test_a_stream_passes_through_the_proxy_as_each_change_happens(
    proxied: tuple[Server, str],
) -> None:
    """The shipped nginx snippet passes server-sent events unbuffered (the app says
    X-Accel-Buffering: no): each change arrives while the stream stays open."""
    _server, public = proxied
    client = Client(public)
    body = client.post("/api/v1/chronicles", json=SETUP).json()
    token, state = body["host_token"], body["state"]
    with client.get(f"/c/{token}/events", stream=True, timeout=30) as stream:
        assert stream.status_code == 200
        assert stream.headers["Content-Type"].startswith("text/event-stream")
        lines = stream.iter_lines(decode_unicode=True)

        def next_version() -> int:
            for line in lines:  # each read waits at most 30 s for the proxy to pass data on
                if line.startswith("data: {"):
                    return int(json.loads(line[6:])["version"])
            raise AssertionError("the stream ended")

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
