"""Upgrading an installed release to this one by docs/deploy.md's own steps keeps everything.

The earlier release is commit 92f2249 (every wheel of that time was called 0.1.0): its source
is taken with `git archive`, its wheel built and installed into a fresh virtualenv from its own
lock, and it serves an instance that gets chronicles in Japanese and English with turning points,
a table of each card game, an uploaded pack and a finished PDF. Then the upgrade block of
docs/deploy.md runs line by line (its backup first, with the old version), with only the places
changed: the virtualenv, the instance folder and a `dist/` holding this version's wheel instead of
/opt/companion/venv, /var/lib/companion and the copied files, and `systemctl stop|start` stopping
and starting the test's server. The new version must then serve every chronicle, table, pack and
book, take new moves on each, and restore the old version's backup.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from requests.adapters import HTTPAdapter
from server_client import SETUP, Browser, free_port, next_command, request
from urllib3.util.retry import Retry
from waiting import BOOK_ENDS, HANG
from wheels import build_wheel, quiet_env

from companion.base import __version__
from companion.cardgames import get_game
from companion.ops.archive import known_migrations

ROOT = Path(__file__).resolve().parent.parent
EARLIER = "92f2249"  # the last release before versions were kept: "0.1.0"
GAMES = ("traitors-flame", "age-of-summoners")

pytestmark = pytest.mark.slow


def _run(*command: str, cwd: Path) -> str:
    done = subprocess.run(command, cwd=cwd, env=quiet_env(), capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@dataclass
class Site:
    """An installed companion and its instance, served on a loopback port when started."""

    venv: Path
    instance: Path
    port: int
    process: subprocess.Popen[bytes] | None = None

    @property
    def companion(self) -> str:
        return str(self.venv / "bin" / "companion")

    @property
    def env(self) -> dict[str, str]:
        return {**quiet_env(), "COMPANION_INSTANCE": str(self.instance),
                "COMPANION_RATELIMIT_ENABLED": "false"}  # fmt: skip

    def cli(self, *args: str) -> str:
        done = subprocess.run([self.companion, *args], env=self.env, capture_output=True,
                              text=True, timeout=300, cwd=self.instance.parent)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def start(self) -> None:
        log = (self.instance.parent / "server.log").open("ab")
        self.process = subprocess.Popen(
            [self.companion, "serve", "--port", str(self.port)], env=self.env,
            stdout=subprocess.DEVNULL, stderr=log, start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + HANG
        while time.monotonic() < deadline:
            assert self.process.poll() is None, "the server stopped"
            try:
                if request(self.port, "GET", "/healthz")[0] == 200:
                    return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("the server did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=60)
        self.process = None


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, this_wheel: Path) -> Iterator[tuple[Site, Path]]:
    """The earlier release installed from its wheel and lock; and the folder an operator would
    have copied for the upgrade (this version's requirements/ and dist/ with its wheel)."""
    base = tmp_path_factory.mktemp("upgrade")
    old = base / "old-source"
    old.mkdir()
    listed = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", EARLIER],
                            capture_output=True, check=True)  # fmt: skip
    subprocess.run(["tar", "-x", "-C", str(old)], input=listed.stdout, check=True)
    old_wheel = build_wheel(old, base / "old-dist")
    assert old_wheel.name == "ijinsho_companion-0.1.0-py3-none-any.whl"
    copied = base / "copied"  # what the operator copies to the server
    shutil.copytree(ROOT / "requirements", copied / "requirements")
    (copied / "dist").mkdir()
    new_wheel = Path(shutil.copy(this_wheel, copied / "dist"))
    assert new_wheel.name == f"ijinsho_companion-{__version__}-py3-none-any.whl"

    venv = base / "venv"
    _run(sys.executable, "-m", "venv", str(venv), cwd=base)
    pip = (
        str(venv / "bin" / "python"),
        "-m",
        "pip",
        "install",
        "-q",
        "--disable-pip-version-check",
    )
    # pip at the earlier lock's own pin first: the pip a new venv starts with refuses a locked
    # package another asks for with an extra (fonttools[woff]) once a newer one is published.
    pip_lock = base / "old-pip.lock"
    pip_lock.write_text(_pip_pin((old / "requirements" / "app.lock").read_text()))
    _run(*pip, "--require-hashes", "-r", str(pip_lock), cwd=base)
    _run(*pip, "--require-hashes", "-r", str(old / "requirements" / "app.lock"), cwd=base)
    _run(*pip, "--no-deps", str(old_wheel), cwd=base)
    installed = Site(venv, base / "var-lib-companion", free_port())
    installed.instance.mkdir()
    try:
        yield installed, copied
    finally:
        installed.stop()


