"""A long life's story is read a page at a time: every page a phone can open at once, every
turning point on exactly one page, every link into the story landing on the page that holds it."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import make_app
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import given
from hypothesis import strategies as st
from live_client import Feed
from play_helpers import chronicle, create, play_to_the_end
from server_client import Browser, Server, request, send

from companion.legacy import State
from companion.text.story import PAGE_BYTES, page_at, split_pages, story_pages

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import lifegen  # noqa: E402

# What one page of the long life below may weigh as HTML: its text budget, the markup of the
# turning points on it, the contents of the whole life and the page around them.
PAGE_HTML = 2 * PAGE_BYTES


@given(
    st.lists(st.integers(min_value=0, max_value=5_000), max_size=60),
    st.integers(min_value=1, max_value=12_000),
)
def test_pages_hold_every_item_once_in_order_each_as_full_as_the_budget_allows(
    weights: list[int], budget: int
) -> None:
    runs = split_pages(weights, budget)
    assert [i for run in runs for i in run] == list(range(len(weights)))
    assert all(len(run) > 0 for run in runs) or weights == []
    for run in runs:  # within the budget, or one item too heavy for any page
        assert sum(weights[i] for i in run) <= budget or len(run) == 1
    for run, after in zip(runs, runs[1:], strict=False):  # nothing that fitted went on
        assert sum(weights[i] for i in run) + weights[after.start] > budget


@pytest.fixture(scope="module")
def long_life(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Flask, str]]:
    folder = tmp_path_factory.mktemp("long-story")
    database = folder / "long.sqlite3"
    token = lifegen.full_life(database, chars=16000, seed=2)
    yield make_app(folder, DATABASE=str(database)), token


@dataclass
class Life:
    """The long life opened by a browser of its host's link."""

    app: Flask
    token: str
    client: FlaskClient

    @property
    def state(self) -> State:
        return chronicle(self.app, self.token).state


@pytest.fixture
def life(long_life: tuple[Flask, str]) -> Life:
    app, token = long_life
    return Life(app, token, app.test_client())


def _pages_in_order(client: FlaskClient, token: str) -> list[tuple[str, str]]:
    """Each page of the story as a reader turns them, from the first: (address, HTML)."""
    pages, address = [], f"/c/{token}/story?at=0"
    while address and len(pages) < 100:
        response = client.get(address)
        assert response.status_code == 200, address
        html = response.get_data(as_text=True)
        pages.append((address, html))
        later = re.search(r'<a rel="next" href="([^"]+)"', html)
        address = later.group(1).replace("&amp;", "&") if later else ""
    return pages


def test_a_long_life_is_read_page_by_page_and_every_turning_point_is_on_one(
    life: Life,
) -> None:
    client, token, state = life.client, life.token, life.state
    pages = _pages_in_order(client, token)
    assert len(pages) > 1
    shown = [seq for _a, html in pages for seq in re.findall(r'id="tp-(\d+)"', html)]
    assert shown == [str(tp.seq) for tp in state.turning_points]  # each once, in order
    for number, (address, html) in enumerate(pages, 1):
        assert len(html.encode()) <= PAGE_HTML, (address, len(html.encode()))
        assert f"page {number} of {len(pages)}" in html
        assert ('rel="prev"' in html) == (number > 1)
    assert 'id="epilogue"' not in pages[0][1] or len(pages) == 1
    # With no page named, the story opens where the life is now: its last page.
    latest = client.get(f"/c/{token}/story").get_data(as_text=True)
    assert f'id="tp-{state.turning_points[-1].seq}"' in latest
    assert f"page {len(pages)} of {len(pages)}" in latest


def test_every_round_in_the_contents_leads_to_the_page_that_holds_it(
    life: Life,
) -> None:
    client, token = life.client, life.token
    html = client.get(f"/c/{token}/story?at=0").get_data(as_text=True)
    toc = re.search(r'<nav class="story-toc"[^>]*>(.*?)</nav>', html, re.S)
    assert toc is not None
    links = [h.replace("&amp;", "&") for h in re.findall(r'href="([^"]+)"', toc.group(1))]
    rounds = [link for link in links if "-round-" in link]
    assert len(rounds) == 12  # four stages of three rounds, each a tap away
    for link in links:
        address, _, anchor = link.partition("#")
        target = client.get(address).get_data(as_text=True) if address else html
        assert f'id="{anchor}"' in target, link


