"""The companion installs as an app: a manifest with its icon and its name in the reader's
language, a service worker served from the root, and an offline page of its own that holds
nothing of any chronicle. The policy allows the worker and the manifest, and nothing more."""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from play_helpers import create


@pytest.mark.parametrize(
    ("lang", "name"), [("ja", "遺燼抄コンパニオン"), ("en", "Ijinshō companion")]
)
def test_the_manifest_names_the_app_in_the_readers_language(
    client: FlaskClient, lang: str, name: str
) -> None:
    page = client.get(f"/?lang={lang}").get_data(as_text=True)
    link = re.search(r'<link rel="manifest" href="([^"]+)">', page)
    assert link and link.group(1) == f"/manifest.webmanifest?lang={lang}"
    answer = client.get(link.group(1))
    assert answer.mimetype == "application/manifest+json"
    manifest = answer.get_json(force=True)
    assert manifest["name"] == name and manifest["lang"] == lang
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    sizes = set()
    for icon in manifest["icons"]:
        png = client.get(icon["src"])
        assert png.status_code == 200 and png.data[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", png.data[16:24])
        assert icon["sizes"] == f"{width}x{height}"
        sizes.add(width)
    assert {192, 512} <= sizes  # what a phone asks of an installable app
    # One app, whatever page or language it was installed from; an icon the phone may crop.
    assert manifest["id"] == "/"
    maskable = [icon for icon in manifest["icons"] if icon["purpose"] == "maskable"]
    assert maskable and maskable[0]["sizes"] == "512x512"


def test_the_service_worker_is_served_from_the_root_and_checked_each_visit(
    client: FlaskClient,
) -> None:
    answer = client.get("/sw.js")
    assert answer.status_code == 200 and answer.mimetype == "text/javascript"
    assert answer.headers["Cache-Control"] in ("no-cache", "no-store")  # never a stale worker
    source = answer.get_data(as_text=True)
    assert re.search(r'const OFFLINE = new URL\("offline", scope\)', source)
    listed = re.search(r"const SHELL_FILES = (\[.*?\]);", source)
    assert listed
    files = json.loads(listed.group(1))
    # The shell: the files pages are made of, each under the name that holds its content.
    assert any(re.fullmatch(r"static/css/app\.[0-9a-f]{12}\.css", f) for f in files), files
    assert any(re.fullmatch(r"static/js/site\.[0-9a-f]{12}\.js", f) for f in files), files
    assert not [f for f in files if f.startswith(("c/", "t/", "api/"))]
    for path in files:
        served = client.get("/" + path)
        assert served.status_code == 200
        assert served.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    version = re.search(r'const VERSION = "([0-9a-f]{12})";', source)
    assert version, "the shell's version is written in"
    # Checked each visit for a few bytes: unchanged, a 304.
    again = client.get("/sw.js", headers={"If-None-Match": answer.headers["ETag"]})
    assert again.status_code == 304
    page = client.get("/").get_data(as_text=True)
    assert 'data-worker="/sw.js"' in page


def test_a_new_version_of_a_file_is_a_new_worker(client: FlaskClient, tmp_path: Path) -> None:
    """The shell's version follows its files' contents: a changed file, a new worker, which
    installs its own shell and deletes the old one."""
    from companion.web.shell.static_files import Digests

    def version() -> str:
        found = re.search(r'const VERSION = "(\w+)"', client.get("/sw.js").get_data(as_text=True))
        assert found
        return found.group(1)

    before = version()
    digests: Digests = client.application.extensions["companion.static_digests"]
    real = digests.of
    digests.of = lambda name: "0123456789ab" if name == "js/live.js" else real(name)  # type: ignore[method-assign]
    try:
        assert version() != before
    finally:
        digests.of = real  # type: ignore[method-assign]
    assert version() == before


def test_the_offline_page_says_what_happened_in_both_languages_and_holds_no_link(
    client: FlaskClient,
) -> None:
    token = create(client)
    client.get(f"/c/{token}/")  # a browser that has opened a chronicle
    offline = client.get("/offline").get_data(as_text=True)
    assert "オフラインです" in offline and "This device is offline" in offline
    assert "送られていません" in offline and "was not sent" in offline
    assert "文章はこの端末に残って" in offline and "kept on this device" in offline
    assert token not in offline and "csrf_token" not in offline and "/c/" not in offline


def test_the_policy_allows_the_worker_and_the_manifest_from_this_site_only(
    client: FlaskClient,
) -> None:
    policy = client.get("/").headers["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["worker-src"] == "'self'" and directives["manifest-src"] == "'self'"
    assert directives["script-src"] == "'self'" and "unsafe" not in policy
