"""The production server ``companion serve`` runs: gunicorn with threaded workers.

gunicorn's master also keeps the export supervisor (``companion.export.supervisor``): it starts
it when the server is ready (``when_ready``), starts it again within seconds if it stops (after
each look at its own workers) and stops it on exit (``on_exit``). So a server has exactly one
pool of PDF workers however many web workers it runs, and no request ever starts a process.
"""

from __future__ import annotations

import socket
import sys
from typing import Any

import click
from gunicorn.app.base import BaseApplication
from gunicorn.arbiter import Arbiter

from .export.keeper import Keeper
from .export.supervisor import Settings


class _Arbiter(Arbiter):  # type: ignore[misc]
    """gunicorn's master, which keeps the export supervisor alive as it keeps its workers."""

    def manage_workers(self) -> None:
        super().manage_workers()
        if self.app.keeper is not None and self.app.keeper.process is not None:
            self.app.keeper.ensure()  # started once in when_ready: only ever restarted here


class _Gunicorn(BaseApplication):  # type: ignore[misc]
    def __init__(self, options: dict[str, Any], exports: Settings | None = None) -> None:
        self.options = options
        self.keeper = Keeper(exports) if exports is not None and exports.workers else None
        if self.keeper is not None:
            keeper = self.keeper
            self.options = {
                **options,
                "when_ready": lambda _arbiter: keeper.ensure(),
                "on_exit": lambda _arbiter: keeper.stop(),
            }
        super().__init__()

    def run(self) -> None:
        try:
            _Arbiter(self).run()
        except RuntimeError as err:  # as gunicorn's own run: a clear line, no traceback
            print(f"\nError: {err}\n", file=sys.stderr)
            sys.exit(1)

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        from . import create_app

        return create_app()


def lan_address() -> str:
    """This machine's address on the local network, from its own name (nothing is sent)."""
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        return "127.0.0.1"
    addresses = [str(info[4][0]) for info in infos]
    outside = [a for a in addresses if not a.startswith("127.")]
    return (outside or addresses or ["127.0.0.1"])[0]


def run(
    host: str,
    port: int,
    workers: int,
    threads: int,
    lan: bool,
    tls: tuple[str, str] | None = None,
    exports: Settings | None = None,
    extra: dict[str, Any] | None = None,
) -> None:
    """Print the address to open, then serve (and make books) until interrupted."""
    shown = lan_address() if lan else host
    url = f"{'https' if tls else 'http'}://{shown}:{port}/"
    click.echo(f"遺燼抄 companion is running: open {url}")
    if lan:
        _print_qr(url)
    _Gunicorn(
        {
            "bind": f"{host}:{port}",
            "workers": workers,
            "threads": threads,
            "worker_class": "gthread",
            "accesslog": None,
            "errorlog": "-",
            "loglevel": "warning",
            "logger_class": "companion.gunicorn_logs.Logger",  # tokens redacted, lines escaped
            "timeout": 60,
            **({"certfile": tls[0], "keyfile": tls[1]} if tls else {}),
            **(extra or {}),
        },
        exports,
    ).run()


def _print_qr(url: str) -> None:
    import segno

    segno.make(url, error="m").terminal(compact=True)
