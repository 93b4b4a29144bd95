"""SVG pictures for the legacy game: playing cards, dice and the life timeline."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from markupsafe import Markup

SUITS = {
    "H": ("♥", "#a3261d", "hearts"),
    "D": ("♦", "#b0471f", "diamonds"),
    "C": ("♣", "#1f3b4f", "clubs"),
    "S": ("♠", "#26221e", "spades"),
}
PIPS = {
    1: [(50, 50)],
    2: [(28, 28), (72, 72)],
    3: [(28, 28), (50, 50), (72, 72)],
    4: [(28, 28), (72, 28), (28, 72), (72, 72)],
    5: [(28, 28), (72, 28), (50, 50), (28, 72), (72, 72)],
    6: [(28, 26), (72, 26), (28, 50), (72, 50), (28, 74), (72, 74)],
}


def split_card(card: str) -> tuple[str, str]:
    """('10', 'H') from '10H'."""
    return card[:-1], card[-1]


def playing_card(card: str, label: str, width: int = 120) -> Markup:
    """A playing card face with rank and suit symbol in two corners and a large centre pip."""
    rank, suit = split_card(card)
    symbol, colour, _name = SUITS[suit]
    height = round(width * 1.4)
    corner = (
        f'<text x="10" y="26" font-size="20" font-weight="700">{escape(rank)}</text>'
        f'<text x="10" y="46" font-size="18">{symbol}</text>'
    )
    return Markup(
        f'<svg class="playing-card" role="img" aria-label="{escape(label)}" viewBox="0 0 120 168"'
        f' width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">'
        f'<rect x="1.5" y="1.5" width="117" height="165" rx="10" fill="#fffdf8" stroke="#5a5047"'
        f' stroke-width="2"/><g fill="{colour}" font-family="Georgia, serif">{corner}'
        f'<g transform="rotate(180 60 84)">{corner}</g>'
        f'<text x="60" y="102" font-size="{56 if rank not in "JQK" else 48}" text-anchor="middle">'
        f"{symbol if rank not in 'JQK' else escape(rank) + symbol}</text></g></svg>"
    )


def card_back(label: str, width: int = 120) -> Markup:
    """The back of a card, for piles."""
    height = round(width * 1.4)
    return Markup(
        f'<svg class="card-back" role="img" aria-label="{escape(label)}" viewBox="0 0 120 168"'
        f' width="{width}" height="{height}" xmlns="http://www.w3.org/2000/svg">'
        '<rect x="1.5" y="1.5" width="117" height="165" rx="10" fill="#6b2416" stroke="#3a1a10"'
        ' stroke-width="2"/><rect x="10" y="10" width="100" height="148" rx="6" fill="none"'
        ' stroke="#d9a441" stroke-width="1.5"/><text x="60" y="96" font-size="40" fill="#d9a441"'
        ' text-anchor="middle" font-family="IPAexMincho, serif">遺</text></svg>'
    )


def die_face(value: int, label: str, size: int = 44) -> Markup:
    """A die showing ``value``; a 5 or 6 is drawn as a success (ember face, double border)."""
    hit = value >= 5
    fill, pip, stroke = (
        ("#a3361d", "#fffdf8", "#5e1c0e") if hit else ("#fffdf8", "#221d18", "#5a5047")
    )
    pips = "".join(f'<circle cx="{x}" cy="{y}" r="8" fill="{pip}"/>' for x, y in PIPS[value])
    ring = (
        '<rect x="9" y="9" width="82" height="82" rx="12" fill="none" stroke="#fffdf8"'
        ' stroke-width="3"/>'
    )
    return Markup(
        f'<svg class="die{" die-hit" if hit else ""}" role="img" aria-label="{escape(label)}"'
        f' viewBox="0 0 100 100" width="{size}" height="{size}" xmlns="http://www.w3.org/2000/svg">'
        f'<rect x="3" y="3" width="94" height="94" rx="16" fill="{fill}" stroke="{stroke}"'
        f' stroke-width="4"/>{ring if hit else ""}{pips}</svg>'
    )


@dataclass(frozen=True)
class TimelineRound:
    """One round on the life timeline."""

    stage: int
    round: int
    mark: str | None
    losses: Sequence[str]
    sacrifices: Sequence[str]
    played: bool


STAGE_COLOURS = ("#a3261d", "#b0471f", "#1f3b4f", "#26221e")


def timeline(
    rounds: Sequence[TimelineRound], stage_labels: Sequence[str], title: str, width: int = 720
) -> Markup:
    """Four stages, twelve rounds: marks as gold stars, sacrifices and losses as ticks below."""
    step = (width - 40) / 12
    parts = [
        f'<svg class="timeline" role="img" aria-label="{escape(title)}" viewBox="0 0 {width} 190"'
        f' width="100%" xmlns="http://www.w3.org/2000/svg" font-family="IPAexGothic, sans-serif">',
        f"<title>{escape(title)}</title>",
    ]
    for stage, label in enumerate(stage_labels):
        x = 20 + stage * 3 * step
        parts.append(
            f'<rect x="{x:.1f}" y="70" width="{3 * step:.1f}" height="14"'
            f' fill="{STAGE_COLOURS[stage]}"/>'
            f'<text x="{x + 1.5 * step:.1f}" y="106" font-size="13" text-anchor="middle"'
            f' fill="#221d18">{escape(label)}</text>'
        )
    for index, entry in enumerate(rounds):
        parts.append(_timeline_round(entry, 20 + (index + 0.5) * step))
    parts.append("</svg>")
    return Markup("".join(parts))


def _timeline_round(entry: TimelineRound, cx: float) -> str:
    out = [f'<line x1="{cx:.1f}" y1="66" x2="{cx:.1f}" y2="88" stroke="#fffdf8" stroke-width="1"/>']
    if not entry.played:
        out.append(f'<circle cx="{cx:.1f}" cy="50" r="4" fill="none" stroke="#cbbfa8"/>')
    if entry.mark:
        out.append(
            f'<g><title>{escape(entry.mark)}</title><polygon points="{_star(cx, 44)}"'
            ' fill="#c9a227" stroke="#6b5314" stroke-width="1.2"/></g>'
        )
    for i, name in enumerate(list(entry.sacrifices) + list(entry.losses)):
        lost = i >= len(entry.sacrifices)
        y = 124 + i * 16
        shape = (
            f'<rect x="{cx - 5:.1f}" y="{y - 5}" width="10" height="10" fill="#8e2020"/>'
            if lost
            else f'<polygon points="{cx:.1f},{y - 6} {cx + 6:.1f},{y + 5} {cx - 6:.1f},{y + 5}"'
            ' fill="#5a5047"/>'
        )
        out.append(f"<g><title>{escape(name)}</title>{shape}</g>")
    return "".join(out)


def _star(cx: float, cy: float, outer: float = 14, inner: float = 6) -> str:
    import math

    points = []
    for k in range(10):
        radius = outer if k % 2 == 0 else inner
        angle = math.pi / 2 + k * math.pi / 5
        points.append(f"{cx + radius * math.cos(angle):.1f},{cy - radius * math.sin(angle):.1f}")
    return " ".join(points)
