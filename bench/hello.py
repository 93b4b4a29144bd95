"""The page benches' baseline: a hello-world WSGI app served exactly as `companion serve` serves
the companion (the same command, server module, worker class, workers and threads).

Run as `companion serve` would be, with any of its options; the app the server loads is the
bare function below instead of the companion. So a change to how `companion serve` runs its
workers (a worker class, a front end) is measured on both sides of every ratio.

    .venv/bin/python bench/hello.py --port 8001 [any other `companion serve` option]

`start(port, database)` runs it in a subprocess and waits until it answers.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

BODY = b'{"status": "ok"}\n'
# The byte bench's baseline: the smallest page a phone can be sent, at /hello.
PAGE = (
    b'<!doctype html><html lang="en"><meta charset="utf-8">'
    b'<meta name="viewport" content="width=device-width, initial-scale=1">'
    b"<title>Hello</title><p>Hello.</p></html>\n"
)


def hello(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    """The smallest useful answer: a fixed JSON body, as /healthz sends one (a plain HTML page
    at /hello)."""
    body, kind = (
        (PAGE, "text/html; charset=utf-8")
        if environ.get("PATH_INFO") == "/hello"
        else (
            BODY,
            "application/json",
        )
    )
    start_response("200 OK", [("Content-Type", kind), ("Content-Length", str(len(body)))])
    return [body]


def serve(argv: list[str]) -> None:
    """`companion serve ARGV`, with every app the server loads after the first one being hello.

    The first app made is the one the command itself reads its settings from (the database, the
    trusted hosts); every later one is what the server's workers serve, whether they load it in
    their own process or the master loads it before forking.
    """
    from companion.app import create_app as real
    from companion.ops.cli import command_line

    made = 0

    def create_app() -> Any:
        nonlocal made
        made += 1
        return real() if made == 1 else hello

    command_line(create_app)(["serve", *argv], standalone_mode=True)


def start(port: int, database: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """The hello server on ``port`` (its own ``database``), answering before this returns."""
    process = subprocess.Popen(
        [sys.executable, __file__, "--port", str(port)],
        env={
            **os.environ,
            "COMPANION_DATABASE": str(database),
            "COMPANION_SECRET_KEY": "bench",
            **(env or {}),
        },
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