def _play(port: int, token: str, moves: int) -> dict:  # type: ignore[type-arg]
    """``moves`` commands through the API; the state after them."""
    rng = random.Random(7)
    state = request(port, "GET", f"/api/v1/chronicles/{token}/state")[1]
    for _ in range(moves):
        command = next_command(state, rng)
        body = {"version": state["version"], "command": command}
        status, answer = request(port, "POST", f"/api/v1/chronicles/{token}/commands", body)
        assert status == 200, answer
        state = request(port, "GET", f"/api/v1/chronicles/{token}/state")[1]
    return state


def _table(browser: Browser, game: str) -> str:
    data = {"game": game, "language": "en", "mode": "hotseat", "seat-0-kind": "person",
            "seat-0-name": "Ann", "seat-1-kind": "heuristic", "seat-1-name": "Bo"}  # fmt: skip
    made = browser.post_form("/games/", data, token_page="/games/")
    assert made.status_code == 302, made.text[-800:]
    match = re.search(r"/t/([^/]+)/", made.headers["Location"])
    assert match
    return match.group(1)


def _table_move(browser: Browser, token: str) -> int:
    """Press the first button the person's seat has (revealing the hand first); the version."""
    page = browser.get(f"/t/{token}/").text
    if 'class="cover-screen"' in page:
        revealed = browser.post_form(f"/t/{token}/reveal", {"seat": "0"}, f"/t/{token}/")
        assert revealed.status_code == 302, revealed.text[-800:]
        page = browser.get(f"/t/{token}/").text
    actions = re.findall(r'<button name="action" value="([^"]+)"', page)
    assert actions, page[-1500:]
    version = browser.get(f"/t/{token}/version").json()["version"]
    action = actions[0].replace("&#34;", '"').replace("&quot;", '"')
    acted = browser.post_form(
        f"/t/{token}/act", {"version": str(version), "action": action}, f"/t/{token}/"
    )
    assert acted.status_code == 302, acted.text[-800:]
    after = int(browser.get(f"/t/{token}/version").json()["version"])
    assert after > version
    return after


def _book(port: int, token: str) -> str:
    status, job = request(port, "POST", f"/api/v1/chronicles/{token}/exports", {"format": "pdf"})
    assert status in (200, 202), job
    deadline = time.monotonic() + BOOK_ENDS
    while job["status"] != "done" and time.monotonic() < deadline:
        assert job["status"] in ("queued", "running"), job
        time.sleep(0.5)
        job = request(port, "GET", job["status_url"])[1]
    assert job["status"] == "done", job
    return urlsplit(str(job["file_url"])).path


def _pdf(browser: Browser, path: str) -> bytes:
    got = browser.get(path)
    assert got.status_code == 200 and got.content.startswith(b"%PDF"), got.status_code
    return got.content


def _pip_pin(lock: str) -> str:
    """pip's pin in ``lock``, with its hashes, as a lock of its own."""
    found = re.search(r"^pip==\S+ \\\n(?:\s+--hash=\S+(?: \\)?\n)+", lock, re.M)
    assert found, "the lock pins no pip"
    return found.group(0)


