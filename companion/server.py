"""The production server ``companion serve`` runs: gunicorn with threaded workers."""

from __future__ import annotations

import socket
from typing import Any

import click
from gunicorn.app.base import BaseApplication


class _Gunicorn(BaseApplication):  # type: ignore[misc]
    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options
        super().__init__()

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
    host: str, port: int, workers: int, threads: int, lan: bool, tls: tuple[str, str] | None = None
) -> None:
    """Print the address to open, then serve until interrupted."""
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
            "timeout": 60,
            **({"certfile": tls[0], "keyfile": tls[1]} if tls else {}),
        }
    ).run()


def _print_qr(url: str) -> None:
    import segno

    segno.make(url, error="m").terminal(compact=True)
