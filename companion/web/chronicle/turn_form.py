"""Turn a play-page form into the rules core's commands.

A form may carry several decisions at once (choose the prompt, answer it, declare the stakes and
roll); they are decided in order and appended together, or not at all.
"""

from __future__ import annotations

from collections.abc import Mapping

from flask_babel import gettext as _
from flask_babel import ngettext

from companion.legacy import State
from companion.legacy.commands import (
    AcceptFailure,
    AnswerPrompt,
    BuildMark,
    ChoosePrompt,
    Command,
    DeclareStakes,
    DrawCard,
    NarrateSuccess,
    RecordLoss,
    RollDice,
    SacrificeKeystone,
    SpendToken,
    VeilPrompt,
    WriteEpilogue,
)

TEXT_FIELDS = (
    "question",
    "answer",
    "stakes_success",
    "stakes_failure",
    "narration",
    "mark_name",
    "mark_description",
    "why",
    "outcome",
    "loss_narration",
    "epilogue",
)

# Drafts hold the texts and the prompt chosen ("0", "1"... or "own"), so a reload keeps both.
DRAFT_FIELDS = (*TEXT_FIELDS, "prompt")


def draft_allowed(name: str, text: str, limit: int) -> bool:
    """Whether ``text`` may be kept as the draft of field ``name``."""
    if name == "prompt":
        return text == "own" or _prompt_number(text)
    return name in TEXT_FIELDS and len(text) <= limit


def _prompt_number(text: str) -> bool:
    """Whether ``text`` reads as a prompt's number: ASCII digits, a few of them (``int`` also
    reads other scripts' digits, and refuses thousands of digits with an error)."""
    return text.isascii() and text.isdigit() and len(text) <= 2


class FormError(ValueError):
    """A form the page cannot turn into commands (a missing choice, a malformed number)."""


def faces_from(form: Mapping[str, str], state: State) -> tuple[int, ...] | None:
    """The typed dice faces in table mode; None in digital mode (the app rolls)."""
    if state.setup.mode != "table":
        return None
    faces = []
    for i in range(state.dice):
        raw = form.get(f"face-{i}", "").strip()
        if not raw:
            raise FormError(
                ngettext(
                    "Enter the face of the die you rolled.",
                    "Enter the face of every die you rolled (%(num)d dice).",
                    state.dice,
                )
            )
        try:
            faces.append(int(raw))
        except ValueError:
            raise FormError(
                _("A die face is a number from 1 to 6, not “%(value)s”.", value=raw)
            ) from None
    return tuple(faces)


def commands_for(action: str, form: Mapping[str, str], state: State, seat: int) -> list[Command]:
    """The commands a submitted play-page form stands for."""
    builders = {
        "draw": _draw,
        "veil": _veil,
        "save": _compose,
        "roll": _compose,
        "reroll": _reroll,
        "narrate": _narrate,
        "mark": _mark,
        "sacrifice": _sacrifice,
        "token": _token,
        "accept": _accept,
        "loss": _loss_only,
        "epilogue": _epilogue,
    }
    if action.startswith("veil:"):
        action, index = "veil", action.partition(":")[2]
        form = {**form, "index": index}
    builder = builders.get(action)
    if builder is None:
        raise FormError(_("This page sent an action the companion does not know."))
    return builder(action, form, state, seat)


def _draw(_action: str, form: Mapping[str, str], state: State, seat: int) -> list[Command]:
    card = form.get("card", "").strip().upper() or None
    if state.setup.mode == "table" and card is None:
        raise FormError(_("Choose the card you drew from the real pile."))
    return [DrawCard(seat, card if state.setup.mode == "table" else None)]


def _veil(_action: str, form: Mapping[str, str], _state: State, seat: int) -> list[Command]:
    try:
        return [VeilPrompt(seat, int(form.get("index", "")))]
    except ValueError:
        raise FormError(_("Choose the prompt to hide.")) from None


def _compose(action: str, form: Mapping[str, str], state: State, seat: int) -> list[Command]:
    check = state.check
    commands: list[Command] = []
    choice = form.get("prompt", "")
    question = form.get("question", "").strip()
    if choice == "own" and question:
        if check is None or check.question is None or check.question.value != question:
            commands.append(ChoosePrompt(seat, None, question))
    elif _prompt_number(choice):
        if check is None or check.prompt_index != int(choice) or check.question is not None:
            commands.append(ChoosePrompt(seat, int(choice), None))
    elif choice == "own":
        raise FormError(_("Write your own question, or choose one of the card's prompts."))
    answer = form.get("answer", "")
    if answer.strip() and (check is None or check.answer is None or check.answer.value != answer):
        commands.append(AnswerPrompt(seat, answer))
    success, failure = form.get("stakes_success", ""), form.get("stakes_failure", "")
    if (success.strip() or failure.strip()) and _stakes_changed(state, success, failure):
        commands.append(DeclareStakes(seat, success, failure))
    if action == "roll":
        commands.append(RollDice(seat, faces_from(form, state)))
    return commands


def _stakes_changed(state: State, success: str, failure: str) -> bool:
    check = state.check
    if check is None or check.stakes_success is None or check.stakes_failure is None:
        return True
    return check.stakes_success.value != success or check.stakes_failure.value != failure


def _reroll(_action: str, form: Mapping[str, str], state: State, seat: int) -> list[Command]:
    return [RollDice(seat, faces_from(form, state))]


def _with_loss(form: Mapping[str, str], seat: int) -> list[Command]:
    keystone = form.get("loss_keystone", "").strip()
    if not keystone:
        return []
    return [RecordLoss(seat, keystone, form.get("loss_narration", ""))]


def _narrate(_action: str, form: Mapping[str, str], _state: State, seat: int) -> list[Command]:
    return [*_with_loss(form, seat), NarrateSuccess(seat, form.get("narration", ""))]


def _mark(_action: str, form: Mapping[str, str], _state: State, seat: int) -> list[Command]:
    mark = BuildMark(
        seat, form.get("mark_name", ""), form.get("mark_description", ""), form.get("narration", "")
    )
    return [*_with_loss(form, seat), mark]


def _sacrifice(_action: str, form: Mapping[str, str], state: State, seat: int) -> list[Command]:
    keystone = form.get("keystone", "").strip()
    if not keystone:
        raise FormError(_("Choose the keystone to sacrifice."))
    sacrifice = SacrificeKeystone(seat, keystone, form.get("why", ""), form.get("outcome", ""))
    return [sacrifice, RollDice(seat, faces_from(form, state))]


def _token(_action: str, form: Mapping[str, str], state: State, seat: int) -> list[Command]:
    return [SpendToken(seat), RollDice(seat, faces_from(form, state))]


def _accept(_action: str, form: Mapping[str, str], _state: State, seat: int) -> list[Command]:
    return [*_with_loss(form, seat), AcceptFailure(seat, form.get("narration", ""))]


def _loss_only(_action: str, form: Mapping[str, str], _state: State, seat: int) -> list[Command]:
    commands = _with_loss(form, seat)
    if not commands:
        raise FormError(_("Choose the keystone the story destroyed."))
    return commands


def _epilogue(_action: str, form: Mapping[str, str], _state: State, seat: int) -> list[Command]:
    return [WriteEpilogue(seat, form.get("epilogue", ""))]
