"""Where the app finds its files and keeps its data, in a checkout and when installed.

A checkout serves the top-level ``templates/`` and ``static/`` and keeps its data in
``instance/``. An installed package (a wheel) carries copies of both folders in
``companion/_bundle/`` and keeps its data in ``COMPANION_INSTANCE`` or the user's data folder,
never beside the code, which may be a read-only virtualenv.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
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


SECRET_FILE = "secret_key"


def read_secret(instance: Path) -> str | None:
    """The secret key kept in the instance folder, or None when there is none yet."""
    try:
        return (instance / SECRET_FILE).read_text().strip() or None
    except FileNotFoundError:
        return None


def ensure_secret(instance: Path) -> str:
    """The instance's secret key, made (mode 0600) if there is none, so sessions survive restarts.

    Made whole or not at all: a new key is written to a file of its own and linked into place,
    so servers starting together agree on the one that landed first.
    """
    existing = read_secret(instance)
    if existing:
        return existing
    instance.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=instance, prefix=".secret-")
    try:
        with os.fdopen(fd, "w") as handle:  # mkstemp's file is 0600 already
            handle.write(secrets.token_hex(32))
        try:
            os.link(temporary, instance / SECRET_FILE)
        except FileExistsError:
            pass
    finally:
        os.unlink(temporary)
    key = read_secret(instance)
    assert key is not None
    return key
