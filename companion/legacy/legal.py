"""``legal_commands``: the one source of what may happen next, for pages, API, bots and tests."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .cards import MAX_MARKS
from .model import State
from .undo import undoable


@dataclass(frozen=True)
class Legal:
    """A kind of command that ``decide`` accepts now, from ``seat`` (None: from any seat).

    ``kind`` is the command's kebab-case name (``DrawCard.kind`` is ``"draw-card"``); ``options``
    lists the choices the command may take (keystone ids, prompt indices, cards...).
    """

    kind: str
    seat: int | None
    options: Mapping[str, Any] = field(default_factory=dict)


def legal_commands(state: State) -> list[Legal]:
    """Every kind of command ``decide`` would accept in ``state``, with its options."""
    legal = _turn_commands(state) if state.end is None else _end_commands(state)
    if state.texts_written:
        legal.append(Legal("revise-text", None))
    target = undoable(state)
    if target is not None:
        seat = target.event.seat  # type: ignore[union-attr]
        options = {"target_seq": target.seq, "event": target.event.kind}
        legal.append(Legal("undo", seat, options))
    return legal


def _turn_commands(state: State) -> list[Legal]:
    step = state.step
    if step == "draw":
        return [_draw(state)]
    if step in ("choose", "answer"):
        return _compose(state, step)
    if step == "stakes":
        return [Legal("declare-stakes", state.seat), *_veil(state)]
    if step == "roll":
        return [_roll(state), *_veil(state)]
    if step == "reroll":
        return [_roll(state)]
    if step == "failure":
        return _failure(state)
    if step == "mark":
        number = len(state.marks) + 1
        options = {"number": number, "last": number == MAX_MARKS}
        return [Legal("build-mark", state.seat, options), *_loss(state)]
    return [Legal("narrate-success", state.seat), *_loss(state)]


def _roll(state: State) -> Legal:
    table = state.setup.mode == "table"
    return Legal("roll-dice", state.seat, {"dice": state.dice, "enter_faces": table})


def _draw(state: State) -> Legal:
    options: dict[str, Any] = {"pile": state.pile}
    if state.setup.mode == "table":
        options["cards"] = state.pile_cards(state.pile)
    return Legal("draw-card", state.seat, options)


def _compose(state: State, step: str) -> list[Legal]:
    check = state.check
    assert check is not None
    count = len(state.setup.prompts[check.card])
    open_ = tuple(index for index in range(count) if index not in check.veiled)
    legal = []
    if step == "choose":
        options = {"indices": open_, "own_question": not open_}
        legal.append(Legal("choose-prompt", state.seat, options))
    else:
        legal.append(Legal("answer-prompt", state.seat))
    return [*legal, *_veil(state)]


def _veil(state: State) -> list[Legal]:
    """Any seat may set aside an open prompt with the X-card, at any time before the roll."""
    check = state.check
    assert check is not None
    count = len(state.setup.prompts[check.card])
    open_ = tuple(index for index in range(count) if index not in check.veiled)
    return [Legal("veil-prompt", None, {"indices": open_})] if open_ else []


def _failure(state: State) -> list[Legal]:
    legal = []
    kind = state.sacrifice_kind()
    if kind is not None:
        ids = tuple(k.id for k in state.keystones if k.status == "kept" and k.kind == kind)
        legal.append(Legal("sacrifice-keystone", state.seat, {"kind": kind, "keystones": ids}))
    tokens = state.usable_tokens()
    if tokens:
        legal.append(Legal("spend-token", state.seat, {"tokens": tokens}))
    return [*legal, Legal("accept-failure", state.seat), *_loss(state)]


def _loss(state: State) -> list[Legal]:
    kept = tuple(k.id for k in state.keystones if k.status == "kept")
    return [Legal("record-loss", state.seat, {"keystones": kept})] if kept else []


def _end_commands(state: State) -> list[Legal]:
    return [] if state.epilogue is not None else [Legal("write-epilogue", None)]