def test_a_turning_point_named_in_the_address_is_on_the_page_shown(
    life: Life,
) -> None:
    client, token, state = life.client, life.token, life.state
    pages = story_pages(state)
    for tp in state.turning_points[::5]:
        html = client.get(f"/c/{token}/story?at={tp.seq}").get_data(as_text=True)
        assert f'id="tp-{tp.seq}"' in html
        assert page_at(pages, tp.seq).number == next(p.number for p in pages if tp.seq in p.seqs)
        # the live part of that page is the same page
        part = client.get(f"/c/{token}/story?at={tp.seq}&fragment=1").get_data(as_text=True)
        assert f'id="tp-{tp.seq}"' in part and "<html" not in part
        assert f"at={tp.seq}" in re.search(r'data-fragment-url="([^"]+)"', html).group(1)  # type: ignore[union-attr]
        assert f"at={tp.seq}" in re.search(r'data-events-url="([^"]+)"', html).group(1)  # type: ignore[union-attr]


@pytest.mark.parametrize("at", ["x", "-1", "1.5", "9" * 19, ""])
def test_an_address_naming_no_turning_point_is_a_page_that_does_not_exist(
    life: Life, at: str
) -> None:
    client, token = life.client, life.token
    assert client.get(f"/c/{token}/story?at={at}").status_code == 404
    assert client.get(f"/c/{token}/story?at={at}&fragment=1").status_code == 404
    # nor is there a feed of it
    assert client.get(f"/c/{token}/events?part=story&at={at}").status_code == 404


def test_a_correction_goes_back_to_the_page_that_holds_the_text(
    life: Life,
) -> None:
    client, token, state = life.client, life.token, life.state
    first = state.turning_points[0]
    assert first.answer is not None
    assert page_at(story_pages(state), None).number > 1  # not the page the story opens at
    form = client.get(f"/c/{token}/text/{first.answer.seq}/answer").get_data(as_text=True)
    back = re.search(r'<a href="([^"]+)">← ', form)
    assert back is not None and f"at={first.seq}#tp-{first.seq}" in back.group(1)
    version = chronicle(life.app, token).version
    answer = client.post(
        f"/c/{token}/revise",
        data={
            "target_seq": str(first.answer.seq),
            "field": "answer",
            "anchor": f"tp-{first.seq}",
            "version": str(version),
            "text": "Corrected in the first chapter.",
        },
    )
    assert answer.status_code == 302
    location = answer.headers["Location"]
    assert location.endswith(f"at={first.seq}#tp-{first.seq}"), location
    html = client.get(location.split("#")[0]).get_data(as_text=True)
    assert "Corrected in the first chapter." in html and f'id="tp-{first.seq}"' in html


def test_an_everyday_life_is_one_page(client: FlaskClient, app: Flask) -> None:
    token = create(client)
    play_to_the_end(client, app, token)
    html = client.get(f"/c/{token}/story").get_data(as_text=True)
    state = chronicle(app, token).state
    assert len(story_pages(state)) == 1
    assert 'class="story-pages"' not in html and "page 1 of" not in html
    assert all(f'id="tp-{tp.seq}"' in html for tp in state.turning_points)
    ended = client.get(f"/c/{token}/end").get_data(as_text=True)
    assert f'href="/c/{token}/story?at=0"' in ended  # a finished life is read from its start


def test_a_feed_pushes_the_page_the_reader_is_on(tmp_path: Path) -> None:
    database = tmp_path / "feed.sqlite3"
    token = lifegen.full_life(database, chars=16000, seed=2)
    server = Server(database).start()
    try:
        status, body = request(server.port, "GET", f"/api/v1/chronicles/{token}/story")
        assert status == 200, body
        points = [tp for chapter in body["chapters"] for tp in chapter["turning_points"]]
        first, last = points[0]["seq"], points[-1]["seq"]
        browser = Browser(server.url)
        fragment = f"/c/{token}/story?at={first}&fragment=1"
        feed = Feed(server.port, f"/c/{token}/events?part=story&at={first}")
        try:
            assert feed.next() is not None  # the version the page was made at
            answer = points[0]["answer"]
            command = {
                "type": "revise-text",
                "target_seq": answer["seq"],
                "field": "answer",
                "text": "A new opening, pushed to the first page.",
            }
            status, body = send(server.port, token, body["version"], command)
            assert status == 200, body
            pushed = feed.next()
            assert pushed is not None and pushed.name == "part"
            said = json.loads(pushed.data)
            shown = "".join(p for p in said["parts"] if isinstance(p, str))
            assert "A new opening, pushed to the first page." in shown
            assert f'id="tp-{first}"' in shown and f'id="tp-{last}"' not in shown
            fetched = browser.get(fragment).text
            assert f'id="tp-{first}"' in fetched and f'id="tp-{last}"' not in fetched
            # In Japanese, as a reader who chose it: the same page, its pages counted in Japanese.
            browser.post_form("/language", {"lang": "ja", "next": "/"})
            japanese = browser.get(f"/c/{token}/story?at={first}").text
            assert '<html lang="ja">' in japanese and f'id="tp-{first}"' in japanese
            assert re.search(r"全\d+ページ中1ページ目", japanese)
            assert "次のページ" in japanese and "前のページ" not in japanese
        finally:
            feed.close()
    finally:
        server.stop()
