"""The production server ``companion serve`` runs: gunicorn with gevent workers.

Each worker process serves every connection in a greenlet of its own, so a held-open live feed
or a slow client costs a little memory, never a thread (``docs/server.md``). A request must
arrive in time: its head within ``HEAD_TIMEOUT`` seconds (the same wait as for the next request
on a kept-alive connection), and its body at ``BODY_RATE`` bytes a second after ``BODY_GRACE``
seconds; the whole body is read before the app sees it. Past that the connection is closed.
A worker holds at most ``CONNECTIONS`` connections at once, and serves them in turn: after each
answer, the requests of its other connections that came meanwhile go before the same
connection's next one.

gunicorn's master also keeps the export supervisor (``companion.export.supervisor``): it starts
it when the server is ready (``when_ready``), starts it again within seconds if it stops (after
each look at its own workers) and stops it on exit (``on_exit``). So a server has exactly one
pool of PDF workers however many web workers it runs, and no request ever starts a process.
"""

from __future__ import annotations

import contextlib
import io
import logging
import resource
import socket
import struct
import sys
import time
from collections.abc import Callable
from typing import Any

import click
import gevent
from flask import Flask
from gunicorn.app.base import BaseApplication
from gunicorn.arbiter import Arbiter
from gunicorn.http.body import Body
from gunicorn.workers.ggevent import GeventWorker

from companion.export.keeper import Keeper
from companion.export.supervisor import Settings
from companion.store.db import TURN

log = logging.getLogger(__name__)
HEAD_TIMEOUT = 10  # seconds for a request's head, and for the next one on a kept connection
BODY_GRACE = 10.0  # seconds any body may take...
BODY_RATE = 16 * 1024  # ...and one more for every this many bytes it declares
BUFFERED_BODY = 17 * 1024 * 1024  # the largest body read ahead (a backup's import is 16 MB)
CONNECTIONS = 2000  # open connections per worker: live feeds, slow clients and requests
SCHEMA_CHECK_SECONDS = 30.0  # how often the master asks whether a newer version migrated


class Worker(GeventWorker):  # type: ignore[misc]
    """gunicorn's gevent worker with deadlines on a request's head and body."""

    def init_process(self) -> None:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        wanted = CONNECTIONS + 256  # each connection is a descriptor; a few more for files
        if soft < wanted and (hard == resource.RLIM_INFINITY or soft < hard):
            limit = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
        super().init_process()

    def patch(self) -> None:
        super().patch()
        # psycopg picks its way of waiting when first imported; the master imported it before
        # gevent patched anything (it opened the database), so it would block the whole worker.
        waiting = sys.modules.get("psycopg.waiting")
        if waiting is not None:
            _cooperative_psycopg(waiting)

    def handle_quit(self, sig: Any, frame: Any) -> None:
        # Ctrl-C (SIGINT) and the master's quick stop (SIGQUIT): gunicorn's gevent worker calls
        # sys.exit in a greenlet, which gevent prints as a SystemExit traceback. Stopping the
        # worker's loop instead ends it the same way, its live feeds first, with no traceback.
        self.alive = False
        self.cfg.worker_int(self)

    def timeout_ctx(self) -> Any:
        return gevent.Timeout(HEAD_TIMEOUT, False)

    def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> Any:
        if not _read_body(req):
            log.info("closed a connection whose request body came too slowly: %s", addr)
            raise StopIteration()
        try:
            kept = super().handle_request(listener_name, req, sock, addr)
        except TimeoutError:
            # A live feed's write waited past its deadline (``companion.live``): its client
            # reads nothing. The connection is reset, so the kernel lets go of what it queued
            # for it at once (a plain close would keep trying to send it); a browser connects
            # again by itself.
            log.info("reset a live feed its client did not read: %s", addr)
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            raise StopIteration() from None
        # The worker's other connections go first: a client whose next request is already
        # here (pipelined, or sent in a tight loop) would otherwise be answered on and on by
        # this greenlet, reading without ever waiting, while every other connection waits.
        gevent.sleep(TURN)
        return kept

    def run(self) -> None:
        gevent.spawn(self._end_feeds_on_stop)
        super().run()

    def _end_feeds_on_stop(self) -> None:
        """When the worker is told to stop, end its live feeds: browsers connect again to
        another worker rather than hold this one until its graceful timeout."""
        while self.alive:
            gevent.sleep(0.5)
        live = getattr(self.wsgi, "extensions", {}).get("companion.live")
        if live is not None:
            live.stop()


def _cooperative_psycopg(waiting: Any) -> None:
    """Make psycopg, imported before gevent patched the standard library, wait as gevent's
    own patched modules do (what psycopg chooses by itself when imported after the patch)."""
    import selectors

    waiting.DefaultSelector = selectors.DefaultSelector  # bound at import: connecting waits
    waiting.wait = waiting.wait_select  # calls select.select, patched by now


