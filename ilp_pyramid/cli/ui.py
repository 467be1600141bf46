"""The `ilp-pyramid ui` command."""

from __future__ import annotations

import typer

from ilp_pyramid import extras


def ui(
    host: str = typer.Option("127.0.0.1", "--host",
                             help="Address to listen on. Anything but loopback lets other "
                                  "machines use the workbench (and start runs on this one)."),
    port: int = typer.Option(8765, "--port", min=0, max=65535,
                             help="Port (0: any free one; the address goes to stderr)."),
    no_browser: bool = typer.Option(False, "--no-browser",
                                    help="Do not open the page in the default browser."),
) -> None:
    """Start the local web workbench: one page per puzzle, enter it by clicking, watch it
    solve, stop it (docs/ui.md). Ctrl-C stops the server and every run (exit 130)."""
    extras.need("starlette")
    extras.need("uvicorn")
    from ilp_pyramid.ui import server

    server.serve(host, port, open_browser=not no_browser)
