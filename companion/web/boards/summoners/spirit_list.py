"""The spirit list at the end of the rules pages and the spirit table of docs/cardgames.md,
written from the card data (``python -m companion.web.boards.summoners.spirit_list``)."""

from __future__ import annotations

from pathlib import Path

from flask_babel import force_locale, pgettext

from companion.cardgames.summoners.cards import COLOURS, kinds
from companion.languages import LANGUAGES

from .words import colour_name, cost_words, icon_name, kind_data, mana_name, points_words

RULES = Path(__file__).resolve().parents[3] / "cardgames" / "summoners" / "rules"


def spirits_heading() -> str:
    """The heading the spirit list starts under, in the current locale."""
    return pgettext("age-of-summoners", "# The spirits") + "\n"


def _other_name(kind: str, lang: str) -> str:
    """The spirit's name in the rules page's other language, shown beside its own."""
    other = next(code for code in LANGUAGES if code != lang)
    return str(kinds()[kind][f"name_{other}"])


def _entry(kind: str, lang: str) -> str:
    spec = kinds()[kind]
    icons = pgettext("age-of-summoners", ", ").join(icon_name(i).lower() for i in spec["icons"])
    head = pgettext(
        "age-of-summoners",
        "- **%(name)s** (%(other)s, %(code)s): %(copies)s copies%(rare)s; cost %(cost)s;"
        " icons: %(icons)s; %(points)s.",
        name=kind_data(kind, "name"),
        other=_other_name(kind, lang),
        code=spec["code"],
        copies=spec["copies"],
        rare=pgettext("age-of-summoners", ", rare") if spec["copies"] == 2 else "",
        cost=cost_words(spec["cost"]),
        icons=icons or pgettext("age-of-summoners", "none"),
        points=points_words(spec["points"]),
    )
    return f"{head}  \n  {kind_data(kind, 'text')}  \n  *{kind_data(kind, 'flavour')}*"


def spirit_list_markdown(lang: str) -> str:
    """The rules page's list of the 30 spirits in ``lang``, by colour, from the card data
    (Markdown lists, no tables). Needs an application context for the catalogue."""
    with force_locale(lang):
        out: list[str] = []
        for colour in COLOURS:
            specs = [k for k, s in kinds().items() if s["colour"] == colour]
            number = kinds()[specs[0]]["number"]
            heading = pgettext(
                "age-of-summoners",
                "## %(colour)s: %(mana)s, number %(number)s (%(total)s cards)",
                colour=colour_name(colour).capitalize(),
                mana=mana_name(colour),
                number=number,
                total=sum(kinds()[k]["copies"] for k in specs),
            )
            out.append(heading + "\n")
            out.extend(_entry(k, lang) for k in specs)
            out.append("")
        return "\n".join(out)


def refresh_rules(folder: Path | None = None) -> list[Path]:
    """Rewrite the spirit list at the end of rules/en.md and rules/ja.md from the card data;
    returns the files changed."""
    folder = folder or RULES
    changed = []
    for lang in LANGUAGES:
        path = folder / f"{lang}.md"
        text = path.read_text(encoding="utf-8")
        with force_locale(lang):
            start = text.index(spirits_heading())
        cut = text.index("\n## ", start) + 1
        new = text[:cut] + spirit_list_markdown(lang)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(path)
    return changed


_COST_LETTER = {"black": "K", "green": "G", "red": "R", "yellow": "Y", "blue": "U", "any": "*"}
DOCS_TABLE_HEAD = "| Code | Spirit | Colour | × | Cost | Icons | Pts | Ability |\n|---|"


def docs_table_markdown() -> str:
    """The spirit table of docs/cardgames.md (English), one row per kind, from the card data."""
    rows = [DOCS_TABLE_HEAD + "---|---|---|---|---|---|---|"]
    for s in kinds().values():
        cost = "".join(_COST_LETTER[c] for c in s["cost"])
        rows.append(
            f"| {s['code']} | {s['name_en']} {s['name_ja']} | {s['colour']} {s['number']} "
            f"| {s['copies']} | `{cost}` | {', '.join(s['icons']) or '-'} | {s['points']} "
            f"| {s['text_en']} |"
        )
    return "\n".join(rows) + "\n"


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
    from companion import create_app

    with create_app().app_context():
        for changed_file in refresh_rules() + refresh_docs():
            print(f"rewrote {changed_file}")