def _read_body(req: Any) -> bool:
    """Read the whole body of ``req`` within its deadline; False when it did not come in time."""
    length = next((v for k, v in req.headers if k == "CONTENT-LENGTH"), None)
    declared = int(length) if length is not None and length.isdigit() else 0
    if declared > BUFFERED_BODY:
        return True  # the app refuses it by its length alone, reading nothing
    if req.body is None:
        return True
    chunks: list[bytes] = []
    size = 0
    with gevent.Timeout(BODY_GRACE + declared / BODY_RATE, False):
        while True:
            chunk = req.body.read(64 * 1024)
            if not chunk:
                req.body = Body(io.BytesIO(b"".join(chunks)))
                return True
            size += len(chunk)
            if size > BUFFERED_BODY:
                return False
            chunks.append(chunk)
    return False


class _Arbiter(Arbiter):  # type: ignore[misc]
    """gunicorn's master, which keeps the export supervisor alive as it keeps its workers."""

    schema_checked = 0.0

    def manage_workers(self) -> None:
        super().manage_workers()
        if self.app.keeper is not None and self.app.keeper.process is not None:
            self.app.keeper.ensure()  # started once in when_ready: only ever restarted here
        self._check_schema()

    def _check_schema(self) -> None:
        """Stop this server once a newer version has migrated its store (a shared PostgreSQL
        store upgraded from another server): old code must not write to a newer schema."""
        database = self.app.database
        if database is None or time.monotonic() - self.schema_checked < SCHEMA_CHECK_SECONDS:
            return
        self.schema_checked = time.monotonic()
        from companion.store.db import check_schema
        from companion.store.schema import SchemaTooNewError

        try:
            check_schema(database)
        except SchemaTooNewError as err:
            # Exit status 2: the unit does not start it again (RestartPreventExitStatus=2).
            self.halt(f"{err} This server stops.", exit_status=2)
        except Exception:  # the store away for a moment: the requests say so; asked again later
            log.warning("could not read the store's schema", exc_info=True)


class _Gunicorn(BaseApplication):  # type: ignore[misc]
    def __init__(
        self,
        factory: Callable[[], Flask],
        options: dict[str, Any],
        exports: Settings | None = None,
        announce: Any = None,
    ) -> None:
        self.factory = factory
        self.keeper = Keeper(exports) if exports is not None and exports.workers else None
        self.database = exports.database if exports is not None else None
        keeper = self.keeper

        def ready(arbiter: Any) -> None:  # the socket is bound and the workers are starting
            if keeper is not None:
                keeper.ensure()
            if announce is not None:
                announce(arbiter)

        self.options = {**options, "when_ready": ready}
        if keeper is not None:
            self.options["on_exit"] = lambda _arbiter: keeper.stop()
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
        app = self.factory()
        warm(app)
        if self.cfg.is_ssl:
            app.wsgi_app = _StrictTransport(app.wsgi_app)  # type: ignore[method-assign]
        return app


def warm(app: Flask) -> int:
    """Compile every template of ``app`` (a worker, before it serves): a worker's first page
    would otherwise compile its templates while its visitors wait, about 0.1 s for the play
    page's part, and a worker that only waited for the pages another worker made (the store's
    claims) pays that at its first change instead. How many were compiled."""
    compiled = 0
    for name in app.jinja_env.list_templates():
        app.jinja_env.get_template(name)
        compiled += 1
    return compiled


HSTS = ("Strict-Transport-Security", "max-age=31536000")


class _StrictTransport:
    """Served over TLS itself, the server tells browsers to come back over HTTPS only, as the
    shipped proxies do: the links are the credentials (docs/deploy.md, section 5)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        def start(status: str, headers: list[tuple[str, str]], *info: Any) -> Any:
            return start_response(status, [*headers, HSTS], *info)

        return self.app(environ, start)


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
    factory: Callable[[], Flask],
    host: str,
    port: int,
    workers: int,
    lan: bool,
    tls: tuple[str, str] | None = None,
    exports: Settings | None = None,
    extra: dict[str, Any] | None = None,
) -> None:
    """Serve the apps ``factory`` makes (and make books) until interrupted; the address to
    open is printed once bound."""
    shown = lan_address() if lan else host
    url = f"{'https' if tls else 'http'}://{shown}:{port}/"
    refused = _port_taken(host, port)
    if refused:
        raise click.ClickException(
            f"Cannot listen on {host}:{port}: {refused}. Is another server running there?"
            " Stop it, or choose another port with --port."
        )

    def announce(_arbiter: Any) -> None:
        click.echo(f"遺燼抄 companion is running: open {url}")
        if lan:
            _print_qr(url)

    _Gunicorn(
        factory,
        {
            "bind": f"{host}:{port}",
            "workers": workers,
            "worker_class": Worker,
            "worker_connections": CONNECTIONS,
            "keepalive": HEAD_TIMEOUT,
            "accesslog": None,
            "errorlog": "-",
            "loglevel": "warning",
            "logger_class": "companion.ops.gunicorn_logs.Logger",  # tokens redacted, lines escaped
            "timeout": 60,
            **({"certfile": tls[0], "keyfile": tls[1]} if tls else {}),
            **(extra or {}),
        },
        exports,
        announce,
    ).run()


def _port_taken(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be listened on (as gunicorn will: address reuse on), or None."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as err:
            return err.strerror or str(err)
    return None


def _print_qr(url: str) -> None:
    import segno

    segno.make(url, error="m").terminal(compact=True)
