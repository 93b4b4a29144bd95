"""JSON projections for the API: a chronicle's state as one link may see it, its story, exports.

This is the API's ``view``: the only code that turns a ``State`` into JSON. Hidden information
stays out: in digital mode the draw piles are shuffled and their order is secret, so only the
number of cards left in each pile is sent. In table mode the piles are the group's real deck,
unshuffled, and the cards left in the current pile are listed (the player picks the one drawn).
"""

from __future__ import annotations

import sys
from typing import Any

from flask import Response, current_app, jsonify, url_for

from companion.export import jobs
from companion.export.editions import parse_layout
from companion.legacy import PILES, STAGES, Legal, State, legal_commands
from companion.legacy.codec import encode
from companion.legacy.model import KeystoneState, Mark, Payment, Roll, Text, TurningPoint
from companion.legacy.setup import Setup
from companion.store.capabilities import Capability
from companion.streams.chronicles import Chronicle
from companion.text.story import story_chapters
from companion.web.chronicle import export_view

JSON = dict[str, Any]


def state_answer(chronicle: Chronicle, cap: Capability) -> Response:
    """``state_json`` as the API answers it, encoded once per version and kind of link: what
    the command that made a version answers is what every later ask of that state gets, from
    the page cache (the state holds no link and no language)."""
    key = ("state-json", chronicle.id, chronicle.version, cap.role, cap.seat, cap.can_write)
    cache = current_app.extensions["companion.render_cache"]
    body = cache.get(key)
    if not isinstance(body, bytes):
        body = jsonify(state_json(chronicle, cap)).get_data()
        cache.put(key, body, sys.getsizeof(body))
    return Response(body, mimetype="application/json")


def state_json(chronicle: Chronicle, cap: Capability) -> JSON:
    """The chronicle's state for the holder of ``cap``: never the order of a shuffled pile."""
    state = chronicle.state
    return {
        "id": chronicle.id,
        "title": chronicle.title,
        "version": chronicle.version,
        **setup_json(state.setup),
        **position_json(state),
        "piles": piles_json(state),
        "keystones": [keystone_json(k) for k in state.keystones],
        "tokens": {"count": len(state.tokens), "usable": state.usable_tokens()},
        "marks": [mark_json(m, state.setup) for m in state.marks],
        "check": _check_json(state),
        "epilogue": text_json(state.epilogue),
        "legal": [legal_json(legal, cap) for legal in legal_commands(state)],
        "you": you_json(cap, state),
    }


def setup_json(setup: Setup) -> JSON:
    """What was fixed at setup, except the prompt pack's snapshot."""
    return {
        "pioneer": {"name": setup.pioneer, "people": setup.people, "concept": setup.concept},
        "players": [
            {"seat": seat, "name": name, "oldest": seat == setup.oldest}
            for seat, name in enumerate(setup.players)
        ],
        "language": setup.language,
        "mode": setup.mode,
        "pack": setup.pack_name,
        "forgiving_undo": setup.forgiving_undo,
        "show_writing": setup.show_writing,
        "lines": setup.lines,
        "veils": setup.veils,
    }


def position_json(state: State) -> JSON:
    """Where the life stands: phase and step, stage, round, turn and whose turn it is."""
    return {
        "phase": state.phase,
        "step": state.step,
        "ended": state.ended,
        "end": state.end,
        "stage": stage_json(state.stage),
        "round": state.round,
        "turn": state.turn,
        "turn_no": state.turn_no,
        "seat": state.seat,
        "player": state.player,
        "first_seat": state.first_seat,
        "pile": state.pile,
    }


def stage_json(index: int) -> JSON:
    """A life stage: its order, key, suit, dice per check and the suggested human age."""
    stage = STAGES[index]
    return {
        "index": stage.index,
        "key": stage.key,
        "suit": stage.suit,
        "dice": stage.dice,
        "age": stage.age,
    }


def piles_json(state: State) -> list[JSON]:
    """How many cards each pile holds; in table mode, also the current pile's cards."""
    piles = []
    for name in PILES:
        entry: JSON = {"pile": name, "count": len(state.pile_cards(name))}
        if state.setup.mode == "table" and name == state.pile and not state.ended:
            entry["cards"] = sorted(state.pile_cards(name))
        piles.append(entry)
    return piles


def text_json(text: Text | None) -> JSON | None:
    """A text a player wrote, with what ``revise-text`` needs to correct it and its history."""
    if text is None:
        return None
    return {"text": text.value, "seq": text.seq, "field": text.field, "earlier": list(text.earlier)}


def keystone_json(keystone: KeystoneState) -> JSON:
    """A keystone and what became of it."""
    return {
        "id": keystone.id,
        "kind": keystone.kind,
        "name": keystone.keystone.name,
        "description": keystone.keystone.description,
        "status": keystone.status,
        "stage": keystone.stage,
        "round": keystone.round,
        "seq": keystone.seq,
        "why": text_json(keystone.why),
        "outcome": text_json(keystone.outcome),
        "narration": text_json(keystone.narration),
    }


