"""Card faces and backs as SVG strings, in a sombre stained-glass style.

Fronts carry a colour band, the value (top left, as printed), the name, a glass panel and the
rules text in the reader's language (both from the card data). Backs: characters share one rose-window back; Flame, Night and
Before-Dawn each have their own back, recognisable across the table as in the physical game.
"""

from __future__ import annotations

import math
import random
from html import escape

from companion.base import languages
from companion.cardgames.traitors_flame import cards

from .carddata import data_field, data_language

W, H = 250, 350
LEAD = "#15110f"
FONT = "'Noto Serif JP','IPAexMincho','Hiragino Mincho ProN',Georgia,serif"
PALETTES = {
    "red": ("#6e2a2a", "#8c3b32", "#a65a3f", "#4f1f24", "#b07a4a"),
    "blue": ("#2b3f5c", "#36597a", "#4d6f8c", "#1f2c44", "#6c8597"),
    "white": ("#a9a28f", "#c2bca6", "#8f8a78", "#d6cfb8", "#787262"),
    "flame": ("#8a3a12", "#b5561b", "#d08a2e", "#5e2410", "#e0b04a"),
    "night": ("#141a2e", "#1e2744", "#2a3558", "#0e1222", "#3b4670"),
    "dawn": ("#3a2f4a", "#6b4a5e", "#a0696a", "#26203a", "#c99a72"),
    "back": ("#2a2622", "#3a332c", "#4a3f33", "#1d1a17", "#5a4a38"),
}
BAND = {"red": "#7a2e2e", "blue": "#2e4a6b", "white": "#bdb7a2"}
# How long a line of rules text and a name may be before they wrap or are squeezed, by where the
# language breaks a line (``Language.wrap``): between any two characters, or between words.
WIDTHS = {"characters": (17, 9), "words": (36, 20)}
# Marks that close a phrase never start a line of text that breaks between characters.
CLOSING = "。、」）"


def _svg(body: str, title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" '
        f'height="{H}" role="img"><title>{escape(title)}</title>{body}</svg>'
    )


def _frame(fill: str) -> str:
    return (
        f'<rect x="2" y="2" width="{W - 4}" height="{H - 4}" rx="14" fill="{fill}" '
        f'stroke="{LEAD}" stroke-width="4"/>'
    )


def _glass(
    seed: str,
    palette: tuple[str, ...],
    x: float,
    y: float,
    w: float,
    h: float,
    cols: int = 5,
    rows: int = 4,
) -> str:
    """A panel of leaded glass shards: a jittered grid cut into triangles, seeded by name."""
    rng = random.Random(seed)
    pts = [
        [
            (
                x + w * i / cols + (rng.uniform(-0.3, 0.3) * w / cols if 0 < i < cols else 0),
                y + h * j / rows + (rng.uniform(-0.3, 0.3) * h / rows if 0 < j < rows else 0),
            )
            for i in range(cols + 1)
        ]
        for j in range(rows + 1)
    ]
    shards = []
    for j in range(rows):
        for i in range(cols):
            a, b, c, d = pts[j][i], pts[j][i + 1], pts[j + 1][i + 1], pts[j + 1][i]
            halves = ((a, b, c), (a, c, d)) if rng.random() < 0.5 else ((a, b, d), (b, c, d))
            for tri in halves:
                fill = rng.choice(palette)
                path = " ".join(f"{px:.1f},{py:.1f}" for px, py in tri)
                shards.append(
                    f'<polygon points="{path}" fill="{fill}" stroke="{LEAD}" '
                    f'stroke-width="2.2" stroke-linejoin="round"/>'
                )
    return "".join(shards)


def _rose(
    seed: str, palette: tuple[str, ...], cx: float, cy: float, r: float, petals: int = 12
) -> str:
    """A rose window: rings of wedges around a centre."""
    rng = random.Random(seed)
    parts = []
    for ring, (r0, r1) in enumerate(((r * 0.25, r * 0.6), (r * 0.6, r))):
        for k in range(petals):
            a0 = 2 * math.pi * (k + 0.5 * ring) / petals
            a1 = 2 * math.pi * (k + 1 + 0.5 * ring) / petals
            quad = [
                (cx + r0 * math.cos(a0), cy + r0 * math.sin(a0)),
                (cx + r1 * math.cos(a0), cy + r1 * math.sin(a0)),
                (cx + r1 * math.cos(a1), cy + r1 * math.sin(a1)),
                (cx + r0 * math.cos(a1), cy + r0 * math.sin(a1)),
            ]
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py in quad)
            parts.append(
                f'<polygon points="{path}" fill="{rng.choice(palette)}" '
                f'stroke="{LEAD}" stroke-width="2"/>'
            )
    parts.append(
        f'<circle cx="{cx}" cy="{cy}" r="{r * 0.25:.1f}" fill="{palette[-1]}" '
        f'stroke="{LEAD}" stroke-width="2.5"/>'
    )
    return "".join(parts)


