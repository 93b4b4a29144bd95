"""The page benches' baseline: a bare Flask hello-world served exactly as `companion serve`
serves the companion (the same server module, worker class, workers and gunicorn settings).

Nothing of the companion is built: no app, no database, no settings read. So its memory,
start-up and requests/s are a bare Flask app's under our server, and a change to how
`companion serve` runs its workers (a worker class, a front end) is measured on both sides of
every ratio.

    .venv/bin/python bench/hello.py --port 8001 [--workers 2]

`start(port)` runs it in a subprocess and waits until it answers.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

BODY = b'{"status": "ok"}\n'
# The byte bench's baseline: the smallest page a phone can be sent, at /hello.
PAGE = (
    b'<!doctype html><html lang="en"><meta charset="utf-8">'
    b'<meta name="viewport" content="width=device-width, initial-scale=1">'
    b"<title>Hello</title><p>Hello.</p></html>\n"
)


def bare_app() -> Any:
    """The smallest useful Flask app: a fixed JSON body, as /healthz sends one (a plain HTML
    page at /hello)."""
    from flask import Flask, Response

    app = Flask("hello")

    @app.get("/")
    def index() -> Response:
        return Response(BODY, mimetype="application/json")

    @app.get("/hello")
    def page() -> Response:
        return Response(PAGE, content_type="text/html; charset=utf-8")

    return app


def serve(argv: list[str]) -> None:
    """Serve the bare app with `companion serve`'s own server: its gunicorn settings and
    worker class, ``--workers`` of them (2 by default, as `companion serve`)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=8001)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    from companion.ops import server

    server.run(bare_app, "127.0.0.1", args.port, args.workers, lan=False)


def start(port: int, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """The hello server on ``port``, answering before this returns."""
    process = subprocess.Popen(
        [sys.executable, __file__, "--port", str(port)],
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    wait_until_up(f"http://127.0.0.1:{port}/", process)
    return process


def wait_until_up(url: str, process: subprocess.Popen[bytes], seconds: float = 30) -> None:
    """Wait until ``url`` answers 200; stop ``process`` and raise if it never does."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit(f"the server for {url} did not start")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    serve(sys.argv[1:])
