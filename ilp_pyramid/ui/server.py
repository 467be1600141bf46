"""`ilp-pyramid ui`: serve the workbench with uvicorn until Ctrl-C.

The socket is bound here, before uvicorn starts, so a taken port is bad input (exit 2, one
line) and `--port 0` serves on a free port whose address is known before the first request.
Ctrl-C / SIGTERM: the signal reaches uvicorn's handler and the app's (`begin_shutdown`:
the pages' event streams end and every run is stopped at once), uvicorn stops serving (at
most `SHUTDOWN_SECONDS` for requests still open), the lifespan's end waits for the runs, and
the CLI's handlers end the command with 130 / 143; its watchdog ends it anyway within 2 s
with nothing left below it.
"""

from __future__ import annotations

import socket
import sys
import threading
import webbrowser
from types import FrameType

import uvicorn
from starlette.applications import Starlette

from ilp_pyramid.errors import InputError
from ilp_pyramid.ui.app import begin_shutdown, create_app
from ilp_pyramid.ui.guard import is_loopback, is_unspecified

SHUTDOWN_SECONDS = 1


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(64)
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


def serve(host: str, port: int, open_browser: bool) -> None:
    """Serve until interrupted; the URL goes to stderr (stdout stays the package's)."""
    sock = bind(host, port)
    port = sock.getsockname()[1]
    app = create_app(host, port)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False,
                            timeout_graceful_shutdown=SHUTDOWN_SECONDS)
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

