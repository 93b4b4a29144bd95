"""Every setting an operator gives, parsed in one place, each mistake refused in one sentence.

A setting comes from ``<instance>/config.py`` or from ``COMPANION_<NAME>`` in the environment,
where a value is read as JSON when it parses as JSON (``true``, ``3``, ``["a.example"]``) and
as text otherwise (``yes``, ``one``). ``check`` turns each value into the type the code reads,
or raises ``SettingError`` naming the setting, what it takes and what it was given, so a
mistake answers with one line (``companion`` exits with status 2) rather than a traceback from
whichever module first read it. A setting not named here is Flask's or a library's own.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

TRUE_WORDS = ("true", "yes", "on", "1")
FALSE_WORDS = ("false", "no", "off", "0")
LOG_FORMATS = ("text", "json")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
RATELIMIT_STRATEGIES = ("moving-window", "fixed-window", "sliding-window-counter")


class SettingError(ValueError):
    """A setting holds a value the companion cannot use; the message is one sentence."""


@dataclass(frozen=True)
class Setting:
    """One setting: its name, what it takes (in words) and the parser that checks it."""

    name: str
    takes: str
    parse: Callable[[Any], Any]


def boolean(value: Any) -> bool:
    """``true/false/yes/no/on/off/1/0`` (any case) or a JSON boolean; anything else is refused."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
    raise ValueError(value)


def whole(low: int, high: int | None = None) -> Callable[[Any], int]:
    """A parser for a whole number from ``low`` to ``high`` (no upper bound when None)."""

    def parse(value: Any) -> int:
        if isinstance(value, bool):
            raise ValueError(value)
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value)
        if not isinstance(value, int) or value < low or (high is not None and value > high):
            raise ValueError(value)
        return value

    return parse


def seconds(value: Any) -> float:
    """A positive number of seconds."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ValueError(value)
    return float(value) if isinstance(value, float) else value


def seconds_or_zero(value: Any) -> float:
    """A number of seconds, 0 included."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ValueError(value)
    return float(value) if isinstance(value, float) else value


def one_of(
    choices: tuple[str, ...], fold: Callable[[str], str] = str.lower
) -> Callable[[Any], str]:
    """A parser taking one of ``choices`` (compared after ``fold``)."""

    def parse(value: Any) -> str:
        if isinstance(value, str) and fold(value.strip()) in choices:
            return fold(value.strip())
        raise ValueError(value)

    return parse


def base_url(value: Any) -> str | None:
    """``scheme://host[:port]`` without a trailing slash; empty or None is no base URL."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ValueError(value)
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
        raise ValueError(value)
    if parts.query or parts.fragment:
        raise ValueError(value)
    return f"{parts.scheme}://{parts.netloc}"


def web_address(value: Any) -> str | None:
    """An ``http(s)://`` address with a host (any path); empty or None is none."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ValueError(value)
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(value)
    return value


def host_names(value: Any) -> list[str] | None:
    """A list of host names (JSON), or None for the server's own names."""
    if value is None:
        return None
    if isinstance(value, str):  # one name, given as plain text
        value = [value]
    if not isinstance(value, list | tuple) or not all(
        isinstance(name, str) and name.strip() for name in value
    ):
        raise ValueError(value)
    return [str(name).strip() for name in value]


