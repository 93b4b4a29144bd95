"""The new-chronicle form: read it, check each field, and build the rules core's Setup."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flask_babel import format_number
from flask_babel import gettext as _

from companion.base.languages import DEFAULT, LANGUAGES
from companion.base.limits import NAME_LIMIT, TEXT_LIMIT
from companion.legacy.setup import KINDS, MAX_PER_KIND, MAX_PLAYERS, MODES, Keystone, Setup
from companion.packs.format import Pack


@dataclass
class SetupForm:
    """What the form holds (as typed) and what is wrong with it, field by field."""

    values: dict[str, Any]
    errors: dict[str, str] = field(default_factory=dict)

    def error(self, name: str) -> str | None:
        """The message for field ``name``, if any."""
        return self.errors.get(name)


def blank_form(language: str) -> SetupForm:
    """A fresh form: three players' rows, three keystones of each kind."""
    values: dict[str, Any] = {
        "language": language,
        "mode": "digital",
        "forgiving_undo": False,
        "show_writing": True,
        "players": [""] * MAX_PLAYERS,
        "oldest": 0,
        "pioneer": "",
        "people": "",
        "concept": "",
        "pack": "standard",
        "lines": "",
        "veils": "",
    }
    for kind in KINDS:
        values[kind] = [{"name": "", "description": ""} for _ in range(MAX_PER_KIND)]
    return SetupForm(values)


def read_form(form: Mapping[str, str]) -> SetupForm:
    """Copy every field from the request, exactly as typed, so nothing is lost on an error."""
    values: dict[str, Any] = {
        "language": form.get("language", DEFAULT),
        "mode": form.get("mode", "digital"),
        "forgiving_undo": form.get("forgiving_undo") == "on",
        # The page sends "off" before the box's "on": a box left unticked sends only "off",
        # and a post without either (an older page) keeps the default, on.
        "show_writing": _last(form, "show_writing", "on") == "on",
        "players": [form.get(f"player-{i}", "") for i in range(MAX_PLAYERS)],
        "oldest": _int(form.get("oldest"), -1),
        "pioneer": form.get("pioneer", ""),
        "people": form.get("people", ""),
        "concept": form.get("concept", ""),
        "pack": form.get("pack", "standard"),
        "lines": form.get("lines", ""),
        "veils": form.get("veils", ""),
    }
    for kind in KINDS:
        values[kind] = [
            {
                "name": form.get(f"{kind}-{i}-name", ""),
                "description": form.get(f"{kind}-{i}-description", ""),
            }
            for i in range(MAX_PER_KIND)
        ]
    return SetupForm(values)


CHOICE_LIMIT = 64  # characters of a choice the page offers (a language, a mode, a pack's name)


def keepable(values: Mapping[str, Any]) -> dict[str, Any]:
    """The form's values as a refused form is kept: each text cut to its own limit (a page
    never sends more; what a script sent beyond it is not kept)."""
    kept = dict(values)
    for name in ("language", "mode", "pack"):
        kept[name] = str(values[name])[:CHOICE_LIMIT]
    for name in ("pioneer", "people"):
        kept[name] = values[name][:NAME_LIMIT]
    for name in ("concept", "lines", "veils"):
        kept[name] = values[name][:TEXT_LIMIT]
    kept["players"] = [name[:NAME_LIMIT] for name in values["players"]]
    for kind in KINDS:
        kept[kind] = [
            {"name": row["name"][:NAME_LIMIT], "description": row["description"][:TEXT_LIMIT]}
            for row in values[kind]
        ]
    return kept


def _last(form: Mapping[str, str], name: str, default: str) -> str:
    """The last value sent under ``name`` (a hidden field then a tick box), else ``default``."""
    getlist = getattr(form, "getlist", None)
    values = getlist(name) if getlist is not None else [form[name]] if name in form else []
    return str(values[-1]) if values else default


def _int(text: str | None, default: int) -> int:
    try:
        return int(text or "")
    except ValueError:
        return default


