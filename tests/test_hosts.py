"""Trusted host names and the base URL of absolute links."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import make_app

from companion.base.hosts import default_trusted_hosts
from companion.base.settings import SettingError, check


def test_serve_trusts_loopback_its_lan_address_and_the_base_url(tmp_path: Path) -> None:
    app = make_app(tmp_path, BASE_URL="https://play.example:8443/")
    assert default_trusted_hosts(app, "0.0.0.0", "192.0.2.7") == [
        "localhost",
        "127.0.0.1",
        "192.0.2.7",
        "play.example",
    ]
    assert default_trusted_hosts(make_app(tmp_path), "127.0.0.1", None) == [
        "localhost",
        "127.0.0.1",
    ]


@pytest.mark.parametrize("value", ["play.example", "ftp://play.example", "https://x.example/sub"])
def test_a_base_url_must_be_scheme_and_host(value: str) -> None:
    with pytest.raises(SettingError, match="BASE_URL"):
        check({"BASE_URL": value})


def test_absolute_links_use_the_base_url_whatever_the_host(tmp_path: Path) -> None:
    client = make_app(tmp_path, BASE_URL="https://play.example").test_client()
    from play_helpers import SETUP_FORM

    response = client.post("/new", data=SETUP_FORM, headers={"Host": "evil.example"})
    links = client.get(response.headers["Location"], headers={"Host": "evil.example"})
    text = links.get_data(as_text=True)
    assert "https://play.example/c/" in text and "evil.example" not in text


def test_an_untrusted_host_gets_a_plain_400(tmp_path: Path) -> None:
    client = make_app(tmp_path, TRUSTED_HOSTS=["localhost"]).test_client()
    page = client.get("/", headers={"Host": "evil.example"})
    assert page.status_code == 400 and "evil.example" not in page.get_data(as_text=True)
    api = client.post("/api/v1/chronicles", json={}, headers={"Host": "evil.example"})
    assert api.status_code == 400 and api.get_json()["code"] == "untrusted-host"
    assert client.get("/", headers={"Host": "localhost"}).status_code == 200