def rate(value: Any) -> int | str:
    """A count per 10 minutes, or a ``limits`` string such as ``30 per 10 minutes``."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    if isinstance(value, str):
        from limits import parse

        try:
            parse(value)
        except ValueError:
            raise ValueError(value) from None
        return value
    raise ValueError(value)


def text_or_none(value: Any) -> str | None:
    """Any text (a token, an address); None or empty is unset."""
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ValueError(value)
    return str(value)


_BOOL = "true or false (also yes/no, on/off, 1/0)"
SETTINGS: tuple[Setting, ...] = (
    Setting("BASE_URL", "an address like https://host[:port]", base_url),
    Setting(
        "TRUSTED_HOSTS", 'a JSON list of host names, like ["companion.example.org"]', host_names
    ),  # fmt: skip
    Setting("PROXY_HOPS", "a whole number from 0 to 5", whole(0, 5)),
    Setting("PROXY_PREFIX", "a whole number from 0 to 5", whole(0, 5)),
    Setting("LOG_FORMAT", "text or json", one_of(LOG_FORMATS)),
    Setting("LOG_LEVEL", "one of " + ", ".join(LOG_LEVELS), one_of(LOG_LEVELS, str.upper)),
    Setting("ACCESS_LOG", _BOOL, boolean),
    Setting("TRUST_REQUEST_ID", _BOOL, boolean),
    Setting("SESSION_COOKIE_SECURE", _BOOL, boolean),
    Setting("CSP_ENABLED", _BOOL, boolean),
    Setting("RATELIMIT_ENABLED", _BOOL, boolean),
    Setting("RATELIMIT_CREATE", "a number per 10 minutes or text like '30 per 10 minutes'", rate),
    Setting("RATELIMIT_GUESS", "a number per 10 minutes or text like '60 per 10 minutes'", rate),
    Setting("RATELIMIT_EXPORT", "a number per 10 minutes or text like '60 per 10 minutes'", rate),
    Setting(
        "RATELIMIT_STRATEGY",
        "one of " + ", ".join(RATELIMIT_STRATEGIES),
        one_of(RATELIMIT_STRATEGIES),
    ),  # fmt: skip
    Setting("METRICS_TOKEN", "a text", text_or_none),
    Setting("SOURCE_URL", "an address like https://host/path", web_address),
    Setting("EXPORT_WORKERS", "a whole number from 0 to 16", whole(0, 16)),
    Setting("EXPORT_TIME_LIMIT", "a number of seconds above 0", seconds),
    Setting("EXPORT_PART_PAGES", "a whole number of pages (0: never in parts)", whole(0)),
    Setting("EXPORTS_MAX_BYTES", "a number of bytes (0 or more)", whole(0)),
    Setting("EXPORT_QUEUE_PER_STREAM", "a whole number from 2 to 1000", whole(2, 1000)),
    Setting("RENDER_CACHE_BYTES", "a number of bytes (0 or more)", whole(0)),
    Setting("REPLAY_BYTES", "a number of bytes (0 or more)", whole(0)),
    Setting("SHARED_RENDER_BYTES", "a number of bytes (0: off)", whole(0)),
    Setting("AHEAD_PAGES", "a whole number from 0 to 64 (0: off)", whole(0, 64)),
    Setting("MAX_CONTENT_LENGTH", "a number of bytes above 0", whole(1)),
    Setting("CHRONICLE_MAX_EVENTS", "a whole number above 0", whole(1)),
    Setting("CHRONICLE_MAX_BYTES", "a number of bytes above 0", whole(1)),
    Setting("CORRECTIONS_PER_TEXT", "a whole number above 0", whole(1)),
    Setting("CORRECTIONS_PER_MINUTE", "a whole number above 0", whole(1)),
    Setting("PACKS_MAX", "a whole number above 0", whole(1)),
    Setting("PACKS_PER_CLIENT", "a whole number above 0", whole(1)),
    Setting(
        "HEALTH_PROBE_SECONDS", "a number of seconds (0: every check writes)", seconds_or_zero
    ),  # fmt: skip
)
BY_NAME = {setting.name: setting for setting in SETTINGS}


def refusal(name: str, value: Any) -> SettingError:
    """The one-sentence refusal of ``value`` for the setting ``name``."""
    setting = BY_NAME[name]
    return SettingError(
        f"The setting {name} (COMPANION_{name}) must be {setting.takes}, not {value!r}."
    )


def check(config: MutableMapping[str, Any]) -> None:
    """Replace each known setting in ``config`` by its parsed value; SettingError on a mistake."""
    for setting in SETTINGS:
        if setting.name not in config:
            continue
        value = config[setting.name]
        try:
            config[setting.name] = setting.parse(value)
        except ValueError:
            raise refusal(setting.name, value) from None
