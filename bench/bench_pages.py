"""The play page and the story log of a full life, served by `companion serve` (gunicorn).

A life of 36 turning points with about 2,000 characters of text each is built first. Then:
- median server time of each page over repeated requests (in-process, Flask test client);
- requests/s under 32 concurrent loopback connections (wrk) on the same production server,
  next to the hello-world route /healthz in the same run, with the ratio. Every request carries
  the session cookie a player's browser has after its first visit.
Targets: play page >= 0.3 of hello-world, story log >= 0.1.

    .venv/bin/python bench/bench_pages.py [--seconds 8] [--connections 32]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import lifegen  # noqa: E402

from companion import create_app  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_times(db: Path, token: str, repeats: int) -> dict[str, float]:
    """Median in-process time of each page (ms), after one warm-up request."""
    app = create_app({"DATABASE": str(db), "SECRET_KEY": "bench", "TESTING": False})
    client = app.test_client()
    out = {}
    for name, path in pages(token).items():
        client.get(path)
        samples = []
        for _ in range(repeats):
            start = time.perf_counter()
            response = client.get(path)
            samples.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 200, (path, response.status_code)
        out[name] = statistics.median(samples)
    return out


def pages(token: str) -> dict[str, str]:
    return {"hello": "/healthz", "play": f"/c/{token}/", "story": f"/c/{token}/story"}


def start_server(db: Path, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "COMPANION_DATABASE": str(db), "COMPANION_SECRET_KEY": "bench"}
    process = subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "companion"), "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("the server did not start")


def session_cookie(url: str) -> str:
    """The cookie a browser gets on its first visit (players' browsers send it back)."""
    with urllib.request.urlopen(url, timeout=10) as response:
        cookie = response.headers.get("Set-Cookie", "")
    return cookie.split(";", 1)[0]


def wrk(url: str, seconds: int, connections: int, cookie: str = "") -> float:
    headers = ["-H", f"Cookie: {cookie}"] if cookie else []
    result = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", *headers, url],
        capture_output=True,
        text=True,
        check=True,
    )
    match = re.search(r"Requests/sec:\s+([\d.]+)", result.stdout)
    if not match or "Non-2xx" in result.stdout:
        raise SystemExit(f"wrk failed on {url}:\n{result.stdout}")
    return float(match.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed: apt-get install wrk")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.sqlite3"
        token = lifegen.full_life(db, chars=2000)
        times = server_times(db, token, args.repeats)
        port = free_port()
        server = start_server(db, port)
        try:
            base = f"http://127.0.0.1:{port}"
            cookie = session_cookie(f"{base}/c/{token}/")
            rates = {
                name: wrk(f"{base}{path}", args.seconds, args.connections, cookie)
                for name, path in pages(token).items()
            }
        finally:
            server.terminate()
            server.wait(timeout=10)
    print(f"full life: 36 turning points, ~2,000 characters each; {args.connections} connections")
    print(f"{'page':<8} {'server median ms':>17} {'req/s':>9} {'ratio to hello':>15}")
    for name in ("hello", "play", "story"):
        ratio = rates[name] / rates["hello"]
        print(f"{name:<8} {times[name]:>17.2f} {rates[name]:>9.0f} {ratio:>15.2f}")
    print("targets: play >= 0.30, story >= 0.10 of hello-world")


if __name__ == "__main__":
    main()
