"""Words given back to the link that typed them: what a refused form carried, or a draft another
device's move overtook. While the turn still asks for them they fill its form again; otherwise
they stand beside the story with a one-click way in: instead of the recorded text, or after it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, flash, redirect, request, url_for
from flask_babel import format_number
from flask_babel import gettext as _

from companion.base.limits import TEXT_LIMIT
from companion.legacy import RuleError, State
from companion.legacy.commands import ReviseText
from companion.legacy.model import Text, TurningPoint
from companion.store import drafts
from companion.store.capabilities import Capability
from companion.store.db import get_db
from companion.store.events import StaleVersionError
from companion.streams import chronicles
from companion.web.chronicle.narrate import actor_of, describe_since
from companion.web.chronicle.opening import acting_seat, open_chronicle
from companion.web.chronicle.turn_form import TEXT_FIELDS
from companion.web.shell import streams
from companion.web.shell.access import require_write
from companion.web.shell.text_errors import rule_message

# Nested in the chronicle blueprint (``companion.web.chronicle``): ``/c/<token>/kept``.
bp = Blueprint("kept", __name__)

HOLDER_CHARS = 16
COMPOSE = frozenset({"prompt", "question", "answer", "stakes_success", "stakes_failure"})
LOSS = frozenset({"loss_narration", "loss_keystone"})
# The fields the forms of each step hold (the dice faces aside: every rolling step has them).
STEP_FIELDS: Mapping[str, frozenset[str]] = {
    **dict.fromkeys(("choose", "answer", "stakes", "roll"), COMPOSE),
    "success": frozenset({"narration"}) | LOSS,
    "mark": frozenset({"mark_name", "mark_description", "narration"}) | LOSS,
    "failure": frozenset({"keystone", "why", "outcome", "narration"}) | LOSS,
    "reroll": frozenset(),
}
ROLLING = frozenset({"choose", "answer", "stakes", "roll", "failure", "reroll"})
FACES = tuple(f"face-{i}" for i in range(6))
CHOICES = ("prompt", "keystone", "loss_keystone", *FACES)
# Texts that have a page of their own (the end page's epilogue): never offered on the table.
ELSEWHERE = frozenset({"epilogue"})


def holder(cap: Capability) -> str:
    """The mark a link's kept words and private drafts are filed under (not the token)."""
    return cap.token_hash[:HOLDER_CHARS]


def author(cap: Capability) -> str:
    """The author recorded beside the drafts this link types."""
    return drafts.author(actor_of(cap.role, cap.seat), holder(cap))


def too_long_message() -> str:
    """Why a text over the limit was refused, and what of it is kept (its start, to shorten)."""
    n = format_number(TEXT_LIMIT)
    return str(
        _(
            "A text may hold at most %(n)s characters: its first %(n)s are kept here."
            " Shorten it and send it again.",
            n=n,
        )
    )


def words_of(form: Mapping[str, str]) -> dict[str, str]:
    """The texts a form carried (every one not blank) and the choices made beside them."""
    words = {name: form[name] for name in TEXT_FIELDS if form.get(name, "").strip()}
    for name in CHOICES:
        value = form.get(name, "")
        if value and len(value) <= 8 and value.isascii() and value.isalnum():
            words[name] = value
    return words


def point_at(state: State, version: int) -> int:
    """The turning point a page made at ``version`` showed: the seq of its card's draw."""
    points = [*state.story, *([state.check] if state.check else [])]
    shown = [p.seq for p in points if p.seq <= version]
    if shown:
        return shown[-1]
    return points[-1].seq if points else 0


def keep_refused(chronicle: chronicles.Chronicle, cap: Capability, form: Any, seen: int) -> None:
    """Keep every text of a refused form for its link, with the turning point it was for.

    Only a form the link could write: an X-card pressed on another player's page sends that
    player's words, which are theirs (their drafts), not this link's."""
    words = words_of(form)
    if not any(name in TEXT_FIELDS for name in words):
        return
    point = point_at(chronicle.state, seen if seen >= 0 else chronicle.version)
    shown = find_point(chronicle.state, point)
    if shown is None or cap.may_act_for(shown.seat):
        drafts.keep(get_db(), chronicle.id, holder(cap), words, point)


def keep_late_draft(chronicle: chronicles.Chronicle, cap: Capability, name: str, text: str) -> None:
    """A draft that arrived after its turn moved on: kept for its link unless it is in the story."""
    if name not in TEXT_FIELDS or not text.strip():
        return
    point = point_at(chronicle.state, streams.posted_version(request.form))
    target = target_text(chronicle.state, point, name)
    if target is None or target.value != text:
        drafts.keep(get_db(), chronicle.id, holder(cap), {name: text}, point)


def typed_again(chronicle: chronicles.Chronicle, cap: Capability, name: str) -> None:
    """The link typed in a field its kept words were put back into: the newer text wins."""
    check = chronicle.state.check
    found = drafts.kept(get_db(), chronicle.id, holder(cap)).get(name)
    if found is not None and check is not None and found[1] == check.seq:
        drafts.drop_kept(get_db(), chronicle.id, holder(cap), [name])


def writable(state: State, name: str) -> bool:
    """Whether the turn's forms (or, once the life has ended, the end page's) hold field
    ``name`` now."""
    if name == "epilogue":
        return state.ended
    step = state.step
    return name in STEP_FIELDS.get(step, frozenset()) or (name in FACES and step in ROLLING)


@dataclass(frozen=True)
class KeptText:
    """Words shown beside the story: the field they were typed in, and the text they join."""

    field: str
    text: str
    target: Text | None
    point: TurningPoint | None = None  # the turning point the words were written for
    recent: bool = True  # for the turning point in play or the one before it


