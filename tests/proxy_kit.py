"""Debian's nginx and Caddy, run from the shipped deploy/ files on loopback ports, for the tests.

Each configuration is the shipped file as written, with only what a test on one machine cannot
keep changed, each change listed here:

- nginx (``deploy/nginx/companion.conf``, which includes ``companion-proxy.conf``): the listen
  lines bind 127.0.0.1 and free ports instead of 80 and 443 (the ``[::]`` lines are dropped: no
  IPv6 is needed), the certificate paths name a throw-away certificate for
  companion.example.org, the snippet is included from ``deploy/nginx/``, the upstream is the
  test's server instead of 127.0.0.1:8000, and ``/var/log/nginx/`` is a temporary folder. The
  file is wrapped in a small main configuration like Debian's ``/etc/nginx/nginx.conf`` (pid,
  temp paths and logs in the temporary folder), with the ``worker_connections`` and
  ``worker_rlimit_nofile`` the site's comment asks that file to set.
- Caddy (``deploy/Caddyfile``): the global options gain ``admin off``, free HTTP and HTTPS ports,
  ``default_bind 127.0.0.1``, a storage folder and ``default_sni`` (a client that connects to
  127.0.0.1 sends no server name); the site gets ``tls`` with the throw-away certificate instead
  of one from Let's Encrypt; the upstream is the test's server; ``/var/log/caddy/`` is a
  temporary folder.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import requests
from server_client import free_port
from waiting import HANG

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
PUBLIC = "companion.example.org"  # the name the shipped files are written for
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
CADDY = shutil.which("caddy") or "/usr/bin/caddy"


def certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for the public name, valid for a day."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    if not cert.exists():
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
             "-subj", f"/CN={PUBLIC}", "-addext", f"subjectAltName=DNS:{PUBLIC}",
             "-keyout", str(key), "-out", str(cert)],
            check=True, capture_output=True,
        )  # fmt: skip
    return cert, key


def _replace(text: str, old: str, new: str) -> str:
    """``text`` with ``old`` replaced; a shipped file that changed shape fails loudly here."""
    assert old in text, f"the shipped file no longer holds {old!r}"
    return text.replace(old, new)


def nginx_site(folder: Path, port: int, http_port: int, upstream: int) -> str:
    """deploy/nginx/companion.conf with the test's ports, certificate, upstream and logs."""
    cert, key = certificate(folder)
    site = (DEPLOY / "nginx" / "companion.conf").read_text()
    site = _replace(site, "    listen 80;\n", f"    listen 127.0.0.1:{http_port};\n")
    site = _replace(site, "    listen [::]:80;\n", "")
    site = _replace(
        site, "    listen 443 ssl http2;\n", f"    listen 127.0.0.1:{port} ssl http2;\n"
    )
    site = _replace(site, "    listen [::]:443 ssl http2;\n", "")
    site = _replace(site, f"/etc/letsencrypt/live/{PUBLIC}/fullchain.pem", str(cert))
    site = _replace(site, f"/etc/letsencrypt/live/{PUBLIC}/privkey.pem", str(key))
    snippet = DEPLOY / "nginx" / "companion-proxy.conf"
    site = _replace(site, "/etc/nginx/snippets/companion-proxy.conf", str(snippet))
    site = _replace(site, "server 127.0.0.1:8000;", f"server 127.0.0.1:{upstream};")
    return _replace(site, "/var/log/nginx/", f"{folder}/")


def nginx_asks(setting: str) -> int:
    """The figure deploy/nginx/companion.conf's comment asks /etc/nginx/nginx.conf to set."""
    found = re.search(rf"^#\s+(?:events {{ )?{setting} (\d+);", _site_text(), re.MULTILINE)
    assert found, f"the shipped site no longer says what {setting} to set"
    return int(found.group(1))


def _site_text() -> str:
    return (DEPLOY / "nginx" / "companion.conf").read_text()


