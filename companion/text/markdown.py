"""User text: CommonMark rendered by cmark-gfm, nesting capped, then cleaned by nh3 with an allowlist.

cmark is written in C and takes time linear in the text, whatever the text; raw HTML is omitted
by cmark's safe mode, so its output has no ``<`` but its own tags. Japanese ruby and emphasis
dots (``companion.text.ruby``) are then made from the notation in its text, outside code, and
nh3 cleans the whole, ruby included. Deeply nested quotes, lists
and emphasis are flattened below a fixed depth, which keeps the sanitizer and the PDF layout
(both slow or failing on thousands of levels) bounded.
"""

from __future__ import annotations

import hashlib
import html as html_lib
import re

import cmarkgfm
import nh3
from cmarkgfm.cmark import Options
from markupsafe import Markup

from companion.text import ruby
from companion.text.bytecache import ByteLRU

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
    "ruby",
    "rt",
    "rp",
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
ALLOWED_CLASSES = {"em": {"bouten"}}  # emphasis dots (《《傍点》》), the only class a text makes
URL_SCHEMES = {"http", "https", "mailto"}
MAX_NESTING = 8  # quotes and lists inside one another; deeper levels are flattened
MAX_INLINE_NESTING = 8  # emphasis, strong and strike-through inside one another
CONTAINERS = {"blockquote", "ul", "ol"}
INLINE = {"em", "strong", "del", "a", "code"}
_TAG = re.compile(r"<(/?)([a-z0-9]+)[^>]*?(/?)>")
_MARKER = r"[ \t]*(?:>|[-+*](?=[ \t])|[0-9]{1,9}[.)](?=[ \t]))"
_MARKER_CHAIN = re.compile(rf"^(?:{_MARKER}){{{MAX_NESTING + 1},}}", re.MULTILINE)
_ONE_MARKER = re.compile(_MARKER)
_CONTAINER_TAG = re.compile(r"<(/?)(?:blockquote|ul|ol)\b")
_INLINE_TAG = re.compile(r"<(/?)(?:em|strong|del|a|code)\b")


def _cmark(text: str) -> str:
    # cmark wants valid UTF-8: a lone surrogate (possible from JSON) becomes U+FFFD.
    text = limit_markers(text.encode("utf-8", "replace").decode("utf-8"))
    return str(
        cmarkgfm.markdown_to_html_with_extensions(
            text, options=Options.CMARK_OPT_DEFAULT, extensions=["strikethrough"]
        )
    )


def limit_markers(text: str) -> str:
    """The text with each line's run of quote and list markers cut to MAX_NESTING, so a line
    of ten thousand ``>`` costs what eight do."""
    return _MARKER_CHAIN.sub(lambda m: "".join(_ONE_MARKER.findall(m.group(0))[:MAX_NESTING]), text)


_TAG_SPLIT = re.compile(r"(<[^>]*>)")


def with_ruby(html: str) -> str:
    """cmark's HTML with the ruby notation of its text (outside code) made into ruby."""
    if "《" not in html:
        return html
    out: list[str] = []
    in_code = 0
    for index, token in enumerate(_TAG_SPLIT.split(html)):
        if index % 2:
            if token.startswith("<code"):
                in_code += 1
            elif token.startswith("</code"):
                in_code -= 1
            out.append(token)
        elif in_code or "《" not in token:
            out.append(token)
        else:
            out.append(ruby.to_html(html_lib.unescape(token), _escape_text))
    return "".join(out)


def _escape_text(text: str) -> str:
    return html_lib.escape(text, quote=False)


def _deeper_than(html: str, pattern: re.Pattern[str], limit: int) -> bool:
    depth = 0
    for closing in pattern.findall(html):
        depth += -1 if closing else 1
        if depth > limit:
            return True
    return False


