"""An app served on a loopback port together with its test client, for browser checks of many pages."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from conftest import make_app
from flask import Flask
from flask.testing import FlaskClient
from playwright.sync_api import Page
from werkzeug.serving import make_server

# Keeps every live feed a page opens in window.__liveSources, so that HOLD can close them: an
# init script (``context.add_init_script(TRACK_FEEDS)``), run before any page's own script.
TRACK_FEEDS = """(() => { const Real = window.EventSource; if (!Real) return;
  const sources = window.__liveSources = [];
  window.EventSource = class extends Real {
    constructor(...args) { super(...args); sources.push(this); } }; })()"""

# Holds a page's live updates: its feeds are closed and no new one opens, and its version polls
# and the fragments a version asks for never answer. What it shows stays as it was when the
# person pressed, as on a phone whose last update has not come back yet. Needs TRACK_FEEDS.
HOLD = """() => { if (!window.__liveSources) throw new Error('TRACK_FEEDS was not added');
  window.__liveSources.forEach((source) => source.close());
  window.EventSource = class { constructor() { this.readyState = 0; }
    addEventListener() {} close() {} };
  const real = window.fetch;
  const held = (url) => String(url).endsWith('/version') || String(url).includes('fragment=1');
  window.fetch = (url, options) => held(url) ? new Promise(() => {}) : real(url, options); }"""


@dataclass
class Served:
    app: Flask
    client: FlaskClient  # sets up chronicles and tables quickly, without the browser
    base: str


@contextmanager
def serve(tmp: Path) -> Iterator[Served]:
    app = make_app(tmp)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Served(app, app.test_client(), f"http://127.0.0.1:{server.server_port}")
    finally:
        server.shutdown()
        thread.join(timeout=5)


def fonts_for(page: Page, selector: str) -> list[dict[str, object]]:
    """The fonts Chromium actually used to draw the text of the first node matching ``selector``."""
    page.evaluate("document.fonts.ready.then(() => true)")
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    assert node, f"no node matches {selector!r}"
    fonts: list[dict[str, object]] = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})[
        "fonts"
    ]
    cdp.detach()
    return fonts
