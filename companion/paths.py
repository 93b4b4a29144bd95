"""Where the app finds its files and keeps its data, in a checkout and when installed.

A checkout serves the top-level ``templates/`` and ``static/`` and keeps its data in
``instance/``. An installed package (a wheel) carries copies of both folders in
``companion/_bundle/`` and keeps its data in ``COMPANION_INSTANCE`` or the user's data folder,
never beside the code, which may be a read-only virtualenv.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parent
BUNDLE = PACKAGE / "_bundle"
APP_NAME = "ijinsho-companion"


@dataclass(frozen=True)
class Resources:
    """The read-only files the app serves and prints with."""

    templates: Path
    static: Path


def is_checkout() -> bool:
    """Whether the code runs from a source checkout (or an editable install of one)."""
    return not BUNDLE.is_dir() and (CHECKOUT / "templates").is_dir()


def resources() -> Resources:
    """The templates and static files: the checkout's, else the copies bundled in the package."""
    base = CHECKOUT if is_checkout() else BUNDLE
    return Resources(base / "templates", base / "static")


def instance_folder() -> Path:
    """The data folder: COMPANION_INSTANCE, else instance/ in a checkout, else the user's."""
    chosen = os.environ.get("COMPANION_INSTANCE", "").strip()
    if chosen:
        return Path(chosen).expanduser().resolve()
    if is_checkout():
        return CHECKOUT / "instance"
    from platformdirs import user_data_path

    return user_data_path(APP_NAME, appauthor=False)
