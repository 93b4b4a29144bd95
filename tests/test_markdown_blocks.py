"""A Markdown text cut into translatable blocks and put back together around translations."""

from __future__ import annotations

from companion.text.blocks import Block, blocks, translate
from companion.text.markdown import render_markdown

# "\x20\x20": the two spaces of a hard line break, which an editor would trim.
SAMPLE = """\
*A card game for 2 to 6 players.*

# The aim

Score points
over several rounds.

- **Night**: worth +2.\x20\x20
  It sits with the active player.
- **Flame**: worth +3.
1. Shuffle the deck.
2. Deal.

| Card | Value |
|---|---|
| Night | +2 |
## Cards
"""


def test_each_block_is_a_heading_a_paragraph_an_item_or_a_table() -> None:
    found = [(b.lineno, b.marker, b.text) for b in blocks(SAMPLE)]
    assert found == [
        (1, "", "*A card game for 2 to 6 players.*"),
        (3, "# ", "The aim"),
        (5, "", "Score points\nover several rounds."),
        (8, "- ", "**Night**: worth +2.  \nIt sits with the active player."),
        (10, "- ", "**Flame**: worth +3."),
        (11, "1. ", "Shuffle the deck."),
        (12, "2. ", "Deal."),
        (14, "", "| Card | Value |\n|---|---|\n| Night | +2 |"),
        (17, "## ", "Cards"),
    ]


def test_the_text_is_put_back_as_it_was() -> None:
    assert translate(SAMPLE, lambda text: text) == SAMPLE


def test_a_translation_keeps_the_shape_of_its_block() -> None:
    shouted = translate(SAMPLE, lambda text: text.upper())
    html = str(render_markdown(shouted))
    assert "<h3>THE AIM</h3>" in html and "<h4>CARDS</h4>" in html
    assert "<li><strong>NIGHT</strong>: WORTH +2.<br>\nIT SITS WITH THE ACTIVE PLAYER.</li>" in html
    assert "<ol>\n<li>SHUFFLE THE DECK.</li>" in html
    assert "  IT SITS WITH THE ACTIVE PLAYER." in shouted.split("\n")


def test_a_translation_on_more_lines_is_indented_under_its_item() -> None:
    item = Block(lineno=1, height=1, marker="- ", indent="  ", text="One.")
    assert item.dressed("Un.  \nDeux.") == "- Un.  \n  Deux."
