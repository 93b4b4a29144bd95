"""Behind a proxy the app trusts only the forwarded headers the shipped proxies set."""

from __future__ import annotations

from pathlib import Path

from conftest import make_app

FORWARDED = {
    "X-Forwarded-For": "198.51.100.7",
    "X-Forwarded-Proto": "https",
    "X-Forwarded-Host": "play.example:8443",
}


def _root(tmp_path: Path, headers: dict[str, str], **config: object) -> str:
    app = make_app(tmp_path, PROXY_HOPS=1, TRUSTED_HOSTS=["play.example"], **config)

    @app.get("/where")
    def where() -> str:
        from flask import request

        return f"{request.url_root} {request.remote_addr}"

    return app.test_client().get("/where", headers=headers).get_data(as_text=True)


def test_the_address_scheme_and_host_come_from_the_proxy(tmp_path: Path) -> None:
    assert _root(tmp_path, FORWARDED) == "https://play.example:8443/ 198.51.100.7"


def test_a_prefix_or_a_port_a_client_slipped_through_is_not_trusted(tmp_path: Path) -> None:
    forged = {**FORWARDED, "X-Forwarded-Prefix": "//evil.example", "X-Forwarded-Port": "6666"}
    assert _root(tmp_path, forged) == "https://play.example:8443/ 198.51.100.7"


def test_a_prefix_is_trusted_when_the_site_is_configured_under_a_path(tmp_path: Path) -> None:
    headers = {**FORWARDED, "X-Forwarded-Prefix": "/companion"}
    assert _root(tmp_path, headers, PROXY_PREFIX=1).startswith(
        "https://play.example:8443/companion/"
    )