def _upgrade_block() -> list[str]:
    text = (ROOT / "docs" / "deploy.md").read_text()
    block = text.split("# upgrading, on the server, as root\n", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_an_upgrade_by_the_documented_steps_keeps_everything_and_restores_the_old_backup(
    site: tuple[Site, Path],
) -> None:
    installed, copied = site
    assert "companion:    0.1.0" in installed.cli("info")
    installed.start()
    port, browser = installed.port, Browser(f"http://127.0.0.1:{installed.port}")
    # The earlier release serves with gthread workers, which close a kept-alive connection after
    # two idle seconds: a GET sent on it just then is reset. A browser opens a new connection and
    # asks again; so does this one, for reads only (a form post is never sent twice).
    reads = Retry(total=2, connect=2, read=2, status=0, other=0, allowed_methods={"GET", "HEAD"})
    browser.mount("http://", HTTPAdapter(max_retries=reads))

    # Data made with the earlier release.
    chronicles = {}
    for language in ("ja", "en"):
        status, made = request(port, "POST", "/api/v1/chronicles", {**SETUP, "language": language})
        assert status == 201, made
        chronicles[language] = made["host_token"]
        assert _play(port, made["host_token"], 8)["version"] >= 8  # a whole turning point
    tables = {game: _table(browser, game) for game in GAMES}
    table_versions = {game: _table_move(browser, token) for game, token in tables.items()}
    pack = (ROOT / "companion/packs/data/standard.en.md").read_text()
    pack = pack.replace("name: standard", "name: old-release-pack", 1)
    uploaded = browser.post(
        "/packs/upload", data={"csrf_token": browser.csrf("/packs/")},
        files={"pack": ("old-release-pack.en.md", pack.encode(), "text/markdown")},
    )  # fmt: skip
    assert uploaded.status_code == 302, uploaded.text[-800:]
    pack_page = urlsplit(uploaded.headers["Location"]).path  # /packs/old-release-pack-<id>/en
    assert browser.get(pack_page).status_code == 200
    book = _book(port, chronicles["ja"])
    old_pdf = _pdf(browser, book)
    states = {
        lang: request(port, "GET", f"/api/v1/chronicles/{t}/state")[1]
        for lang, t in chronicles.items()
    }

    # The upgrade, line by line as docs/deploy.md gives it.
    for line in _upgrade_block():
        if line == "systemctl stop companion":
            installed.stop()
            continue
        if line == "systemctl start companion":
            installed.start()
            continue
        command = (
            line.replace("sudo -u companion ", "")
            .replace("/var/lib/companion", str(installed.instance))
            .replace("/opt/companion/venv", str(installed.venv))
        )
        done = subprocess.run(["bash", "-c", command], cwd=copied, env=quiet_env(),
                              capture_output=True, text=True, timeout=600)  # fmt: skip
        assert done.returncode == 0, (line, done.stdout + done.stderr)
        if line.endswith("companion --version"):
            assert done.stdout.strip() == f"companion {__version__}"
    # Named by the version and the time (0.1.0 had no --version: its name has no version).
    backups = list(installed.instance.glob("before-*.zip"))
    assert installed.process is not None and len(backups) == 1
    backup = backups[0]
    with zipfile.ZipFile(backup) as opened:
        assert json.loads(opened.read("manifest.json"))["companion_version"] == "0.1.0"

    # Everything is there on the new version, and takes new moves.
    info = installed.cli("info")
    known = len(known_migrations())
    assert f"companion:    {__version__}" in info
    assert f"schema:       {known} of {known} migrations applied" in info
    health = request(port, "GET", "/healthz")[1]
    assert health["version"] == __version__ and health["status"] == "ok"
    assert f"Version {__version__}" in browser.get("/?lang=en").text
    for language, token in chronicles.items():
        state = request(port, "GET", f"/api/v1/chronicles/{token}/state")[1]
        assert state["version"] == states[language]["version"]
        assert _play(port, token, 3)["version"] == state["version"] + 3
    for game, token in tables.items():
        page = browser.get(f"/t/{token}/")
        assert page.status_code == 200
        # The engine still plays the rules the earlier release played (version 1), so every
        # table replays whole and plays on under them, as CHANGELOG says.
        assert 1 in get_game(game).versions
        kept = browser.get(f"/t/{token}/version").json()["version"]
        assert kept == table_versions[game]  # every move the earlier release took is there
        assert "no one can play on" not in page.text, page.text[:9000]
        if get_game(game).engine_version != 1:
            assert "version 1" in page.text or "バージョン1" in page.text
        assert _table_move(browser, token) > table_versions[game]
    assert pack_page in browser.get("/packs/").text
    assert browser.get(pack_page).status_code == 200
    assert _pdf(browser, book) == old_pdf
    _pdf(browser, _book(port, chronicles["en"]))
    status, later = request(port, "POST", "/api/v1/chronicles", SETUP)
    assert status == 201

    # The backup the earlier release wrote restores into this one.
    installed.stop()
    assert "is a good backup" in installed.cli("backup", "--verify", str(backup))
    restored = installed.cli("restore", str(backup))
    assert "written by companion 0.1.0" in restored
    installed.start()
    for language, token in chronicles.items():
        state = request(port, "GET", f"/api/v1/chronicles/{token}/state")[1]
        assert state["version"] == states[language]["version"]
        _play(port, token, 1)
    assert request(port, "GET", f"/api/v1/chronicles/{later['host_token']}/state")[0] == 404
    for token in tables.values():
        assert browser.get(f"/t/{token}/").status_code == 200
    assert browser.get(pack_page).status_code == 200
    installed.stop()