def mark_json(mark: Mark, setup: Setup) -> JSON:
    """A legacy mark with its name, description and who built it when."""
    return {
        "number": mark.number,
        "name": text_json(mark.name),
        "description": text_json(mark.description),
        "stage": mark.stage,
        "round": mark.round,
        "seat": mark.seat,
        "player": setup.players[mark.seat],
        "age": mark.age,
        "seq": mark.seq,
    }


def turning_point_json(point: TurningPoint, setup: Setup) -> JSON:
    """One check: card, chosen prompt, every text, rolls (and those taken back), payments,
    losses and outcome."""
    return {
        "stage": point.stage,
        "round": point.round,
        "turn": point.turn,
        "seat": point.seat,
        "player": setup.players[point.seat],
        "pile": point.pile,
        "card": point.card,
        "seq": point.seq,
        "veiled": list(point.veiled),
        "prompt_index": point.prompt_index,
        "prompt": point.prompt,
        "question": text_json(point.question),
        "answer": text_json(point.answer),
        "stakes": {
            "success": text_json(point.stakes_success),
            "failure": text_json(point.stakes_failure),
        },
        "rolls": [roll_json(r) for r in point.rolls],
        "withdrawn": [roll_json(r) for r in point.withdrawn],
        "payments": [payment_json(p) for p in point.payments],
        "losses": [
            {"keystone": loss.keystone, "narration": text_json(loss.narration), "seq": loss.seq}
            for loss in point.losses
        ],
        "outcome": point.outcome,
        "narration": text_json(point.narration),
        "mark": point.mark,
    }


def roll_json(roll: Roll) -> JSON:
    """One roll: its faces, whether it succeeded, whether it was a paid reroll, its event."""
    return {
        "faces": list(roll.faces),
        "success": roll.success,
        "reroll": roll.reroll,
        "seq": roll.seq,
    }


def payment_json(payment: Payment) -> JSON:
    """What paid for a reroll: a sacrifice with its two answers, or a token."""
    return {
        "kind": payment.kind,
        "seq": payment.seq,
        "keystone": payment.keystone,
        "why": text_json(payment.why),
        "outcome": text_json(payment.outcome),
    }


def _check_json(state: State) -> JSON | None:
    """The open check, with the card's prompts that are not veiled (a veiled one is never sent)."""
    check = state.check
    if check is None:
        return None
    prompts = [
        {"index": index, "text": text}
        for index, text in enumerate(state.setup.prompts[check.card])
        if index not in check.veiled
    ]
    return {**turning_point_json(check, state.setup), "prompts": prompts}


def legal_json(legal: Legal, cap: Capability) -> JSON:
    """A command the rules accept now, its options, and whether this link may issue it."""
    yours = cap.can_write and (legal.seat is None or cap.may_act_for(legal.seat))
    return {
        "type": legal.kind,
        "seat": legal.seat,
        "options": encode(dict(legal.options)),
        "yours": yours,
    }


def you_json(cap: Capability, state: State) -> JSON:
    """The link's role, its seat (None for the host and readers) and whether it may act now."""
    return {
        "role": cap.role,
        "seat": cap.seat if cap.role == "seat" else None,
        "can_act": cap.can_write and cap.may_act_for(state.seat),
    }


def story_json(chronicle: Chronicle) -> JSON:
    """The story log: chapters per stage with every turning point, the marks and the epilogue."""
    state = chronicle.state
    setup = state.setup
    return {
        "id": chronicle.id,
        "title": chronicle.title,
        "version": chronicle.version,
        "pioneer": {"name": setup.pioneer, "people": setup.people, "concept": setup.concept},
        "players": list(setup.players),
        "ended": state.ended,
        "end": state.end,
        "chapters": [
            {
                "stage": stage_json(chapter.stage.index),
                "turning_points": [turning_point_json(p, setup) for p in chapter.turning_points],
                "marks": [m.number for m in chapter.marks],
                "fallen": [k.id for k in chapter.fallen],
            }
            for chapter in story_chapters(state)
        ],
        "keystones": [keystone_json(k) for k in state.keystones],
        "marks": [mark_json(m, setup) for m in state.marks],
        "tokens": {"count": len(state.tokens), "usable": state.usable_tokens()},
        "epilogue": text_json(state.epilogue),
    }


def export_job_json(token: str, job: jobs.Job) -> JSON:
    """A book (PDF or EPUB) being made, or made: progress, a sentence, and where to fetch it."""
    shown = export_view.describe(token, job)
    done = shown["status"] == "done"
    return {
        "id": job.id,
        "format": parse_layout(job.layout).format,
        "layout": job.layout,
        "version": job.version,
        "edition": job.edition,
        "paper": job.paper,
        "status": shown["status"],
        "progress": job.progress,
        "page": job.page,
        "message": shown["message"],
        "status_url": url_for("api.exports.export_status", token=token, job=job.id),
        "file_url": url_for("api.exports.export_file", token=token, job=job.id) if done else None,
    }


def export_file_json(chronicle: Chronicle, fmt: str, edition: str, content: str) -> JSON:
    """A Markdown story or a JSON backup, made at once: its text and how to save it."""
    types = {"md": "text/markdown; charset=utf-8", "json": "application/json; charset=utf-8"}
    return {
        "format": fmt,
        "version": chronicle.version,
        "edition": edition if fmt == "md" else None,
        "status": "done",
        "content_type": types[fmt],
        "content": content,
    }
