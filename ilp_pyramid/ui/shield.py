"""What the server did not expect is one line on its terminal, never a traceback.

`Shield` wraps the application (inside Starlette's own last-resort handler, which would send
its 500 and then re-raise for the server to print a traceback): an exception that leaves a
route is answered with a one-line 500 when no answer has begun, and logged as one line; a
client that went away (mid-body, mid-stream) is no error at all. `loop_exception_handler`
does the same for what asyncio reports outside any request (an accept() that found no free
descriptor, a task that failed unseen), each kind at most once per LOG_EVERY_SECONDS.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from starlette.requests import ClientDisconnect
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOG = logging.getLogger("ilp_pyramid.ui")
LOG_EVERY_SECONDS = 10.0
MAX_LOG_CHARS = 300


def one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= MAX_LOG_CHARS else line[:MAX_LOG_CHARS - 3] + "..."


def describe(exc: BaseException) -> str:
    """`Type: message`, one line (an exception group by its first leaf)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc)
    return one_line(f"{type(exc).__name__}: {text}" if text else type(exc).__name__)


def went_away(exc: BaseException) -> bool:
    """The client closed its connection: nothing to answer, nothing to report."""
    if isinstance(exc, BaseExceptionGroup):
        return all(went_away(inner) for inner in exc.exceptions)
    return isinstance(exc, ClientDisconnect | ConnectionError)


class Shield:
    """ASGI middleware: no exception leaves it (see the module)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = False

        async def sending(message: Message) -> None:
            nonlocal began
            if message["type"] == "http.response.start":
                began = True
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as exc:
            if went_away(exc):
                return
            LOG.error("internal error on %s %s: %s", scope.get("method"),
                      one_line(scope.get("path", "")), describe(exc))
            if not began:
                answer = JSONResponse({"error": "internal error (logged on the server)"},
                                      status_code=500, headers={"Connection": "close"})
                try:
                    await answer(scope, receive, send)
                except Exception:  # the client is gone too: nothing more to say
                    return


class _Throttle:
    def __init__(self) -> None:
        self.last: dict[str, float] = {}

    def allows(self, key: str) -> bool:
        now = time.monotonic()
        if now - self.last.get(key, -LOG_EVERY_SECONDS) < LOG_EVERY_SECONDS:
            return False
        self.last[key] = now
        return True


_THROTTLE = _Throttle()


def loop_exception_handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """asyncio's report of an error outside a request, as one line (rate-limited)."""
    message = str(context.get("message") or "asyncio error")
    exc = context.get("exception")
    if exc is not None and went_away(exc):
        return
    if _THROTTLE.allows(message):
        detail = f": {describe(exc)}" if exc is not None else ""
        LOG.error("%s%s", one_line(message), detail)