def nginx_main(folder: Path, site: str) -> Path:
    """A main nginx.conf like Debian's, including ``site``, with the connections the site asks
    for."""
    (folder / "site.conf").write_text(site)
    temp = "\n".join(
        f"    {kind}_temp_path {folder / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    conf = folder / "nginx.conf"
    conf.write_text(
        f"""
{"user root;" if os.geteuid() == 0 else ""}
daemon off;
worker_processes 1;
worker_rlimit_nofile {nginx_asks("worker_rlimit_nofile")};
pid {folder / "nginx.pid"};
error_log {folder / "main-error.log"} warn;
events {{ worker_connections {nginx_asks("worker_connections")}; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {folder / "main-access.log"};
{temp}
    include {folder / "site.conf"};
}}
"""
    )
    return conf


def caddyfile(folder: Path, port: int, http_port: int, upstream: int) -> Path:
    """deploy/Caddyfile with the test's ports, certificate, upstream and logs."""
    cert, key = certificate(folder)
    text = (DEPLOY / "Caddyfile").read_text()
    options = (
        "{\n\tadmin off\n"
        f"\thttp_port {http_port}\n\thttps_port {port}\n\tdefault_bind 127.0.0.1\n"
        f"\tstorage file_system {folder / 'storage'}\n\tdefault_sni {PUBLIC}\n"
    )
    text = _replace(text, "\n{\n", "\n" + options)
    text = _replace(text, f"\n{PUBLIC} {{\n", f"\n{PUBLIC} {{\n\ttls {cert} {key}\n")
    text = _replace(
        text, "reverse_proxy 127.0.0.1:8000 {", f"reverse_proxy 127.0.0.1:{upstream} {{"
    )
    text = _replace(text, "/var/log/caddy/", f"{folder}/")
    path = folder / "Caddyfile"
    path.write_text(text)
    return path


def caddy_env(folder: Path) -> dict[str, str]:
    """Caddy's own files (autosave, certificates) in the test's folder, not the user's."""
    return {**os.environ, "HOME": str(folder), "XDG_CONFIG_HOME": str(folder / "config"),
            "XDG_DATA_HOME": str(folder / "data")}  # fmt: skip


@dataclass
class Proxy:
    """One running proxy: its kind, its HTTPS port, its folder of logs."""

    kind: str
    folder: Path
    port: int
    process: subprocess.Popen[bytes] | None = None
    logs: list[Path] = field(default_factory=list)

    @property
    def public(self) -> str:
        return f"https://{PUBLIC}:{self.port}"

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)

    def log_text(self) -> str:
        """Everything the proxy logged: access and error logs, and its own output."""
        return "\n".join(p.read_text(errors="replace") for p in self.folder.glob("*.log"))


def start_nginx(folder: Path, upstream: int) -> Proxy:
    """nginx from the shipped site, in front of 127.0.0.1:``upstream``."""
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    conf = nginx_main(folder, nginx_site(folder, port, free_port(), upstream))
    checked = subprocess.run([NGINX, "-t", "-c", str(conf), "-p", str(folder)],
                             capture_output=True, text=True)  # fmt: skip
    assert checked.returncode == 0, checked.stderr
    process = subprocess.Popen(
        [NGINX, "-c", str(conf), "-p", str(folder)], stdout=subprocess.DEVNULL,
        stderr=(folder / "nginx-stderr.log").open("wb"), start_new_session=True,
    )  # fmt: skip
    proxy = Proxy("nginx", folder, port, process)
    wait_for(proxy)
    return proxy


def start_caddy(folder: Path, upstream: int) -> Proxy:
    """Caddy from the shipped Caddyfile, in front of 127.0.0.1:``upstream``."""
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    conf = caddyfile(folder, port, free_port(), upstream)
    process = subprocess.Popen(
        [CADDY, "run", "--config", str(conf), "--adapter", "caddyfile"], cwd=folder,
        env=caddy_env(folder), stdout=subprocess.DEVNULL,
        stderr=(folder / "caddy-stderr.log").open("wb"), start_new_session=True,
    )  # fmt: skip
    proxy = Proxy("caddy", folder, port, process)
    wait_for(proxy)
    return proxy


def wait_for(proxy: Proxy) -> None:
    """Until the proxy answers on its port (whatever the answer)."""
    deadline = time.monotonic() + HANG
    while time.monotonic() < deadline:
        assert proxy.process is not None and proxy.process.poll() is None, proxy.log_text()
        try:
            # Caddy holds a request up to 5 s for an upstream that is not there (lb_try_duration).
            Client(proxy).get("/favicon.ico", timeout=30)
            return
        except requests.ConnectionError:
            time.sleep(0.1)
    raise RuntimeError(f"{proxy.kind} did not start: {proxy.log_text()}")


