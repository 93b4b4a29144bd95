"""Which text of an EPUB a reader sets in which style: serif or sans-serif, bold, italic.

The faces an EPUB embeds are chosen from what it shows in each style, so the stylesheet's font
rules are read the way a reader reads them: tinycss2 parses ``font-family``, ``font-weight`` and
``font-style`` from ``static/css/epub.css``, cssselect2 matches the selectors against each
XHTML file (parsed by tinyhtml5, as WeasyPrint does), and the values cascade by specificity and
order over a browser's defaults (bold headings and ``strong``, italic ``em``, monospace ``code``)
and are inherited. Only the generic families matter here: ``epub.css`` names ``serif`` or
``sans-serif`` and ``epub.py`` puts the embedded faces in front of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

BOLD_TAGS = {"h1", "h2", "h3", "h4", "h5", "h6", "b", "strong", "th"}
ITALIC_TAGS = {"em", "i", "cite", "var", "dfn", "address"}
MONOSPACE_TAGS = {"code", "pre", "kbd", "samp", "tt"}
FONT_PROPERTIES = ("font-family", "font-weight", "font-style")


@dataclass(frozen=True)
class Style:
    """What decides the face of a character: its generic family, weight and slant."""

    generic: str = "serif"  # "serif", "sans-serif" or "monospace"
    bold: bool = False
    italic: bool = False


def font_rules(css: str) -> list[tuple[Any, dict[str, str]]]:
    """(compiled selector, its font declarations) for each rule of ``css`` that sets a font."""
    import cssselect2
    import tinycss2

    rules = []
    for rule in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True):
        if rule.type != "qualified-rule":
            continue
        declared = {
            item.lower_name: tinycss2.serialize(item.value).strip().lower()
            for item in tinycss2.parse_declaration_list(
                rule.content, skip_comments=True, skip_whitespace=True
            )
            if item.type == "declaration" and item.lower_name in FONT_PROPERTIES
        }
        if declared:
            for selector in cssselect2.compile_selector_list(rule.prelude):
                if selector.pseudo_element is None:
                    rules.append((selector, declared))
    return rules


def _apply(style: Style, declared: dict[str, str]) -> Style:
    family = declared.get("font-family")
    if family is not None:
        names = [name.strip() for name in family.split(",")]
        generics = [name for name in names if name in ("serif", "sans-serif", "monospace")]
        style = replace(style, generic=generics[0] if generics else style.generic)
    weight = declared.get("font-weight")
    if weight is not None:
        number = int(weight) if weight.isdigit() else 0
        style = replace(style, bold=weight in ("bold", "bolder") or number >= 600)
    slant = declared.get("font-style")
    if slant is not None:
        style = replace(style, italic=slant in ("italic", "oblique"))
    return style


def _own(tag: str, parent: Style) -> Style:
    """The browser's defaults for an element, over what it inherits."""
    style = parent
    if tag in BOLD_TAGS:
        style = replace(style, bold=True)
    if tag in ITALIC_TAGS:
        style = replace(style, italic=True)
    if tag in MONOSPACE_TAGS:
        style = replace(style, generic="monospace")
    return style


def styled_text(css: str, documents: Iterable[str], language: str) -> dict[Style, str]:
    """The text of ``documents`` (HTML) grouped by the style ``css`` gives it."""
    import cssselect2
    import tinyhtml5

    matcher = cssselect2.Matcher()
    for order, (selector, declared) in enumerate(font_rules(css)):
        matcher.add_selector(selector, (order, declared))
    found: dict[Style, list[str]] = {}
    for document in documents:
        root = tinyhtml5.parse(f'<html lang="{language}"><body>{document}</body></html>')
        wrapper = cssselect2.ElementWrapper.from_html_root(root)
        for style, text in _walk(matcher, wrapper, Style()):
            found.setdefault(style, []).append(text)
    return {style: "".join(texts) for style, texts in found.items()}


def _walk(matcher: Any, element: Any, inherited: Style) -> Iterator[tuple[Style, str]]:
    style = _own(element.local_name, inherited)
    for _specificity, _order, _pseudo, (_rule, declared) in matcher.match(element):
        style = _apply(style, declared)
    if element.local_name in ("head", "script", "style"):
        return
    node = element.etree_element
    if node.text:
        yield style, node.text
    for child in element.iter_children():
        yield from _walk(matcher, child, style)
        if child.etree_element.tail:
            yield style, child.etree_element.tail
