"""gunicorn's own log lines (``gunicorn.error``, ``gunicorn.access``) cleaned like the app's.

gunicorn installs its handlers itself, after the app has configured logging; this logger class
gives each of them the app's filter and formatter (``companion.base.logs``), so a line such as
"Error handling request /c/<token>/" carries the link's public id and the app's format.
"""

from __future__ import annotations

from typing import Any

from gunicorn import glogging

from companion.base import logs


class Logger(glogging.Logger):  # type: ignore[misc]
    """gunicorn's logger, its handlers dressed by ``companion.base.logs``."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        kind = logs.configured_format()
        for log in (self.error_log, self.access_log):
            for handler in log.handlers:
                logs.dress(handler, kind)