def find_point(state: State, seq: int | None) -> TurningPoint | None:
    """The turning point whose card was drawn at ``seq``."""
    points = [*state.story, *([state.check] if state.check else [])]
    return next((p for p in reversed(points) if p.seq == seq), None)


def target_text(state: State, point_seq: int | None, name: str) -> Text | None:
    """The recorded text that words typed in field ``name`` for that turning point belong to:
    that field's own, else the turning point's narration, else its answer."""
    point = find_point(state, point_seq)
    if point is None:
        return None
    sacrifices = [p for p in point.payments if p.why is not None]
    mark = state.marks[point.mark] if point.mark is not None else None
    own = {
        "question": point.question,
        "answer": point.answer,
        "stakes_success": point.stakes_success,
        "stakes_failure": point.stakes_failure,
        "narration": point.narration,
        "why": sacrifices[-1].why if sacrifices else None,
        "outcome": sacrifices[-1].outcome if sacrifices else None,
        "loss_narration": point.losses[-1].narration if point.losses else None,
        "mark_name": mark.name if mark else None,
        "mark_description": mark.description if mark else None,
    }.get(name)
    return own or point.narration or point.answer


def for_page(
    chronicle: chronicles.Chronicle, cap: Capability, can_act: bool
) -> tuple[dict[str, str], list[KeptText]]:
    """This link's kept words: those the turn's form takes again, and those shown beside it."""
    if not cap.can_write:
        return {}, []
    state = chronicle.state
    in_form: dict[str, str] = {}
    beside: list[KeptText] = []
    for name, (text, point) in drafts.kept(get_db(), chronicle.id, holder(cap)).items():
        same_turn = state.check is not None and point == state.check.seq and can_act
        target = target_text(state, point, name) if name in TEXT_FIELDS else None
        recorded = target is not None and target.value == text  # in the story already
        if same_turn and writable(state, name):
            if not recorded:
                in_form[name] = text
        elif name in TEXT_FIELDS and name not in ELSEWHERE and not recorded:
            shown = find_point(state, point)
            beside.append(KeptText(name, text, target, shown, _recent(state, point)))
    if not any(name in TEXT_FIELDS for name in in_form):
        # The words of a refused press are all in the story: another device made that very
        # move. Its choices (a keystone, dice faces) were for that move, not the next one.
        in_form = {}
    return in_form, sorted(beside, key=lambda k: TEXT_FIELDS.index(k.field))


def _recent(state: State, point_seq: int | None) -> bool:
    """Whether words for that turning point are still news: it is in play, or just closed.
    Older kept words fold away beside the table (they stay until used or let go)."""
    points = [*state.story, *([state.check] if state.check else [])]
    return point_seq is None or point_seq in [p.seq for p in points[-2:]]


def sent(chronicle: chronicles.Chronicle, cap: Capability, form: Mapping[str, str]) -> None:
    """After a move: the kept words it sent are in the story; drafts of those fields that other
    links typed differently are handed back to them; then the drafts are cleared."""
    state, db = chronicle.state, get_db()
    fields = [name for name in (*TEXT_FIELDS, *CHOICES) if name in form]
    point = point_at(state, chronicle.version)
    texts = {name: form[name] for name in fields if name in TEXT_FIELDS}
    drafts.hand_back(db, chronicle.id, state.turn_no, texts, holder(cap), point)
    drafts.clear_turn(db, chronicle.id, state.turn_no, fields)
    drafts.drop_kept(db, chronicle.id, holder(cap), fields)


@bp.post("/kept")
def put_kept(token: str) -> streams.Refusal:
    """Put kept words into the story (instead of the recorded text, or after it), or let them go."""
    cap, chronicle = open_chronicle(token)
    require_write(cap)
    form, db, mark = request.form, get_db(), holder(cap)
    words = drafts.kept(db, chronicle.id, mark)
    name, how = form.get("field", ""), form.get("how", "")
    back = url_for("chronicle.play", token=token, _anchor="kept")
    if name not in words:
        flash(_("These words are no longer kept here."), "error")
        return redirect(back, streams.SEE_OTHER)
    text, point = form.get(f"kept_{name}", words[name][0]), words[name][1]
    if how == "drop":
        drafts.drop_kept(db, chronicle.id, mark, [name])
        flash(_("The words were let go."), "success")
        return redirect(back, streams.SEE_OTHER)
    drafts.keep(db, chronicle.id, mark, {name: text}, point)  # as edited, kept first
    target = target_text(chronicle.state, point, name)
    if target is None or how not in ("replace", "add"):
        return streams.refuse(
            _("There is no text in the story to put these words with."), 400, back
        )
    if streams.is_stale(form, chronicle.version):
        seen = streams.posted_version(form)
        return streams.stale(describe_since(chronicle, seen), chronicle.version, back)
    value = text if how == "replace" else f"{target.value.rstrip()}\n\n{text.lstrip()}"
    command = ReviseText(acting_seat(cap, chronicle), target.seq, target.field, value)
    try:
        actor = actor_of(cap.role, cap.seat)
        chronicles.execute(
            db,
            chronicle,
            [command],
            actor=actor,
            then=lambda _state: drafts.drop_kept(db, chronicle.id, mark, [name]),
        )
    except RuleError as err:
        return streams.refuse(rule_message(err), 400, back)
    except StaleVersionError:
        latest = chronicles.load(db, chronicle.id)
        return streams.stale(describe_since(latest, chronicle.version), latest.version, back)
    flash(_("Your words are in the story; the earlier text stays in its history."), "success")
    return redirect(url_for("chronicle.play", token=token), streams.SEE_OTHER)
