"""`companion serve --certfile --keyfile` serves over TLS and, like the shipped proxies, tells
browsers to keep to HTTPS (the links are the credentials)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import requests
from proxy_kit import certificate
from server_client import free_port
from waiting import HANG

COMPANION = str(Path(sys.executable).parent / "companion")


def test_serve_over_tls_sends_strict_transport_security(tmp_path: Path) -> None:
    cert, key = certificate(tmp_path)
    port = free_port()
    env = {**os.environ, "COMPANION_INSTANCE": str(tmp_path / "instance")}
    process = subprocess.Popen(
        [COMPANION, "serve", "--port", str(port), "--certfile", str(cert), "--keyfile", str(key)],
        env=env, stdout=subprocess.DEVNULL, stderr=(tmp_path / "log").open("wb"),
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline, answer = time.monotonic() + HANG, None
        while answer is None and time.monotonic() < deadline and process.poll() is None:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # the throw-away certificate
                    answer = requests.get(f"https://127.0.0.1:{port}/", verify=False, timeout=30)
            except requests.ConnectionError:
                time.sleep(0.1)
        assert answer is not None, (tmp_path / "log").read_text()
        assert answer.status_code == 200
        assert answer.headers["Strict-Transport-Security"] == "max-age=31536000"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=60)
