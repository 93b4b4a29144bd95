"""How much one chronicle may hold, and how fast its texts may be corrected: one chronicle can't
grow until it costs the whole server, and every chronicle stays exportable and importable.

The numbers' defaults live with every other bound (``companion/base/bounds.py``); the backup's
import limits are worked out here from them (``backup_bytes``, ``backup_values``), so a
chronicle at its limits always imports again. Settings (each also
``COMPANION_<NAME>`` in the environment):

- ``CHRONICLE_MAX_EVENTS`` (10,000): events in one chronicle, corrections and undos included.
- ``CHRONICLE_MAX_BYTES`` (16 MiB): the stored JSON of its events, in UTF-8 bytes, with its
  drafts and kept words (``companion.store.drafts``).
- ``CORRECTIONS_PER_TEXT`` (50): corrections of one text (every earlier version is kept).
- ``CORRECTIONS_PER_MINUTE`` (30): corrections of one chronicle's texts in any minute.

The two limits on corrections are the server's, for what people send it; a tool run outside
the app (a benchmark, a script replaying a backup) is held to the sizes only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from companion.base import bounds
from companion.legacy import RuleError, State
from companion.legacy.commands import Command, ReviseText
from companion.legacy.errors import N_
from companion.legacy.texts import find_text
from companion.store.events import Limits as StreamLimits
from companion.store.sql import Database

MiB = 1024 * 1024
SETTINGS = (
    "CHRONICLE_MAX_EVENTS",
    "CHRONICLE_MAX_BYTES",
    "CORRECTIONS_PER_TEXT",
    "CORRECTIONS_PER_MINUTE",
)
DEFAULTS = {name: int(bounds.default(name)) for name in SETTINGS}  # written in base/bounds.py
# What a backup adds to its events' stored JSON: per event at most the indentation of its
# fields, the ``{"seq": n, "event": ...}`` around it and a withdrawn roll's entry; once, the
# header and the indentation of the setup and the shuffled piles. Measured at 62 to 145 bytes
# an event and 3.3 KiB once, and pinned, by tests/test_chronicle_limits.py.
BACKUP_PER_EVENT = 256
BACKUP_FIXED = 64 * 1024
# Keys and values (JSON's own: objects, lists, texts, numbers) a backup holds: per event at
# most its own, the ``{"seq": n, "event": ...}`` around it and a withdrawn roll's entry; once,
# the header and the set-up with its prompt pack and shuffled piles. Measured at 14 to 36 an
# event and 360 to 630 once (eight players, a pack of four prompts a card), and pinned, by
# tests/test_chronicle_limits.py. An import counts them before it parses anything: the parse of
# a file of millions of empty objects took a worker's whole CPU for half a minute.
BACKUP_VALUES_PER_EVENT = 48
BACKUP_VALUES_FIXED = 4096


@dataclass(frozen=True)
class Limits:
    """The limits one chronicle lives under."""

    events: int
    nbytes: int
    corrections_per_text: int | None = None  # None: not counted (outside the app)
    corrections_per_minute: int | None = None

    @property
    def stream(self) -> StreamLimits:
        """What the store checks on every append."""
        return StreamLimits(self.events, self.nbytes)

    def sizes_only(self) -> Limits:
        """These limits without the ones on corrections."""
        return Limits(self.events, self.nbytes)


def from_settings(config: Mapping[str, Any] | None = None) -> Limits:
    """The limits the settings give (the app's, when none are given and an app is running)."""
    if config is None:
        from flask import current_app, has_app_context

        if not has_app_context():
            return from_settings({}).sizes_only()
        config = current_app.config
    value = {name: int(config.get(name, default)) for name, default in DEFAULTS.items()}
    return Limits(
        value["CHRONICLE_MAX_EVENTS"],
        value["CHRONICLE_MAX_BYTES"],
        value["CORRECTIONS_PER_TEXT"],
        value["CORRECTIONS_PER_MINUTE"],
    )


def backup_bytes(limits: Limits) -> int:
    """The largest backup file of a chronicle within ``limits``: what an import accepts."""
    return limits.nbytes + limits.events * BACKUP_PER_EVENT + BACKUP_FIXED


def backup_values(limits: Limits) -> int:
    """The most keys and values a backup of a chronicle within ``limits`` holds."""
    return limits.events * BACKUP_VALUES_PER_EVENT + BACKUP_VALUES_FIXED


class LimitError(RuleError):
    """A command refused because the chronicle is at one of its limits (nothing is written)."""


def full(what: str, limits: Limits) -> LimitError:
    """The refusal of an append that would take the chronicle past its limit of ``what``."""
    if what == "events":
        message = N_(
            "This chronicle is full: it may hold at most %(limit)d events, so that its backup"
            " can always be imported again. Its story stays as it is; start a new chronicle"
            " to go on."
        )
        return LimitError("chronicle-full", message, "limits", limit=limits.events)
    message = N_(
        "This chronicle is full: its texts may take at most %(megabytes)d MB, so that its"
        " backup can always be imported again. Send a shorter text, or start a new chronicle."
    )
    return LimitError("chronicle-full", message, "limits", megabytes=max(1, limits.nbytes // MiB))


def check_corrections(
    db: Database, stream_id: str, state: State, commands: Sequence[Command], limits: Limits
) -> None:
    """Refuse corrections of a text corrected too often, or too many in the last minute."""
    revisions = [c for c in commands if isinstance(c, ReviseText)]
    if not revisions:
        return
    counts: dict[tuple[int, str], int] = {}
    for command in revisions:
        if limits.corrections_per_text is None:
            break
        key = (command.target_seq, command.field)
        text = find_text(state, command.target_seq, command.field)
        counts[key] = counts.get(key, len(text.revisions) if text else 0) + 1
        if counts[key] > limits.corrections_per_text:
            raise LimitError(
                "text-corrected-enough",
                N_(
                    "This text was corrected %(limit)d times, the most one text may be; every"
                    " earlier version stays in its history."
                ),
                "limits",
                limit=limits.corrections_per_text,
            )
    if limits.corrections_per_minute is None:
        return
    if _corrected_lately(db, stream_id, limits.corrections_per_minute - len(revisions) + 1):
        raise LimitError(
            "corrections-too-fast",
            N_(
                "At most %(limit)d corrections a minute: wait a moment, then send it again."
                " Your text is kept."
            ),
            "limits",
            limit=limits.corrections_per_minute,
        )


def _corrected_lately(db: Database, stream_id: str, nth: int) -> bool:
    """Whether the ``nth`` newest correction of the stream was made in the last minute."""
    if nth <= 0:
        return True
    since = (datetime.now(UTC) - timedelta(minutes=1)).isoformat(timespec="milliseconds")
    row = db.execute(
        "SELECT created FROM events WHERE stream_id = ? AND type = 'text-revised'"
        " ORDER BY seq DESC LIMIT 1 OFFSET ?",
        [stream_id, nth - 1],
    ).fetchone()
    return row is not None and str(row[0]) >= since
