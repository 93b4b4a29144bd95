"""The built wheel, installed into a fresh virtualenv, runs from any folder and writes nothing there.

The wheel is built once per session from a copy of the source, installed with its locked
dependencies, and every command runs from an empty folder with HOME pointed at another, so the
data can only land in the user's data folder.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from server_client import free_port, request
from waiting import BOOK_ENDS, HANG
from wheels import quiet_env

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Installed:
    venv: Path
    home: Path
    work: Path

    @property
    def companion(self) -> str:
        return str(self.venv / "bin" / "companion")

    @property
    def env(self) -> dict[str, str]:
        kept = {k: v for k, v in os.environ.items() if not k.startswith(("COMPANION_", "XDG_"))}
        kept.pop("PYTHONPATH", None)
        kept.pop("PYTHONDONTWRITEBYTECODE", None)  # writing bytecode is allowed: but not there
        return {**kept, "HOME": str(self.home)}

    def run(self, *args: str) -> str:
        result = subprocess.run(
            [self.companion, *args], cwd=self.work, env=self.env,
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert result.returncode == 0, result.stdout + result.stderr
        return result.stdout


def _files(folder: Path) -> dict[str, int]:
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns for p in folder.rglob("*")}


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory, this_wheel: Path) -> Iterator[Installed]:
    base = tmp_path_factory.mktemp("wheel")
    home, work, venv = base / "home", base / "work", base / "venv"
    home.mkdir()
    work.mkdir()
    fresh = Installed(venv, home, work)

    def run(*command: str) -> None:
        subprocess.run(command, check=True, env=quiet_env(), cwd=base, stdout=subprocess.DEVNULL)

    quiet = ("--disable-pip-version-check", "-q")
    run(sys.executable, "-m", "venv", str(venv))
    pip = (str(venv / "bin" / "python"), "-m", "pip", "install", *quiet)
    run(*pip, "--require-hashes", "-r", str(ROOT / "requirements" / "pip.lock"))
    run(*pip, "--require-hashes", "-r", str(ROOT / "requirements" / "app.lock"))
    run(*pip, "--no-deps", str(this_wheel))
    yield fresh


@pytest.fixture(scope="session")
def serving(installed: Installed) -> Iterator[int]:
    port = free_port()
    process = subprocess.Popen(
        [installed.companion, "serve", "--port", str(port)], cwd=installed.work,
        env=installed.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + HANG
    while True:
        assert process.poll() is None, "the installed server stopped"
        assert time.monotonic() < deadline, "the installed server never answered"
        try:
            if request(port, "GET", "/healthz")[0] == 200:
                break
        except OSError:
            time.sleep(0.2)
    try:
        yield port
    finally:
        os.killpg(process.pid, 15)
        process.wait(timeout=20)


def test_the_installed_package_serves_prints_and_backs_up_from_an_empty_folder(
    installed: Installed, serving: int
) -> None:
    before = _files(installed.venv)
    data = installed.home / ".local" / "share" / "ijinsho-companion"
    assert f"Database ready: {data / 'companion.sqlite3'}" in installed.run("init-db")
    info = installed.run("info")
    assert (
        f"instance:     {data}" in info and "a package" in info and "server:       running" in info
    )
    token = installed.run("demo", "--lang", "ja").split("/c/", 1)[1].split("/", 1)[0]

    status, page = request(serving, "GET", "/?lang=ja")
    assert status == 200 and 'lang="ja"' in page and "新しい年代記を始める" in page
    assert request(serving, "GET", "/?lang=en")[0] == 200
    status, css = request(serving, "GET", "/static/css/app.css")
    assert status == 200 and "--ember" in css
    # The screen's Japanese faces were cut when the wheel was built: the page links them, and
    # the slices they name are served.
    faces = re.search(r'href="(/static/fonts/screen/faces[^"]*\.css)"', page)
    assert faces, "the installed page links no screen faces"
    status, css = request(serving, "GET", faces.group(1))
    slice_name = re.search(r'url\("([^"]+\.woff2)"\)', css)
    assert status == 200 and "@font-face" in css and slice_name
    folder = faces.group(1).rsplit("/", 1)[0]
    assert _get_bytes(serving, f"{folder}/{slice_name.group(1)}")[:4] == b"wOF2"
    font = _get_bytes(serving, "/static/fonts/ipaexm.ttf")
    assert len(font) > 1_000_000

    pdf = _book(serving, token)
    fonts = _embedded_fonts(pdf)
    assert any("IPAex" in name for name in fonts), fonts

    installed.run("backup", str(installed.work / "backup.zip"))
    assert (installed.work / "backup.zip").stat().st_size > 1000
    refused = subprocess.run(
        [installed.companion, "restore", str(installed.work / "backup.zip")],
        cwd=installed.work, env=installed.env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert refused.returncode != 0 and "stop `companion serve`" in refused.stderr

    assert sorted(p.name for p in installed.work.iterdir()) == ["backup.zip"]
    assert _files(installed.venv) == before, "the installed app wrote inside its virtualenv"


def _get_bytes(port: int, path: str) -> bytes:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        assert response.status == 200, path
        return response.read()
    finally:
        conn.close()


def _book(port: int, token: str) -> bytes:
    path = f"/api/v1/chronicles/{token}/exports"
    status, job = request(port, "POST", path, {"format": "pdf", "paper": "a5"})
    assert status in (200, 202), job
    deadline = time.monotonic() + BOOK_ENDS
    while job["status"] != "done" and time.monotonic() < deadline:
        assert job["status"] in ("queued", "running"), job
        time.sleep(0.5)
        job = request(port, "GET", job["status_url"])[1]
    assert job["status"] == "done", job
    return _get_bytes(port, job["file_url"])


def _embedded_fonts(pdf: bytes) -> set[str]:
    from pypdf import PdfReader

    names = set()
    for page in PdfReader(io.BytesIO(pdf)).pages[:6]:
        fonts = page.get("/Resources", {}).get("/Font", {})
        for font in fonts.values():
            font = font.get_object()
            descendants = font.get("/DescendantFonts") or [font]
            for item in descendants:
                descriptor = item.get_object().get("/FontDescriptor")
                if descriptor is not None and "/FontFile2" in descriptor.get_object():
                    names.add(str(font.get("/BaseFont")))
    return names