class Client(requests.Session):
    """Talks to a proxy on loopback as if it were the public name (Host header, SNI aside)."""

    def __init__(self, proxy: Proxy) -> None:
        super().__init__()
        self.proxy = proxy

    def request(self, method, url, *args, **kwargs):  # type: ignore[no-untyped-def, override]
        headers = {"Host": f"{PUBLIC}:{self.proxy.port}", **kwargs.pop("headers", {})}
        kwargs.setdefault("timeout", 60)
        kwargs["verify"] = False  # per request: a CA bundle in the environment would win otherwise
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the throw-away certificate is not trusted
            return super().request(
                method, f"https://127.0.0.1:{self.proxy.port}{url}", *args, headers=headers,
                **kwargs,
            )  # fmt: skip


def unit_environment() -> dict[str, str]:
    """The COMPANION_* settings the shipped systemd unit gives the server."""
    unit = (DEPLOY / "systemd" / "companion.service").read_text()
    found = {}
    for line in unit.splitlines():
        match = re.fullmatch(r"Environment='?(COMPANION_[A-Z_]+)=(.*?)'?", line.strip())
        if match:
            found[match.group(1)] = match.group(2)
    return found


# Four kilobytes of a stylesheet, for the proxies to compress.
STYLE = b"".join(b".rule-%d { margin: %dpx; color: #221d18; }\n" % (n, n) for n in range(100))


class Upstream:
    """A stand-in for the app behind a proxy, on a loopback port, in a thread.

    ``/readyz`` (and ``/healthz``) answer 200 only to the public name, as the app does with the shipped unit's
    TRUSTED_HOSTS, and records each check's Host; ``/echo`` answers the request's headers;
    ``/plain.css`` is a stylesheet sent uncompressed;
    ``/events`` is a server-sent-events feed that sends its second event only once the test
    says it received the first, so a proxy that held the feed back would never deliver it.
    A POST reads its whole body, as the app does, and answers 200.
    """

    def __init__(self) -> None:
        import http.server
        import json
        import threading

        self.checks: list[str] = []
        self.checked = threading.Event()
        self.first_received = threading.Event()
        upstream = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                if self.path in ("/readyz", "/healthz"):
                    upstream.checks.append(self.headers.get("Host", ""))
                    ok = self.headers.get("Host", "").split(":")[0] == PUBLIC
                    self._send(200 if ok else 400, b'{"status": "ok"}', "application/json")
                    upstream.checked.set()
                elif self.path == "/echo":
                    body = json.dumps(dict(self.headers.items())).encode()
                    self._send(200, body, "application/json")
                elif self.path == "/plain.css":  # text an upstream sent uncompressed
                    self._send(200, STYLE, "text/css; charset=utf-8")
                elif self.path == "/c/" + "e" * 32 + "/events":
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Cache-Control", "no-store")
                    self.send_header("X-Accel-Buffering", "no")
                    self.end_headers()
                    self.wfile.write(b"data: one\n\n")
                    self.wfile.flush()
                    upstream.first_received.wait(timeout=60)
                    self.wfile.write(b"data: two\n\n")
                    self.wfile.flush()
                else:
                    self._send(404, b"no", "text/plain")

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    while length > 0:  # the whole body, as the app reads it
                        chunk = self.rfile.read(min(length, 65536))
                        if not chunk:
                            break
                        length -= len(chunk)
                    self._send(200, b"read", "text/plain")
                except OSError:  # the proxy refused the body and closed: nobody to answer
                    self.close_connection = True

            def _send(self, status: int, body: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = int(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.first_received.set()
        self.server.shutdown()
        self.server.server_close()


def raw_request(proxy: Proxy, head: str, body: bytes = b"") -> tuple[int, str]:
    """Send ``head`` (and ``body``) over TLS as they are, then read the answer's status and text.

    For what ``requests`` cannot read: the answer a proxy sends, and closes on, while the body
    it refuses is still being sent."""
    import socket
    import ssl

    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", proxy.port), timeout=60) as raw:
        with context.wrap_socket(raw, server_hostname=PUBLIC) as tls:
            tls.sendall(head.encode())
            try:
                for start in range(0, len(body), 65536):
                    tls.sendall(body[start : start + 65536])
            except OSError:  # the proxy answered and closed before the whole body was sent
                pass
            answer = b""
            while b"\r\n\r\n" not in answer or not _complete(answer):
                chunk = tls.recv(65536)
                if not chunk:
                    break
                answer += chunk
    status = int(answer.split(b" ", 2)[1])
    return status, answer.split(b"\r\n\r\n", 1)[1].decode("utf-8", "replace")


def _complete(answer: bytes) -> bool:
    head, _, body = answer.partition(b"\r\n\r\n")
    match = re.search(rb"(?i)content-length: *(\d+)", head)
    return match is not None and len(body) >= int(match.group(1))
