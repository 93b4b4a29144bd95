"""Bytes a phone receives per page and per action, beside a plain hello page's, in one run.

The site (``tests/budget_site.py``: the start page, /new, the play page as host, seat and
reader, the story of the sample life, the links page and both card tables, in Japanese and in
English, and the story of a life of 36 turning points of about 16,000 characters each) is
served by `companion serve`; bench/hello.py serves its hello page the same way. Debian's
Chromium in mobile emulation opens each page: as a first visit (nothing cached), again (the
same page opened a second time), as the next page after the start page (after /new for the
start page itself: the characters and files it has not met yet), and presses the roll on the
play page. The bytes are what Chromium's network log (CDP) says it received:
headers and bodies as sent, the service worker's own fetches included. The budget test
(``tests/test_browser_budget.py``) holds the same figures to their limits.

    .venv/bin/python bench/bench_bytes.py [--lighthouse]

``--lighthouse`` also prints Lighthouse's scores for each page (about 20 s a page).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import budget_site  # noqa: E402
import hello  # noqa: E402
from bench_pages import free_port, start_companion, stop  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from companion.export.vertical import LAUNCH_ARGS  # noqa: E402


def kb(n: int) -> str:
    return f"{n / 1024:8.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lighthouse", action="store_true", help="Lighthouse scores too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        site = budget_site.build(folder / "bench.sqlite3")
        port, hello_port = free_port(), free_port()
        server = start_companion(folder / "bench.sqlite3", port)
        baseline = hello.start(hello_port)
        base = f"http://127.0.0.1:{port}"
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=LAUNCH_ARGS)
                try:
                    hello_bytes = budget_site.first_visit(
                        browser, f"http://127.0.0.1:{hello_port}/hello"
                    )[0]
                    print(f"hello page, first visit: {kb(hello_bytes)} KB")
                    story, detail = budget_site.first_visit(browser, base + site.long_story)
                    print(f"story 36x16k (en), first visit: {kb(story)} KB")
                    print(
                        f"{'page':<18} {'lang':<4} {'first KB':>8} {'again KB':>8} {'next KB':>8}"
                    )
                    for lang in budget_site.LANGUAGES:
                        for name in budget_site.PAGES:
                            url = base + site.pages[lang][name]
                            first = budget_site.first_visit(browser, url)[0]
                            again = budget_site.second_visit(browser, url, url)
                            before = site.pages[lang]["new" if name == "start" else "start"]
                            after = budget_site.second_visit(browser, base + before, url)
                            print(f"{name:<18} {lang:<4} {kb(first)} {kb(again)} {kb(after)}")
                        opened, rolled = budget_site.roll(
                            browser, f"{base}/c/{site.rolls[lang][0]}/?lang={lang}"
                        )
                        print(f"{'roll (post+page)':<18} {lang:<4} {'':>8} {kb(rolled)}")
                    print(f"(hello page: {kb(hello_bytes)} KB)")
                finally:
                    browser.close()
            if args.lighthouse:
                lighthouse(base, site, folder)
        finally:
            stop(server)
            stop(baseline)


def lighthouse(base: str, site: budget_site.Site, folder: Path) -> None:
    """Lighthouse's scores per page, as its report gives them."""
    print(f"{'page':<18} {'lang':<4} perf a11y best   CLS  TBT ms   LCP s      KB")
    for lang in budget_site.LANGUAGES:
        for name in budget_site.PAGES:
            r = budget_site.lighthouse(base + site.pages[lang][name], folder)
            print(
                f"{name:<18} {lang:<4} {r['performance']:4d} {r['accessibility']:4d} "
                f"{r['best-practices']:4d} {r['cls']:5.2f} {r['tbt']:7.0f} "
                f"{r['lcp'] / 1000:7.1f} {kb(r['bytes'])}"
            )
            failing = {k: v for k, v in r["failed"].items() if v and k != "performance"}
            if failing:
                print(f"{'':<24}failed: {failing}")


if __name__ == "__main__":
    main()
