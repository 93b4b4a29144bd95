"""The sealed session cookie: unreadable without the key, and older cookies still open."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.sessions import SecureCookieSessionInterface
from itsdangerous import BadData
from play_helpers import create

from companion.store.db import connect
from companion.web.shell.sealed_session import SealedSessionInterface, Sealer


def _cookie(client) -> str:  # type: ignore[no-untyped-def]
    cookie = client.get_cookie("session")
    assert cookie is not None
    return cookie.value


def _host_link(app: Flask) -> str:
    """A new chronicle's host link, made by another browser."""
    return f"/c/{create(app.test_client())}/"


def test_a_sealed_value_opens_only_with_its_key() -> None:
    sealed = Sealer("one key").dumps({"opened": ["/c/secret/"]})
    assert b"secret" not in sealed
    assert Sealer("one key").loads(sealed) == {"opened": ["/c/secret/"]}
    with pytest.raises(Exception):  # noqa: B017 - the cipher's own error
        Sealer("another key").loads(sealed)


def test_the_app_seals_its_session_and_lists_the_opened_link(app: Flask) -> None:
    assert isinstance(app.session_interface, SealedSessionInterface)
    link = _host_link(app)
    client = app.test_client()
    assert client.get(link).status_code == 200
    cookie = _cookie(client)
    assert link.split("/")[2] not in cookie
    with pytest.raises(BadData):  # not readable as a plain signed cookie
        SecureCookieSessionInterface().get_signing_serializer(app).loads(cookie)  # type: ignore[union-attr]
    assert f'href="{link}"' in client.get("/").text


def test_a_cookie_from_before_sealing_keeps_its_list_and_is_sealed_again(app: Flask) -> None:
    link = _host_link(app)
    plain = SecureCookieSessionInterface().get_signing_serializer(app)
    assert plain is not None
    old = plain.dumps({"opened": [{"url": link, "title": "Old title", "role": "host"}]})
    client = app.test_client()
    client.set_cookie("session", old)
    start = client.get("/")
    assert f'href="{link}"' in start.text
    assert _cookie(client) != old
    assert link.split("/")[2] not in _cookie(client)


def test_a_tampered_cookie_is_a_fresh_session(app: Flask) -> None:
    link = _host_link(app)
    client = app.test_client()
    client.get(link)
    cookie = _cookie(client)
    client.set_cookie("session", cookie[:10] + ("A" if cookie[10] != "A" else "B") + cookie[11:])
    page = client.get("/")
    assert page.status_code == 200
    assert link not in page.text


def test_a_revoked_link_drops_out_of_the_list(app: Flask) -> None:
    link = _host_link(app)
    client = app.test_client()
    client.get(link)
    db = connect(app.config["DATABASE"])
    db.execute("UPDATE capabilities SET revoked = 'now'")
    db.conn.commit()
    assert link not in client.get("/").text
