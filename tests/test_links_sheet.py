"""The links sheet: every seat's link and the reader's made in one step, kept while the host stays,
printable one card per seat, and each link revoked alone. Every post is answered with a redirect
to the sheet, which shows the links just made once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from play_helpers import create
from table_helpers import sheet as posted

CSS = (Path(__file__).resolve().parent.parent / "static" / "css" / "app.css").read_text("utf-8")


def cards(html: str) -> list[tuple[str, str]]:
    """(heading, link) of each card on the sheet."""
    found = re.findall(
        r'<article class="link-card fresh-link">\s*<h3>([^<]*)</h3>.*?<code>([^<]*)</code>',
        html,
        re.S,
    )
    return [(name.strip(), url) for name, url in found]


def token_of(url: str) -> str:
    match = re.search(r"/c/([A-Za-z0-9_-]+)/", url)
    assert match, url
    return match.group(1)


def test_links_for_everyone_in_one_step(client: FlaskClient, app: Flask) -> None:
    host = create(client)
    html = posted(client, f"/c/{host}/links", {"issue": "everyone"})
    sheet = cards(html)
    assert [name for name, _ in sheet] == ["Ali", "Brianna", "Cardon", "Read-only"]
    assert html.count("<svg") >= 4  # one QR code per card
    assert all(url.startswith("http://localhost/c/") for _, url in sheet)
    for name, url in sheet:
        opened = client.get(f"/c/{token_of(url)}/").get_data(as_text=True)
        if name != "Read-only":
            assert name in opened
    # Each card's link is live and listed with its own revoke button.
    assert len(re.findall(r'name="revoke"', html)) >= 4


def test_revoking_one_keeps_the_rest_of_the_sheet(client: FlaskClient, app: Flask) -> None:
    host = create(client)
    assert len(cards(client.get(f"/c/{host}/links").get_data(as_text=True))) == 1  # setup's link
    html = posted(client, f"/c/{host}/links", {"issue": "everyone"})
    sheet = cards(html)
    keep = re.findall(r'name="keep" value="([^"]+)"', html)
    assert {token_of(url) for _, url in sheet} <= set(keep)
    brianna = token_of(sheet[1][1])
    from companion.store.capabilities import hash_token

    after = posted(
        client,
        f"/c/{host}/links",
        {"revoke": hash_token(brianna), "keep": list(dict.fromkeys(keep))},
    )
    remaining = cards(after)
    assert [name for name, _ in remaining] == ["Ali", "Cardon", "Read-only"]
    assert client.get(f"/c/{brianna}/").status_code == 404
    for _, url in remaining:
        assert client.get(f"/c/{token_of(url)}/").status_code == 200
    # Leaving the page and coming back: the addresses are not shown again, the links still work.
    again = client.get(f"/c/{host}/links").get_data(as_text=True)
    assert cards(again) == []
    assert again.count('name="revoke"') >= 3


def test_kept_links_must_belong_to_this_chronicle(client: FlaskClient) -> None:
    mine = create(client)
    other = create(client)
    theirs = cards(posted(client, f"/c/{other}/links", {"issue": "everyone"}))
    stolen = [token_of(url) for _, url in theirs] + [other, "x" * 500]
    html = posted(client, f"/c/{mine}/links", {"issue": "reader", "keep": stolen})
    shown = cards(html)
    assert len(shown) == 1 and shown[0][0] == "New read-only link"
    assert other not in html


def test_the_sheet_prints_one_card_per_seat() -> None:
    print_rules = CSS.split("@media print", 1)[1]
    assert ".no-print" in print_rules and "display: none" in print_rules
    assert re.search(r"\.link-card \{[^}]*break-inside: avoid", print_rules)


def table_token(url: str) -> str:
    match = re.search(r"/t/([A-Za-z0-9_-]+)/", url)
    assert match, url
    return match.group(1)


def new_devices_table(client: FlaskClient) -> str:
    from table_helpers import new_table

    seats = {"seat-0-kind": "person", "seat-0-name": "Ann", "seat-1-kind": "heuristic"}
    seats |= {"seat-2-kind": "person", "seat-2-name": "Cy"}
    return new_table(client, "traitors-flame", mode="devices", **seats)


def test_a_card_table_gets_the_same_sheet_without_links_for_bots(client: FlaskClient) -> None:
    host = new_devices_table(client)
    html = posted(client, f"/t/{host}/links", {"issue": "everyone"})
    sheet = cards(html)
    assert [name for name, _ in sheet] == ["Ann", "Cy", "Read-only"]
    assert html.count("<svg") >= 3 and "data-print" in html
    assert all(url.startswith("http://localhost/t/") for _, url in sheet)
    assert 'value="seat-1"' not in html  # the bot's seat gets no button
    for _, url in sheet:
        assert client.get(f"/t/{table_token(url)}/").status_code == 200
    # A bot's seat cannot be asked for: nothing is made, and the page says why.
    asked = posted(client, f"/t/{host}/links", {"issue": "seat-1"})
    assert not cards(asked) and "Choose whose link to make" in asked


def test_revoking_one_table_link_keeps_the_others(client: FlaskClient) -> None:
    from companion.store.capabilities import hash_token

    host = new_devices_table(client)
    html = posted(client, f"/t/{host}/links", {"issue": "everyone"})
    ann, cy, spectator = (table_token(url) for _, url in cards(html))
    keep = list(dict.fromkeys(re.findall(r'name="keep" value="([^"]+)"', html)))
    after = posted(client, f"/t/{host}/links", {"revoke": hash_token(cy), "keep": keep})
    assert "no longer opens this table" in after
    assert [name for name, _ in cards(after)] == ["Ann", "Read-only"]
    assert client.get(f"/t/{cy}/").status_code == 404
    assert client.get(f"/t/{ann}/").status_code == 200
    assert client.get(f"/t/{spectator}/").status_code == 200
    # Making everyone's links again leaves the earlier ones working.
    client.post(f"/t/{host}/links", data={"issue": "everyone"})
    assert client.get(f"/t/{ann}/").status_code == 200
    assert client.get(f"/t/{ann}/links").status_code == 404  # only the host manages links


def links_in_use(app: Flask, host: str) -> int:
    from companion.store import capabilities
    from companion.store.db import connect

    db = connect(app.config["DATABASE"])
    cap = capabilities.resolve(db, host)
    assert cap is not None
    return sum(c.role != "host" for c in capabilities.active(db, cap.stream_id))


@pytest.mark.parametrize(
    "asked",
    ["seat-9", "seat-01x", "seat-" + "1" * 5000, "host", "", "x" * 9000, "seat-١", "seat-２"],
)
@pytest.mark.parametrize("kind", ["c", "t"])
def test_a_link_nobody_can_hold_is_refused_and_nothing_is_made(
    client: FlaskClient, app: Flask, kind: str, asked: str
) -> None:
    host = create(client) if kind == "c" else new_devices_table(client)
    before = links_in_use(app, host)
    answer = posted(client, f"/{kind}/{host}/links", {"issue": asked})
    assert "Choose whose link to make" in answer
    assert links_in_use(app, host) == before


@pytest.mark.parametrize("kind", ["c", "t"])
def test_the_links_in_use_are_capped_with_a_clear_refusal(
    client: FlaskClient, app: Flask, kind: str
) -> None:
    from companion.store import capabilities
    from companion.store.db import connect
    from companion.web.shell.links_sheet import MAX_LINKS

    host = create(client) if kind == "c" else new_devices_table(client)
    db = connect(app.config["DATABASE"])
    stream = capabilities.resolve(db, host).stream_id  # type: ignore[union-attr]
    for _ in range(MAX_LINKS - 1 - links_in_use(app, host)):
        capabilities.issue(db, stream, "reader")
    assert "At most 64 links" in posted(client, f"/{kind}/{host}/links", {"issue": "everyone"})
    assert len(cards(posted(client, f"/{kind}/{host}/links", {"issue": "reader"}))) == 1
    assert links_in_use(app, host) == MAX_LINKS
    refused = client.post(
        f"/{kind}/{host}/links", data={"issue": "reader"}, headers={"Accept": "application/json"}
    )
    assert refused.status_code == 409
    assert refused.get_json()["code"] == "too-many-links"
    assert "At most 64 links can be in use at once" in refused.get_json()["error"]
    page = posted(client, f"/{kind}/{host}/links", {"issue": "reader"})
    assert "revoke the links nobody needs" in page
    assert links_in_use(app, host) == MAX_LINKS


def test_links_issued_at_once_on_separate_connections_never_pass_the_cap(app: Flask) -> None:
    import threading

    from companion.store import capabilities
    from companion.store.db import connect
    from companion.store.events import create_stream

    first = connect(app.config["DATABASE"])
    stream = create_stream(first, "legacy", [{"type": "start"}])
    racers = 12
    start = threading.Barrier(racers)
    made: list[int] = []

    def race() -> None:
        db = connect(app.config["DATABASE"])
        start.wait(30)
        tokens = capabilities.issue_within(db, stream, [("seat", 0)] * 3 + [("reader", None)], 20)
        made.append(len(tokens or []))
        db.conn.close()

    threads = [threading.Thread(target=race) for _ in range(racers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(made) == [0] * 7 + [4] * 5  # five sets of four fit under 20, no more
    assert len(capabilities.active(first, stream)) == 20
