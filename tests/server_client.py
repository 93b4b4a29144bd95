"""A real `companion serve` in a subprocess, and a small JSON client that plays through the API."""

from __future__ import annotations

import http.client
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listens(group: int, port: int) -> bool:
    """Whether a process of the process group ``group`` listens on ``port`` (True where /proc
    cannot tell)."""
    wanted = f":{port:04X}"
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            return True
        for line in lines:
            fields = line.split()
            if fields[1].endswith(wanted) and fields[3] == "0A":  # LISTEN
                inodes.add(f"socket:[{fields[9]}]")
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.getpgid(int(pid)) != group:
                continue
            folder = Path("/proc", pid, "fd")
            if any(os.readlink(folder / fd) in inodes for fd in os.listdir(folder)):
                return True
        except OSError:
            continue
    return False


@dataclass
class Server:
    """`companion serve` (gunicorn, gevent workers) on a loopback port and a temp database."""

    database: Path
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    env: dict[str, str] = field(default_factory=dict)
    # A command the server runs under (e.g. one that drops privileges), before `companion`.
    wrapper: list[str] = field(default_factory=list)
    # The Host its start-up check names (a server that trusts only its public name needs it).
    host: str | None = None
    # More options of `companion serve` (``["--workers", "1"]``).
    options: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Server:
        """Start the server and wait until it answers; on another port if its port was taken."""
        for _attempt in range(3):
            if self._started():
                return self
            self.port = free_port()  # another process took the port meanwhile
        raise RuntimeError("the server did not start")

    def _started(self) -> bool:
        folder = self.database.parent
        env = {
            **os.environ,
            "COMPANION_DATABASE": str(self.database),
            "COMPANION_SECRET_KEY": "proof",
            "COMPANION_RATELIMIT_ENABLED": "false",
            # Nor the pace of a chronicle's corrections (tests/attacks/ set their own).
            "COMPANION_CORRECTIONS_PER_MINUTE": "1000000",
            "COMPANION_CORRECTIONS_PER_TEXT": "1000000",
            "COMPANION_PACKS_DIR": str(folder / "packs"),
            "COMPANION_EXPORTS_DIR": str(folder / "exports"),
            **self.env,
        }
        companion = Path(sys.executable).parent / "companion"
        self.process = subprocess.Popen(
            [*self.wrapper, str(companion), "serve", "--port", str(self.port), *self.options],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(self.database.with_suffix(".log"), "ab"),  # noqa: SIM115 - kept for the run
            start_new_session=True,
        )
        deadline = time.monotonic() + 120  # a server that never starts, however loaded
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                headers = {"Host": self.host} if self.host else None
                if request(self.port, "GET", "/healthz", headers=headers)[0] == 200:
                    # Another test's server may hold the port while this one still tries it.
                    if not listens(self.process.pid, self.port):
                        break
                    return self.process.poll() is None
            except OSError:
                time.sleep(0.1)
        self.stop()
        return False

    def kill(self) -> None:
        """kill -9 the whole server (master and workers)."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


def request(
    port: int,
    method: str,
    path: str,
    body: Any = None,
    timeout: float = 30,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """One HTTP request; the JSON answer decoded when there is one."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        payload = None if body is None else json.dumps(body)
        sent = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, body=payload, headers={**sent, **(headers or {})})
        response = conn.getresponse()
        data = response.read()
        kind = response.getheader("Content-Type", "")
        return response.status, json.loads(data) if "json" in kind else data.decode(
            "utf-8", "replace"
        )
    finally:
        conn.close()


def send(port: int, token: str, version: int, command: dict[str, Any]) -> tuple[int, Any]:
    """POST one command of the JSON API at ``version``: the status and the answer."""
    body = {"version": version, "command": command}
    return request(port, "POST", f"/api/v1/chronicles/{token}/commands", body)


SETUP = {
    "pioneer": {"name": "Kaya", "people": "human", "concept": "A cartographer."},
    "players": ["Ali", "Brianna", "Cardon"],
    "oldest": 0,
    "language": "en",
    "mode": "digital",
}


def next_command(state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The command a player would send next, chosen from the state's legal commands."""
    legal = {item["type"]: item for item in state["legal"]}
    for kind, build in _CHOICES:
        if kind in legal:
            return build(legal[kind], state, rng)
    epilogue = state.get("epilogue")
    if epilogue:
        return {
            "type": "revise-text",
            "target_seq": epilogue["seq"],
            "field": epilogue["field"],
            "text": f"Revised {rng.random()}",
        }
    return {"type": "write-epilogue", "epilogue": "She is remembered."}


def _sacrifice_or_accept(
    item: dict[str, Any], state: dict[str, Any], rng: random.Random
) -> dict[str, Any]:
    return {"type": "accept-failure", "narration": "It slips away."}


_CHOICES = [
    ("draw-card", lambda i, s, r: {"type": "draw-card"}),
    (
        "choose-prompt",
        lambda i, s, r: {"type": "choose-prompt", "index": i["options"]["indices"][0]},
    ),
    ("answer-prompt", lambda i, s, r: {"type": "answer-prompt", "answer": "An answer."}),
    ("declare-stakes", lambda i, s, r: {"type": "declare-stakes", "success": "s", "failure": "f"}),
    ("roll-dice", lambda i, s, r: {"type": "roll-dice"}),
    ("narrate-success", lambda i, s, r: {"type": "narrate-success", "narration": "Through."}),
    ("build-mark", lambda i, s, r: {"type": "build-mark", "name": "A mark", "description": "d"}),
    (
        "sacrifice-keystone",
        lambda i, s, r: (
            {
                "type": "sacrifice-keystone",
                "keystone": i["options"]["keystones"][0],
                "why": "w",
                "outcome": "o",
            }
            if r.random() < 0.5
            else {"type": "accept-failure", "narration": "It slips away."}
        ),
    ),
    ("accept-failure", _sacrifice_or_accept),
]


class Browser(requests.Session):
    """A browser-like client: keeps cookies and sends the page's CSRF token with its forms."""

    def __init__(self, base: str) -> None:
        super().__init__()
        self.base = base

    def request(self, method, url, *args, **kwargs):  # type: ignore[no-untyped-def, override]
        if url.startswith("/"):
            url = self.base + url
        kwargs.setdefault("allow_redirects", False)
        kwargs.setdefault("timeout", 60)
        response = super().request(method, url, *args, **kwargs)
        # Browsers treat the loopback address as secure: its `Secure` cookies come back over
        # plain HTTP. requests does not, so the flag is dropped once the cookie is kept.
        for cookie in self.cookies:
            cookie.secure = False
        return response

    def followed(self, response: requests.Response) -> str:
        """The page a form's answer sends this browser to (post/redirect/get), as text."""
        assert response.status_code == 303, response.text[-800:]
        return self.get(response.headers["Location"]).text

    def csrf(self, path: str = "/new") -> str:
        """A CSRF token for this browser's session, read from a page with a form."""
        page = self.get(path).text
        match = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page) or re.search(
            r'name="csrf-token" content="([^"]+)"', page
        )
        assert match, f"no CSRF token on {path}"
        return match.group(1)

    def post_form(self, path: str, data: dict[str, str], token_page: str = "/new"):  # type: ignore[no-untyped-def]
        """A form post as the page would send it."""
        return self.post(path, data={"csrf_token": self.csrf(token_page), **data})
