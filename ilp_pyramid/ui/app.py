"""The Starlette application: the pages, their routes, the runs' routes, the guard.

Middleware, outermost first: the security headers on every answer (guard.py), the shield
(shield.py: an unexpected exception is a one-line 500 and one logged line), the Host/Origin
guard. Sessions are tokens this server issued with a page (web.Sessions), in an HttpOnly,
SameSite=Strict cookie; a cookie the server did not issue is replaced by a new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Sequence
from importlib import resources

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ilp_pyramid.errors import InputError
from ilp_pyramid.ui import pages as page_registry
from ilp_pyramid.ui.guard import HostOriginGuard, SecurityHeaders, allowed_hosts, is_unspecified
from ilp_pyramid.ui.runs import Busy, RunManager
from ilp_pyramid.ui.shield import Shield, loop_exception_handler
from ilp_pyramid.ui.web import (
    SESSION_COOKIE,
    RequestTimeout,
    Sessions,
    cookie_session,
    error,
    owns,
)

STATIC = resources.files("ilp_pyramid.ui") / "static"
KEEPALIVE_SECONDS = 15  # an SSE comment line: proxies and browsers keep the stream open


def create_app(host: str = "127.0.0.1", port: int = 8765, runs: RunManager | None = None,
               slugs: Sequence[str] = page_registry.PAGES) -> Starlette:
    """The workbench answering only as http://host:port (every loopback name on loopback)."""
    pages = [page_registry.load(slug) for slug in slugs]
    routes = [Route("/", _index_page(pages)),
              *(Route(f"/{page.slug}", _html_page(page.html)) for page in pages),
              *(route for page in pages for route in page.routes),
              Route("/favicon.ico", _no_icon),
              Route("/api/runs/{run_id}", run_state),
              Route("/api/runs/{run_id}/events", run_events),
              Route("/api/runs/{run_id}/stop", run_stop, methods=["POST"]),
              Mount("/static", StaticFiles(directory=str(STATIC)), name="static")]
    runs = runs or RunManager()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.loop = asyncio.get_running_loop()
        app.state.loop.set_exception_handler(loop_exception_handler)
        app.state.closing = asyncio.Event()
        yield
        await runs.stop_all()

    app = Starlette(routes=routes, lifespan=lifespan,
                    middleware=[Middleware(SecurityHeaders), Middleware(Shield),
                                Middleware(HostOriginGuard, hosts=allowed_hosts(host, port),
                                           any_address_port=port if is_unspecified(host)
                                           else None)],
                    exception_handlers={InputError: _bad_input, Busy: _busy,
                                        HTTPException: _http_error})
    app.state.runs = runs
    app.state.sessions = Sessions()
    app.state.pages = pages
    return app


def begin_shutdown(app: Starlette) -> None:
    """The server was told to stop (Ctrl-C, SIGTERM): end the pages' event streams and stop
    every run now. The server waits for open requests before it runs the lifespan's end,
    and a stream stays open as long as its run: without this, Ctrl-C would wait out the
    graceful-shutdown timeout and cancel the streams with a traceback. Safe to call from a
    signal handler."""
    loop = getattr(app.state, "loop", None)
    if loop is not None and not loop.is_closed():
        loop.call_soon_threadsafe(_close, app)


def _close(app: Starlette) -> None:
    app.state.closing.set()
    asyncio.ensure_future(app.state.runs.stop_all())


def _html(text: str, request: Request) -> HTMLResponse:
    response = HTMLResponse(text, headers={"Cache-Control": "no-store"})
    if cookie_session(request) is None:
        manager: RunManager = request.app.state.runs
        token = request.app.state.sessions.new(busy=manager.has_run)
        response.set_cookie(SESSION_COOKIE, token, httponly=True, samesite="strict")
    return response


def _html_page(name: str):
    async def page(request: Request) -> Response:
        return _html((STATIC / name).read_text(encoding="utf-8"), request)
    return page


def _index_page(pages: list[page_registry.Page]):
    async def index(request: Request) -> Response:
        items = "\n".join(f'<li><a href="/{p.slug}">{p.title}</a> {p.blurb}</li>' for p in pages)
        text = (STATIC / "index.html").read_text(encoding="utf-8").replace("<!--PAGES-->", items)
        return _html(text, request)
    return index


async def _no_icon(_request: Request) -> Response:
    # Browsers ask for it on every page; "no content" instead of a 404 in their console.
    return Response(status_code=204)


def _run(request: Request):
    run = request.app.state.runs.runs.get(request.path_params["run_id"])
    if run is None or not owns(request, run):
        raise HTTPException(404, "no such run")
    return run


async def run_state(request: Request) -> Response:
    return JSONResponse(_run(request).state())


async def run_events(request: Request) -> Response:
    """Server-sent events: every `progress` event, then one `done` (exit code, the command's
    JSON answer, its one-line error)."""
    run = _run(request)
    manager: RunManager = request.app.state.runs
    closing: asyncio.Event = getattr(request.app.state, "closing", None) or asyncio.Event()

    async def stream() -> AsyncIterator[str]:
        events = manager.events(run).__aiter__()
        pending: asyncio.Future | None = None
        server_closing = asyncio.ensure_future(closing.wait())
        manager.watch(run)  # the last stream to close stops the run (runs.ABANDON_SECONDS)
        try:
            while True:
                if pending is None:
                    pending = asyncio.ensure_future(events.__anext__())
                done, _ = await asyncio.wait({pending, server_closing},
                                             timeout=KEEPALIVE_SECONDS,
                                             return_when=asyncio.FIRST_COMPLETED)
                if pending not in done:
                    if server_closing in done:
                        return  # the page sees the connection end: the server is going
                    yield ": keepalive\n\n"
                    continue
                try:
                    event = pending.result()
                except StopAsyncIteration:
                    return
                pending = None
                yield f"event: {event['type']}\ndata: {json.dumps(event)}\n\n"
        finally:
            manager.unwatch(run)
            server_closing.cancel()
            if pending is not None:
                pending.cancel()

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store"})


async def run_stop(request: Request) -> Response:
    run = _run(request)
    await request.app.state.runs.stop(run)
    return JSONResponse(run.state())


async def _bad_input(_request: Request, exc: Exception) -> Response:
    if isinstance(exc, RequestTimeout):
        return error(str(exc), 408, headers={"Connection": "close"})
    return error(str(exc), 400)


async def _busy(_request: Request, exc: Exception) -> Response:
    return error(str(exc), 409)


async def _http_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return error(str(exc.detail), exc.status_code)
