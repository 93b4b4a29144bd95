"""The companion installs as an app: a manifest with its icon and its name in the reader's
language, a service worker served from the root, and an offline page of its own that holds
nothing of any chronicle. The policy allows the worker and the manifest, and nothing more."""

from __future__ import annotations

import re
import struct

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


def test_the_service_worker_is_served_from_the_root_and_checked_each_visit(
    client: FlaskClient,
) -> None:
    answer = client.get("/sw.js")
    assert answer.status_code == 200 and answer.mimetype == "text/javascript"
    assert answer.headers["Cache-Control"] in ("no-cache", "no-store")  # never a stale worker
    shell = re.search(r"const SHELL = \[(.*?)\];", answer.get_data(as_text=True), re.S)
    assert shell and "offline" in shell.group(1)
    assert "/c/" not in shell.group(1) and "/t/" not in shell.group(1)
    page = client.get("/").get_data(as_text=True)
    assert 'data-worker="/sw.js"' in page


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
