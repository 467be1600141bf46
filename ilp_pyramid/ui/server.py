"""`ilp-pyramid ui`: serve the workbench with uvicorn until Ctrl-C.

The socket is bound here, before uvicorn starts, so a taken port is bad input (exit 2, one
line) and `--port 0` serves on a free port whose address is known before the first request.
Ctrl-C / SIGTERM: the signal reaches uvicorn's handler and the app's (`begin_shutdown`:
the pages' event streams end and every run is stopped at once), uvicorn stops serving (at
most `SHUTDOWN_SECONDS` for requests still open), the lifespan's end waits for the runs, and
the CLI's handlers end the command with 130 / 143; its watchdog ends it anyway within 2 s
with nothing left below it.

Connections are bounded, so that idle or stalled clients cannot take every descriptor:
- the descriptor limit (RLIMIT_NOFILE) is read at start, its soft value raised toward the
  hard one (up to WANTED_DESCRIPTORS), and the connection cap sized below it
  (`connection_cap`: the descriptors a run and the server itself need are kept aside);
- uvicorn's own settings: `timeout_keep_alive` (an idle connection between requests),
  `limit_concurrency` (503 past it), `h11_max_incomplete_event_size` (the request line and
  headers), `backlog` (also how many connections one accept burst takes);
- `BoundedH11Protocol`, a small subclass of uvicorn's HTTP/1.1 protocol, adds the two bounds
  uvicorn lacks: the cap on open connections (at the cap, a new connection closes the one
  that has waited longest on its client, for headers or for a body, or is refused when every
  connection is busy answering), and HEADER_SECONDS for a request's line
  and headers to arrive once a connection is open or its last answer sent (uvicorn's
  keep-alive timer stops at the first byte, so a client stopping inside its headers would
  hold the connection for good);
- a body that does not arrive within web.BODY_SECONDS is answered 408 by the app.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import socket
import sys
import threading
import webbrowser
from types import FrameType

import uvicorn
from starlette.applications import Starlette
from uvicorn.protocols.http.h11_impl import H11Protocol

from ilp_pyramid.errors import InputError
from ilp_pyramid.ui.app import begin_shutdown, create_app
from ilp_pyramid.ui.guard import is_loopback, is_unspecified
from ilp_pyramid.ui.shield import LOG

SHUTDOWN_SECONDS = 1
KEEP_ALIVE_SECONDS = 5  # an idle connection between two requests
HEADER_SECONDS = 10.0  # a request's line and headers, from the connection or the last answer
MAX_HEADER_BYTES = 16_384  # the request line and headers (a page's are under 2 kB)
BACKLOG = 32  # pending connections, and the most one accept burst opens at once
WANTED_DESCRIPTORS = 4096
MAX_CONNECTIONS = 512  # far more than the few tabs of a workbench
# Descriptors kept aside from the cap: the server's own (its modules, the loop, the
# listening socket), a run's pipes (about 5 each, one run per core), an accept burst and the
# connections being closed meanwhile.
RESERVED_DESCRIPTORS = 40 + 2 * BACKLOG
MIN_CONNECTIONS = 8


def descriptor_limit() -> int:
    """The soft RLIMIT_NOFILE after raising it toward the hard limit (WANTED_DESCRIPTORS at
    most: the children inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = WANTED_DESCRIPTORS if hard == resource.RLIM_INFINITY else min(hard,
                                                                           WANTED_DESCRIPTORS)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):
            pass
    return WANTED_DESCRIPTORS if soft == resource.RLIM_INFINITY else soft


def connection_cap(descriptors: int) -> int:
    """How many connections the server keeps open with `descriptors` to spend."""
    return max(MIN_CONNECTIONS, min(MAX_CONNECTIONS, descriptors - RESERVED_DESCRIPTORS))


