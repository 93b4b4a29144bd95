"""User text: Markdown rendered by python-markdown, then cleaned by nh3 with an allowlist."""

from __future__ import annotations

import html as html_lib
from functools import lru_cache

import markdown
import nh3
from markupsafe import Markup

ALLOWED_TAGS = {
    "p",
    "br",
    "em",
    "strong",
    "del",
    "s",
    "blockquote",
    "ul",
    "ol",
    "li",
    "code",
    "pre",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "a",
    "sup",
    "sub",
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
URL_SCHEMES = {"http", "https", "mailto"}


@lru_cache(maxsize=8192)
def render_markdown(text: str) -> Markup:
    """Markdown to safe HTML; headings are demoted so a text never outranks the page."""
    html = markdown.markdown(text or "", extensions=["sane_lists"], output_format="html")
    html = html.replace("<h1>", "<h3>").replace("</h1>", "</h3>")
    html = html.replace("<h2>", "<h4>").replace("</h2>", "</h4>")
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )
    return Markup(clean)  # noqa: S704 - cleaned by nh3 just above


def plain(text: str) -> str:
    """The text with Markdown markup removed, for titles and short previews."""
    html = markdown.markdown(text or "")
    return html_lib.unescape(nh3.clean(html, tags=set())).strip()
