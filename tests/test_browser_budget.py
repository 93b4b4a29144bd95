"""What a phone pays, held by the tools the web uses, on the pages a table opens: the start page,
/new, the play page (host, seat, reader), the story of a life, the links page and both card
tables, in Japanese and in English, served by `companion serve`.

- Chromium in mobile emulation, its own network log over CDP (``tests/budget_site.py``): a
  first visit costs at most 400 KB, opening a page again or the next page after /new at most
  60 KB, a roll (its post and the page it is redirected to) at most 60 KB, the story of a life
  of 36 turning points of 16,000 characters at most 300 KB; an English page loads no Japanese
  text face.
- Lighthouse (npm, with Debian's Chromium; mobile, its slow-4G model) on each page:
  performance at least 90, accessibility and best practices 100, layout shift at most 0.1,
  total blocking time at most 200 ms.
- The Nu HTML Checker (npm ``vnu-jar``, with Java) finds no error on any page or on the live
  fragments the pages fetch.

One server and one site for the module; bench/bench_bytes.py prints the same figures.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import budget_site
import pytest
import requests
from playwright.sync_api import Browser
from server_client import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

KB = 1024
FIRST_VISIT = 400 * KB
AGAIN = 60 * KB
ROLL = 60 * KB
LONG_STORY = 300 * KB
# An English page may load the header's two small faces (the brand mark, the word 日本語),
# never a slice of Japanese text.
JAPANESE_TEXT = re.compile(r"/fonts/screen/(gothic|mincho)-")
PAGES = [(lang, name) for lang in budget_site.LANGUAGES for name in budget_site.PAGES]
IDS = [f"{lang}-{name}" for lang, name in PAGES]


@dataclass
class Served:
    server: Server
    site: budget_site.Site
    folder: Path

    def url(self, lang: str, name: str) -> str:
        return self.server.url + self.site.pages[lang][name]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = Path(tmp_path_factory.mktemp("budget"))
    site = budget_site.build(folder / "budget.sqlite3")
    server = Server(folder / "budget.sqlite3").start()
    try:
        yield Served(server, site, folder)
    finally:
        server.stop()


@pytest.mark.parametrize(("lang", "name"), PAGES, ids=IDS)
def test_a_first_visit_and_the_next_stay_within_budget(
    browser: Browser, served: Served, lang: str, name: str
) -> None:
    url = served.url(lang, name)
    first, detail = budget_site.first_visit(browser, url)
    assert first <= FIRST_VISIT, (first, list(detail.items())[:12])
    if lang == "en":
        japanese = [u for u in detail if JAPANESE_TEXT.search(u)]
        assert not japanese, japanese
    again = budget_site.second_visit(browser, url, url)
    assert again <= AGAIN, again


@pytest.mark.parametrize("lang", budget_site.LANGUAGES)
def test_the_start_page_after_new_and_a_roll_cost_little(
    browser: Browser, served: Served, lang: str
) -> None:
    after_new = budget_site.second_visit(
        browser, served.url(lang, "new"), served.url(lang, "start")
    )
    assert after_new <= AGAIN, after_new
    token = served.site.rolls[lang][0]
    _opened, rolled = budget_site.roll(browser, f"{served.server.url}/c/{token}/?lang={lang}")
    assert rolled <= ROLL, rolled


def test_the_story_of_a_long_life_is_within_budget(browser: Browser, served: Served) -> None:
    story, detail = budget_site.first_visit(browser, served.server.url + served.site.long_story)
    assert story <= LONG_STORY, (story, list(detail.items())[:12])


@pytest.mark.alone
@pytest.mark.parametrize(("lang", "name"), PAGES, ids=IDS)
def test_lighthouse_scores_every_page(served: Served, lang: str, name: str, tmp_path: Path) -> None:
    report = budget_site.lighthouse(served.url(lang, name), tmp_path)
    failed = report["failed"]
    assert report["accessibility"] == 100, failed["accessibility"]
    assert report["best-practices"] == 100, failed["best-practices"]
    assert report["cls"] <= 0.1, report
    assert report["tbt"] <= 200, report
    assert report["performance"] >= 90, report


def test_the_nu_checker_finds_no_error_on_any_page_or_fragment(served: Served) -> None:
    documents: dict[str, str] = {}
    for lang, name in PAGES:
        browser = requests.Session()
        url = served.url(lang, name)
        documents[f"{lang}-{name}"] = browser.get(url, timeout=60).text
        for fragment in _fragments(documents[f"{lang}-{name}"]):
            html = browser.get(served.server.url + fragment, timeout=60).text
            documents[f"{lang}-{name} {fragment.split('?')[0][-12:]}"] = _as_document(html, lang)
    documents["offline"] = requests.get(served.server.url + "/offline", timeout=60).text
    errors = budget_site.vnu(documents, served.folder)
    assert not errors, "\n".join(errors)


def _fragments(page: str) -> list[str]:
    """The live fragments a page fetches (its ``data-fragment-url``)."""
    return [
        found.replace("&amp;", "&") for found in re.findall(r'data-fragment-url="([^"]+)"', page)
    ]


def _as_document(fragment: str, lang: str) -> str:
    """A fragment inside the smallest valid document, as the page puts it in its own."""
    return (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8"><title>fragment</title>'
        f"</head><body><main>{fragment}</main></body></html>"
    )
