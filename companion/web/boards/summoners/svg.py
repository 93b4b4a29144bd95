"""Card faces as SVG strings: in hand, upright as a spirit, sideways as mana, and the back.

Pure string building (no I/O). Every text is escaped; shapes carry a <title> for screen readers.
"""

from __future__ import annotations

from html import escape

from companion.cardgames.summoners.cards import kind_of_card, kinds

from .card_text import marked, svg_line
from .catalogue import pgettext
from .words import icon_name, kind_data, mana_name

FILL = {
    "black": "#34343c",
    "green": "#2e7d32",
    "red": "#c62828",
    "yellow": "#d49b00",
    "blue": "#1565c0",
}
PALE = {
    "black": "#e6e4ea",
    "green": "#e3f1e1",
    "red": "#f8e1df",
    "yellow": "#fbf1d0",
    "blue": "#dfeaf8",
}
GLYPH = {
    "black": "M-3,-7 L4,-1 L0,0 L3,7 L-4,0 L0,-1 Z",
    "green": "M0,-7 L6,3 L1,3 L1,7 L-1,7 L-1,3 L-6,3 Z",
    "red": "M0,-7 C5,-2 5,3 0,7 C-5,3 -5,-2 0,-7 Z",
    "yellow": "M-5,3 A2,2 0 1,0 -5,3.1 M0,-3 A2,2 0 1,0 0,-2.9 M5,3 A2,2 0 1,0 5,3.1",
    "blue": "M0,-7 C4,-1 5,2 0,7 C-5,2 -4,-1 0,-7 Z",
}
ICON_PATH = {
    "armour": "M-6,-6 L6,-6 L7,6 L-7,6 Z M-3,-6 L0,-2 L3,-6",
    "shield": "M-6,-6 L6,-6 L6,0 C6,4 2,6 0,7 C-2,6 -6,4 -6,0 Z",
    "staff": "M-1,7 L1,-3 M0,-7 A3,3 0 1,0 0.1,-7",
    "axe": "M-4,7 L2,-6 M0,-7 C6,-7 7,-1 4,1 Z",
    "sword": "M0,-8 L2,3 L-2,3 Z M-5,3 L5,3 M0,3 L0,8",
}


def _wrap(text: str, width: int) -> list[str]:
    if " " not in text:
        return [text[i : i + width] for i in range(0, len(text), width)]
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return lines + ([line] if line else [])


def _mana_symbol(colour: str, x: float, y: float, r: float) -> str:
    name = mana_name(colour)
    scale = r / 9
    return (
        f'<g transform="translate({x},{y})"><title>{escape(name)}</title>'
        f'<circle r="{r}" fill="{FILL[colour]}" stroke="#fff" stroke-width="1.5"/>'
        f'<path d="{GLYPH[colour]}" transform="scale({scale})" fill="#fff" stroke="#fff"/></g>'
    )


def _cost_symbol(symbol: str, x: float, y: float) -> str:
    if symbol != "any":
        return _mana_symbol(symbol, x, y, 9)
    label = escape(pgettext("age-of-summoners", "Any mana"))
    return (
        f'<g transform="translate({x},{y})"><title>{label}</title>'
        '<circle r="9" fill="#fff" stroke="#777" stroke-width="1.5" stroke-dasharray="3 2"/>'
        '<text y="4" text-anchor="middle" font-size="12" fill="#555">*</text></g>'
    )


def _icon(icon: str, x: float, y: float) -> str:
    label = icon_name(icon)
    return (
        f'<g transform="translate({x},{y})"><title>{escape(label)}</title>'
        '<circle r="11" fill="#fff" stroke="#444"/>'
        f'<path d="{ICON_PATH[icon]}" fill="none" stroke="#222" stroke-width="1.6"/></g>'
    )


def _frame(width: int, height: int, body: str, label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{escape(label)}">{body}</svg>'
    )


def _text_lines(lines: list[str], x: float, y: float, size: int, step: float) -> str:
    spans = "".join(
        f'<tspan x="{x}" y="{y + i * step}">{svg_line(line)}</tspan>'
        for i, line in enumerate(lines)
    )
    return f'<text font-size="{size}" fill="#222">{spans}</text>'


def card_svg(kind_or_card: str, state: str = "hand") -> str:
    """A card face in the current locale: ``state`` is "hand", "spirit" (upright in play) or
    "mana" (sideways)."""
    kind = kind_of_card().get(kind_or_card, kind_or_card)
    if state == "mana":
        return _mana_face(kind)
    return _upright_face(kind, with_cost=state == "hand")