class BoundedH11Protocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a connection cap and a deadline for headers (see the
    module). `cap` is set by `bounded_protocol`."""

    cap = MAX_CONNECTIONS
    header_seconds = HEADER_SECONDS

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self.last_active = self.loop.time()
        self.header_timer: asyncio.TimerHandle | None = None
        if len(self.connections) >= self.cap and not self._close_idlest():
            self.transport = transport  # for uvicorn's connection_lost
            transport.abort()  # every connection is busy answering: refuse this one
            return
        super().connection_made(transport)
        self._arm()

    def _close_idlest(self) -> bool:
        waiting = [c for c in self.connections
                   if isinstance(c, BoundedH11Protocol) and c.waiting_on_client]
        if not waiting:
            return False
        victim = min(waiting, key=lambda c: c.last_active)
        victim.connections.discard(victim)
        victim.transport.abort()
        return True

    @property
    def idle(self) -> bool:
        """No request in progress (none yet, or its answer sent)."""
        return self.cycle is None or self.cycle.response_complete

    @property
    def waiting_on_client(self) -> bool:
        """The server waits for this client to send: a request's line and headers, or the
        rest of its body. (A page's event stream is the server sending: never this.)"""
        return self.idle or (self.cycle.more_body and not self.cycle.response_started)

    def _arm(self) -> None:
        self._disarm()
        self.header_timer = self.loop.call_later(self.header_seconds, self._headers_too_slow)

    def _disarm(self) -> None:
        if self.header_timer is not None:
            self.header_timer.cancel()
            self.header_timer = None

    def _headers_too_slow(self) -> None:
        self.header_timer = None
        if self.idle and not self.transport.is_closing():
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        self.last_active = self.loop.time()
        super().data_received(data)

    def handle_events(self) -> None:
        cycle = self.cycle
        super().handle_events()
        if self.cycle is not cycle:  # a request's headers arrived: the app has it now
            self._disarm()

    def on_response_complete(self) -> None:
        self.last_active = self.loop.time()
        self._arm()  # before uvicorn reads a pipelined request, which disarms it
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def bounded_protocol(cap: int) -> type[BoundedH11Protocol]:
    return type("BoundedH11Protocol", (BoundedH11Protocol,), {"cap": cap})


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(BACKLOG)
    sock.set_inheritable(False)
    return sock


def url_of(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}/"


class _Server(uvicorn.Server):
    """uvicorn's server, which also tells the app the moment a signal asks it to stop
    (`app.begin_shutdown`)."""

    def __init__(self, config: uvicorn.Config, app: Starlette) -> None:
        super().__init__(config)
        self.app = app

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        begin_shutdown(self.app)


def _log_to_stderr() -> None:
    """The app's one-line reports (shield.py) go to stderr, after the server's prefix."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("ilp-pyramid ui: %(message)s"))
    LOG.addHandler(handler)
    LOG.setLevel(logging.INFO)
    LOG.propagate = False


def serve(host: str, port: int, open_browser: bool) -> None:
    """Serve until interrupted; the URL goes to stderr (stdout stays the package's)."""
    sock = bind(host, port)
    port = sock.getsockname()[1]
    cap = connection_cap(descriptor_limit())
    app = create_app(host, port)
    _log_to_stderr()
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False,
                            timeout_graceful_shutdown=SHUTDOWN_SECONDS,
                            http=bounded_protocol(cap), timeout_keep_alive=KEEP_ALIVE_SECONDS,
                            limit_concurrency=cap + BACKLOG, backlog=BACKLOG,
                            h11_max_incomplete_event_size=MAX_HEADER_BYTES)
    server = _Server(config, app)
    # On every address, the browser here opens it by loopback.
    url = url_of("127.0.0.1" if is_unspecified(host) else host, port)
    if not is_loopback(host):
        print(f"warning: listening on {host}: whoever reaches this machine's port {port} may "
              "use the workbench and start runs on it (it asks for no password)",
              file=sys.stderr, flush=True)
    print(f"ilp-pyramid ui: serving {url} (Ctrl-C stops)", file=sys.stderr, flush=True)
    if open_browser:
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    server.run(sockets=[sock])