def check_form(sheet: SetupForm, packs: Sequence[Pack]) -> Setup | None:
    """Fill ``sheet.errors``; return the Setup when the form is complete and valid."""
    v = sheet.values
    if v["language"] not in LANGUAGES:
        sheet.errors["language"] = _("Choose one of the languages offered.")
    if v["mode"] not in MODES:
        sheet.errors["mode"] = _("Choose how you draw and roll.")
    players = _check_players(sheet)
    _check_texts(sheet)
    keystones = _check_keystones(sheet)
    pack = _find_pack(sheet, packs)
    if sheet.errors or pack is None:
        return None
    return Setup(
        pioneer=v["pioneer"].strip(),
        people=v["people"].strip(),
        concept=v["concept"].strip(),
        players=players,
        oldest=_oldest_index(v),
        keystones=keystones,
        prompts=dict(pack.prompts),
        pack_name=pack.name,
        language=v["language"],
        mode=v["mode"],
        forgiving_undo=bool(v["forgiving_undo"]),
        show_writing=bool(v.get("show_writing", True)),
        lines=v["lines"].strip(),
        veils=v["veils"].strip(),
    )


def _oldest_index(v: Mapping[str, Any]) -> int:
    """The oldest player's index among the filled rows (empty rows are skipped)."""
    filled = [i for i, name in enumerate(v["players"]) if name.strip()]
    return filled.index(v["oldest"]) if v["oldest"] in filled else -1


def _check_players(sheet: SetupForm) -> tuple[str, ...]:
    names = [name.strip() for name in sheet.values["players"]]
    filled = tuple(name for name in names if name)
    if not filled:
        sheet.errors["players"] = _("Write at least one player's name (one player plays solo).")
    elif len({n.casefold() for n in filled}) < len(filled):
        sheet.errors["players"] = _(
            "Two players have the same name: add an initial to tell them apart."
        )
    elif any(len(n) > NAME_LIMIT for n in filled):
        sheet.errors["players"] = _(
            "A player's name is too long (at most %(n)s characters).", n=format_number(NAME_LIMIT)
        )
    elif _oldest_index(sheet.values) < 0:
        sheet.errors["oldest"] = _("Mark the oldest player: they take the very first turn.")
    return filled


def _check_texts(sheet: SetupForm) -> None:
    v = sheet.values
    if not v["pioneer"].strip():
        sheet.errors["pioneer"] = _("Give the Pioneer a name.")
    for name in ("pioneer", "people"):
        if len(v[name]) > NAME_LIMIT:
            sheet.errors[name] = _("At most %(n)s characters.", n=format_number(NAME_LIMIT))
    for name in ("concept", "lines", "veils"):
        if len(v[name]) > TEXT_LIMIT:
            sheet.errors[name] = _("At most %(n)s characters.", n=format_number(TEXT_LIMIT))


def _check_keystones(sheet: SetupForm) -> tuple[Keystone, ...]:
    keystones: list[Keystone] = []
    for kind in KINDS:
        number = 0
        for i, row in enumerate(sheet.values[kind]):
            name, description = row["name"].strip(), row["description"].strip()
            if not name and description:
                sheet.errors[f"{kind}-{i}"] = _(
                    "Give this keystone a name, or clear its description."
                )
            elif len(name) > NAME_LIMIT or len(description) > TEXT_LIMIT:
                sheet.errors[f"{kind}-{i}"] = _("This keystone's text is too long.")
            elif name:
                number += 1
                keystones.append(Keystone(f"{kind[0]}{number}", kind, name, description))
    return tuple(keystones)


def _find_pack(sheet: SetupForm, packs: Sequence[Pack]) -> Pack | None:
    v = sheet.values
    for pack in packs:
        if pack.name == v["pack"] and pack.language == v["language"]:
            return pack
    sheet.errors["pack"] = _("This prompt pack has no version in the chronicle's language.")
    return None