def flatten(html: str) -> str:
    """cmark's HTML with containers nested past MAX_NESTING (and inline tags past
    MAX_INLINE_NESTING) unwrapped; their content stays, in order."""
    if not (
        _deeper_than(html, _CONTAINER_TAG, MAX_NESTING)
        or _deeper_than(html, _INLINE_TAG, MAX_INLINE_NESTING)
    ):
        return html
    stack: list[tuple[str, bool]] = []
    depth = {"block": 0, "inline": 0}

    def tag(match: re.Match[str]) -> str:
        closing, name, void = match.group(1), match.group(2), match.group(3)
        if void:
            return match.group(0)
        if closing:
            if not stack:
                return match.group(0)
            _, kept = stack.pop()
            _count(name, depth, -1 if kept else 0)
            return match.group(0) if kept else ("<br />" if name == "li" else "")
        kept = _allowed(name, depth, stack)
        stack.append((name, kept))
        _count(name, depth, 1 if kept else 0)
        return match.group(0) if kept else ""

    return _TAG.sub(tag, html)


def _allowed(name: str, depth: dict[str, int], stack: list[tuple[str, bool]]) -> bool:
    if name in CONTAINERS:
        return depth["block"] < MAX_NESTING
    if name == "li":
        return not stack or stack[-1][1]  # an item of a flattened list is flattened too
    if name in INLINE:
        return depth["inline"] < MAX_INLINE_NESTING
    return True


def _count(name: str, depth: dict[str, int], step: int) -> None:
    if name in CONTAINERS:
        depth["block"] += step
    elif name in INLINE:
        depth["inline"] += step


# Keyed by a digest, so the longest text allowed costs 16 bytes of key; the rendered HTML is
# what the bound counts. With every other cache this stays under 64 MiB a process (README).
_cache = ByteLRU(8 * 1024 * 1024)


def render_markdown(text: str) -> Markup:
    """Markdown to safe HTML; headings are demoted so a text never outranks the page."""
    text = text or ""
    key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
    cached = _cache.get(key)
    if isinstance(cached, Markup):
        return cached
    html = _render(text)
    _cache.put(key, html)
    return html


# Markdown's cost grows with the markup in a text, not its length: a text made mostly of
# markup characters (thousands of brackets, list markers or emphasis runs) is no prose a
# player writes, so past this share it is shown as written, escaped, in plain paragraphs.
MARKUP_CHARACTERS = frozenset("*_~[]()<>!`|&#\\-+=:.")
MARKUP_SHARE = 0.3
PLAIN_BELOW = 1000  # characters: shorter texts cost little whatever they hold


def is_mostly_markup(text: str) -> bool:
    """Whether ``text`` is long and more than MARKUP_SHARE markup characters."""
    if len(text) < PLAIN_BELOW:
        return False
    marks = sum(text.count(c) for c in MARKUP_CHARACTERS)
    return marks > MARKUP_SHARE * len(text)


def as_written(text: str) -> str:
    """The text escaped, in paragraphs split at blank lines, lines kept, its ruby made: safe by
    construction (``ruby.to_html`` escapes every character it does not write itself)."""
    text = text.encode("utf-8", "replace").decode("utf-8")
    blocks = [b for b in re.split(r"\n[ \t]*\n", text.replace("\r\n", "\n")) if b.strip()]
    return "".join(
        "<p>"
        + "<br />\n".join(ruby.to_html(line) for line in block.strip("\n").split("\n"))
        + "</p>\n"
        for block in blocks
    )


def _render(text: str) -> Markup:
    if is_mostly_markup(text):
        return Markup(as_written(text))  # noqa: S704 - every character escaped just above
    html = with_ruby(flatten(_cmark(text)))
    html = html.replace("<h1>", "<h3>").replace("</h1>", "</h3>")
    html = html.replace("<h2>", "<h4>").replace("</h2>", "</h4>")
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        allowed_classes=ALLOWED_CLASSES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )
    return Markup(clean)  # noqa: S704 - cleaned by nh3 just above


def plain(text: str) -> str:
    """The text with Markdown markup removed, for titles and short previews."""
    if is_mostly_markup(text or ""):
        return ruby.to_plain(text.strip())
    html = flatten(_cmark(text or ""))
    return ruby.to_plain(html_lib.unescape(nh3.clean(html, tags=set())).strip())