def _upright_face(kind: str, with_cost: bool) -> str:
    spec = kinds()[kind]
    colour = spec["colour"]
    name = kind_data(kind, "name")
    parts = [
        f'<rect x="1" y="1" width="198" height="278" rx="12" fill="{PALE[colour]}" '
        f'stroke="{FILL[colour]}" stroke-width="{2 if with_cost else 4}"/>',
        _mana_symbol(colour, 20, 20, 13),
        f'<text x="20" y="50" text-anchor="middle" font-size="16" font-weight="bold" '
        f'fill="{FILL[colour]}">{spec["number"]}</text>',
        f'<text x="40" y="26" font-size="15" font-weight="bold" fill="#111">{escape(name)}</text>',
    ]
    if with_cost:
        for i, symbol in enumerate(spec["cost"]):
            parts.append(_cost_symbol(symbol, 20, 72 + i * 22))
    for i, icon in enumerate(spec["icons"]):
        parts.append(_icon(icon, 60 + i * 26, 58))
    text = marked(kind_data(kind, "text"))
    # Text without spaces (Japanese) wraps by characters, which are wider than Latin letters.
    lines = _wrap(text, 26 if " " in text else 15)[:9]
    parts.append('<rect x="40" y="80" width="150" height="150" rx="6" fill="#fff" opacity="0.85"/>')
    parts.append(_text_lines(lines, 46, 96, 10, 14))
    points_label = escape(pgettext("age-of-summoners", "Points"))
    parts.append(
        f'<g transform="translate(176,256)"><title>{points_label}</title>'
        f'<circle r="15" fill="{FILL[colour]}"/><text y="6" text-anchor="middle" font-size="17" '
        f'font-weight="bold" fill="#fff">{spec["points"]}</text></g>'
    )
    parts.append(f'<text x="14" y="270" font-size="9" fill="#666">{escape(spec["code"])}</text>')
    label = name if with_cost else pgettext("age-of-summoners", "%(name)s (spirit)", name=name)
    return _frame(200, 280, "".join(parts), label)


def _mana_face(kind: str) -> str:
    spec = kinds()[kind]
    colour = spec["colour"]
    mana = mana_name(colour)
    name = kind_data(kind, "name")
    body = (
        f'<rect x="1" y="1" width="278" height="198" rx="12" fill="{PALE[colour]}" '
        f'stroke="{FILL[colour]}" stroke-width="2"/>'
        f'<rect x="1" y="1" width="70" height="198" rx="12" fill="{FILL[colour]}"/>'
        f"{_mana_symbol(colour, 36, 60, 24)}"
        f'<text x="36" y="150" text-anchor="middle" font-size="44" font-weight="bold" '
        f'fill="#fff">{spec["number"]}</text>'
        f'<text x="90" y="40" font-size="16" fill="#333">{escape(mana)}</text>'
        f'<text x="90" y="64" font-size="12" fill="#666">{escape(name)}</text>'
    )
    label = pgettext(
        "age-of-summoners", "%(mana)s %(number)s (mana)", mana=mana, number=spec["number"]
    )
    return _frame(280, 200, body, label)


def back_svg(sideways: bool = False) -> str:
    """The card back; sideways it is a philosopher's stone in a mana row."""
    width, height = (280, 200) if sideways else (200, 280)
    cx, cy = width / 2, height / 2
    if sideways:
        label = pgettext("age-of-summoners", "Philosopher's stone")
    else:
        label = pgettext("age-of-summoners", "Card back")
    body = (
        f'<rect x="1" y="1" width="{width - 2}" height="{height - 2}" rx="12" fill="#3b2f5c" '
        'stroke="#c9b26b" stroke-width="3"/>'
        f'<rect x="{cx - 40}" y="{cy - 40}" width="80" height="80" fill="none" stroke="#c9b26b" '
        'stroke-width="2"/>'
        f'<path d="M{cx},{cy - 36} L{cx + 32},{cy + 22} L{cx - 32},{cy + 22} Z" fill="none" '
        'stroke="#c9b26b" stroke-width="2"/>'
        f'<circle cx="{cx}" cy="{cy + 3}" r="15" fill="none" stroke="#c9b26b" stroke-width="2"/>'
    )
    return _frame(width, height, body, label)