def _widths(lang: str) -> tuple[int, int]:
    """(line, name) widths for text in ``lang``."""
    return WIDTHS[languages.about(lang).wrap]


def text_lines(text: str, lang: str) -> list[str]:
    """Rules text broken into lines the way ``lang`` breaks them."""
    width = _widths(lang)[0]
    lines: list[str] = []
    if languages.about(lang).wrap == "characters":
        for ch in text:
            if lines and (len(lines[-1]) < width or ch in CLOSING):
                lines[-1] += ch
            else:
                lines.append(ch)
        return lines
    for word in text.split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines


def _emblem(special: str, centre_y: float) -> str:
    """The motif of a special card, centred at ``centre_y``: a flame, a moon, or a rising sun."""
    return f'<g transform="translate(0 {centre_y - 152:.0f})">{_motif(special)}</g>'


def _motif(special: str) -> str:
    if special == "flame":
        return (
            '<path d="M125 95 C150 130 165 150 150 185 C145 200 135 207 125 210 C112 207 100 '
            "198 98 182 C95 160 110 150 112 130 C122 145 124 150 126 160 C132 140 130 120 "
            '125 95 Z" fill="#e8b048" stroke="#2a1208" stroke-width="3"/>'
        )
    if special == "night":
        return (
            '<path d="M140 110 A45 45 0 1 0 150 185 A36 36 0 1 1 140 110 Z" fill="#d9d3bf" '
            'stroke="#0b0d18" stroke-width="3"/>'
        )
    return (
        '<path d="M80 185 A45 45 0 0 1 170 185 Z" fill="#e2a86a" stroke="#1b1424" '
        'stroke-width="3"/><line x1="55" y1="185" x2="195" y2="185" stroke="#1b1424" '
        'stroke-width="4"/>'
    )


def back(card: str, title: str = "") -> str:
    """The back of a card (id or kind). Flame, Night and Before-Dawn backs differ from the rest."""
    kid = card if card in cards.kinds() else cards.all_cards()[card]
    special = cards.kinds()[kid].get("special")
    key = special or "back"
    palette = PALETTES[key]
    body = _frame(palette[3]) + _rose(f"back-{key}", palette, W / 2, H / 2, 95)
    if special:
        body += (
            f'<circle cx="{W / 2}" cy="{H / 2}" r="62" fill="{palette[3]}" stroke="{LEAD}" '
            f'stroke-width="3"/>'
        ) + _emblem(special, H / 2)
    return _svg(body, title)


def front(card: str, lang: str = languages.DEFAULT) -> str:
    """The face of a card (id or kind) with its name and rules text from the data in ``lang``
    (the default language's where the data has none in ``lang``)."""
    kid = card if card in cards.kinds() else cards.all_cards()[card]
    kind = cards.kinds()[kid]
    lang = data_language(kind, lang)
    special = kind.get("special")
    palette = PALETTES[special or kind["colour"] or "back"]
    band = BAND.get(kind["colour"] or "", palette[1])
    name = data_field(kind, "name", lang)
    parts = [
        _frame("#221d19"),
        f'<rect x="10" y="10" width="{W - 20}" height="40" rx="6" fill="{band}" '
        f'stroke="{LEAD}" stroke-width="3"/>',
        _glass(f"front-{kid}", palette, 16, 58, W - 32, 150),
        f'<rect x="16" y="58" width="{W - 32}" height="150" fill="none" stroke="{LEAD}" '
        f'stroke-width="4"/>',
    ]
    if special:
        parts.append(_emblem(special, 133))
    value = kind["value"]
    parts.append(
        f'<circle cx="32" cy="30" r="18" fill="#15110f" stroke="#bfa56a" '
        f'stroke-width="2"/><text x="32" y="37" text-anchor="middle" font-size="19" '
        f'font-family="{FONT}" fill="#e9dcb8">{value:+d}</text>'
    )
    long = len(name) > _widths(lang)[1]
    fit = ' textLength="172" lengthAdjust="spacingAndGlyphs"' if long else ""
    ink = "#1a1714" if kind["colour"] == "white" else "#efe6cf"
    parts.append(
        f'<text x="145" y="36" text-anchor="middle" font-size="{13 if long else 15}"'
        f'{fit} font-family="{FONT}" fill="{ink}">{escape(name)}</text>'
    )
    parts.append(
        f'<rect x="16" y="216" width="{W - 32}" height="120" rx="6" fill="#e8e0cc" '
        f'stroke="{LEAD}" stroke-width="2"/>'
    )
    lines = text_lines(data_field(kind, "text", lang), lang)
    fsize = 12.5 if len(lines) <= 6 else 11 if len(lines) <= 7 else 9.5
    for i, line in enumerate(lines[:10]):
        parts.append(
            f'<text x="24" y="{234 + i * (fsize + 3):.1f}" font-size="{fsize}" '
            f'font-family="{FONT}" fill="#1f1a16">{escape(line)}</text>'
        )
    return _svg("".join(parts), name)
