"""What one visitor may make a server hold: every bound per link and per client address, here.

One client (a link, or an address with no link at all) must never cost the server what every
client shares: connections, live feeds, kernel buffers, memory, CPU, disk, rows, log bytes.
Each such resource has a bound in this table, with its setting (``COMPANION_<NAME>`` in the
environment, or ``instance/config.py``) and its default; ``docs/server.md`` lists the same table
("What one visitor may hold") and a test keeps the two alike. Pure Python with no Flask, so
every layer reads the same numbers.

Counts kept in memory (the live feeds, the rate limits with the default ``memory://``
storage) are each server process's own: with gunicorn's two workers a client may hold up to
twice a figure, never more.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.base.settings import SettingError


@dataclass(frozen=True)
class Bound:
    """One bound: its setting, its default, what it counts and for whom."""

    setting: str
    default: int | float | str
    meaning: str


BOUNDS: tuple[Bound, ...] = (
    Bound(
        "RATELIMIT_CREATE",
        30,
        "new chronicles, tables, demo copies, imports and prompt pack uploads per address,"
        " per 10 minutes",
    ),
    Bound("RATELIMIT_GUESS", 60, "links that open nothing, per address, per 10 minutes"),
    Bound("RATELIMIT_EXPORT", 60, "exports per address and per link, per 10 minutes"),
    Bound(
        "RATELIMIT_REFUSED",
        20,
        "refused imports and refused set-up and lobby forms per address, per 10 minutes",
    ),
    Bound("RATELIMIT_DRAFTS", "5 per second", "drafts saved per link"),
    Bound("STREAMS_PER_LINK", 16, "live feeds open at once on one link, per server process"),
    Bound(
        "STREAMS_PER_ADDRESS",
        32,
        "live feeds open at once from one client address, per server process",
    ),
    Bound(
        "STREAM_WRITE_SECONDS",
        30,
        "seconds one write to a live feed may wait for its client to read, then it is closed",
    ),
    Bound("STREAM_SEND_BYTES", 64 * 1024, "bytes the kernel may queue for one live feed"),
    Bound("STREAM_PART_SECONDS", 0.5, "seconds at least between two events of one live feed"),
    Bound(
        "CHRONICLE_MAX_EVENTS",
        10_000,
        "events one chronicle holds, corrections and undos included (a whole life is about 220)",
    ),
    Bound(
        "CHRONICLE_MAX_BYTES",
        16 * 1024 * 1024,
        "bytes (UTF-8) one chronicle's events, drafts and kept words take together",
    ),
    Bound("CORRECTIONS_PER_TEXT", 50, "corrections of one text of a chronicle"),
    Bound("CORRECTIONS_PER_MINUTE", 30, "corrections of one chronicle's texts in any minute"),
    Bound("HELD_FORM_BYTES", 256 * 1024, "bytes one refused set-up or lobby form is kept with"),
    Bound("KEPT_PER_LINK", 32, "texts kept for one link of a chronicle (its kept words)"),
)
_BY_SETTING = {bound.setting: bound for bound in BOUNDS}


def default(setting: str) -> Any:
    """The default of the bound ``setting``."""
    return _BY_SETTING[setting].default


class BoundSettingError(SettingError):
    """A bound's setting that is not a positive number (or, for a rate, a ``limits`` string)."""


def value(config: Mapping[str, Any], setting: str) -> Any:
    """The bound ``setting`` as configured, else its default."""
    return config.get(setting, _BY_SETTING[setting].default)


def number(config: Mapping[str, Any], setting: str) -> float:
    """A bound that is a number: as configured (checked when the app starts), else its default."""
    return float(value(config, setting))


def whole(config: Mapping[str, Any], setting: str) -> int:
    """A bound that is a whole number."""
    return int(value(config, setting))


def check(config: Mapping[str, Any]) -> None:
    """Raise BoundSettingError, in one line naming the setting, for a value no bound can take
    (a rate's ``limits`` string is read by the rate limits when the app starts)."""
    for bound in BOUNDS:
        given = config.get(bound.setting, bound.default)
        if _fits(bound, given):
            continue
        kind = "number" if isinstance(bound.default, float) else "whole number"
        rate = " or a limits string" if isinstance(bound.default, str) or _rate(bound) else ""
        raise BoundSettingError(
            f"The setting {bound.setting} (COMPANION_{bound.setting}) must be a positive"
            f" {kind}{rate}, not {given!r}"
            f" (the default is {bound.default!r})"
        )


def _rate(bound: Bound) -> bool:
    return bound.setting.startswith("RATELIMIT_")


def _fits(bound: Bound, given: Any) -> bool:
    if isinstance(given, bool) or not isinstance(given, int | float | str):
        return False
    if isinstance(given, str):
        return _rate(bound) and bool(given.strip())
    if given <= 0:
        return False
    return isinstance(bound.default, float) or float(given).is_integer()
