"""The spirit list of the rules page, made from the card data in the current locale, and the
spirit table of docs/cardgames.md (``python -m companion.web.boards.summoners.spirit_list``)."""

from __future__ import annotations

from pathlib import Path

from flask_babel import get_locale

from companion.base.languages import DEFAULT, LANGUAGES, about
from companion.cardgames.summoners.cards import COLOURS, kind_words, kinds

from .catalogue import pgettext
from .rules_text import markdown_text
from .words import (
    colour_name,
    cost_words,
    icon_name,
    kind_data,
    mana_name,
    points_words,
)


def spirits_heading() -> str:
    """The heading the spirit list starts under, in the current locale."""
    return pgettext("age-of-summoners", "# The spirits") + "\n"


def _other_names(kind: str) -> str:
    """The spirit's names in the companion's other languages, shown beside the one it reads by."""
    words, shown = kind_words(kind), kind_data(kind, "name")
    names = [words[f"name_{code}"] for code in LANGUAGES if f"name_{code}" in words]
    locale = get_locale()
    separator = about(locale.language if locale else DEFAULT).list_separator
    return separator.join(name for name in names if name != shown)


def _entry(kind: str) -> str:
    spec = kinds()[kind]
    icons = pgettext("age-of-summoners", ", ").join(icon_name(i).lower() for i in spec["icons"])
    head = pgettext(
        "age-of-summoners",
        "- **%(name)s** (%(other)s, %(code)s): %(copies)s copies%(rare)s; cost %(cost)s;"
        " icons: %(icons)s; %(points)s.",
        name=kind_data(kind, "name"),
        other=_other_names(kind),
        code=spec["code"],
        copies=spec["copies"],
        rare=pgettext("age-of-summoners", ", rare") if spec["copies"] == 2 else "",
        cost=cost_words(spec["cost"]),
        icons=icons or pgettext("age-of-summoners", "none"),
        points=points_words(spec["points"]),
    )
    return f"{head}  \n  {markdown_text(kind)}  \n  *{kind_data(kind, 'flavour')}*"


def _colour_heading(colour: str, specs: list[str]) -> str:
    return pgettext(
        "age-of-summoners",
        "## %(colour)s: %(mana)s, number %(number)s (%(total)s cards)",
        colour=colour_name(colour).capitalize(),
        mana=mana_name(colour),
        number=kinds()[specs[0]]["number"],
        total=sum(kinds()[k]["copies"] for k in specs),
    )


def spirit_list_markdown() -> str:
    """The rules page's section on the spirits in the current locale: every kind by colour,
    from the card data (Markdown lists, no tables). Needs an application context."""
    intro = pgettext(
        "age-of-summoners",
        "There are %(kinds)s kinds, listed by colour. Each entry gives the number of copies, the"
        " summoning cost, the icons and the points, then the ability and a line of lore.",
        kinds=len(kinds()),
    )
    out = [spirits_heading(), intro + "\n"]
    for colour in COLOURS:
        specs = [k for k, s in kinds().items() if s["colour"] == colour]
        out.append(_colour_heading(colour, specs) + "\n")
        out.extend(_entry(k) for k in specs)
        out.append("")
    return "\n".join(out)


_COST_LETTER = {"black": "K", "green": "G", "red": "R", "yellow": "Y", "blue": "U", "any": "*"}
DOCS_TABLE_HEAD = "| Code | Spirit | Colour | × | Cost | Icons | Pts | Ability |\n|---|"
DOCS_LANGUAGE = "en"  # docs/cardgames.md is written in English


def docs_table_markdown() -> str:
    """The spirit table of docs/cardgames.md (English), one row per kind, from the card data."""
    rows = [DOCS_TABLE_HEAD + "---|---|---|---|---|---|---|"]
    for kind, s in kinds().items():
        cost = "".join(_COST_LETTER[c] for c in s["cost"])
        words = kind_words(kind)
        rows.append(
            f"| {s['code']} | {_docs_names(words)} | {s['colour']} {s['number']} "
            f"| {s['copies']} | `{cost}` | {', '.join(s['icons']) or '-'} | {s['points']} "
            f"| {words[f'text_{DOCS_LANGUAGE}']} |"
        )
    return "\n".join(rows) + "\n"


def _docs_names(words: dict[str, str]) -> str:
    """The spirit's name in the docs' language, then in every other language the data has."""
    codes = (DOCS_LANGUAGE, *(code for code in LANGUAGES if code != DOCS_LANGUAGE))
    return " ".join(words[f"name_{code}"] for code in codes if f"name_{code}" in words)


def refresh_docs(path: Path | None = None) -> list[Path]:
    """Rewrite the spirit table in docs/cardgames.md, when the repository's docs are present."""
    path = path or Path(__file__).resolve().parents[4] / "docs" / "cardgames.md"
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    start = text.index(DOCS_TABLE_HEAD)
    end = text.index("\n\n", start) + 1
    new = text[:start] + docs_table_markdown() + text[end:]
    if new == text:
        return []
    path.write_text(new, encoding="utf-8")
    return [path]


if __name__ == "__main__":
    for changed_file in refresh_docs():
        print(f"rewrote {changed_file}")
