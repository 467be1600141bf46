"""What every page's endpoints share: the session, the one reading of a request's body and
fields, the one-line error answer, and starting a run.

Everything a page sends is untrusted and read once, here, through the parsers the CLI's
input files go through (`ilp_pyramid.parsing`): the body in memory up to MAX_BODY_BYTES and
within BODY_SECONDS, strict UTF-8, strict JSON (finite numbers of at most 18 digits, at most
32 levels deep), no lone surrogate in any string; every field a whole number, a number, a
choice or a text of bounded length. Anything else is an InputError: HTTP 400 with one line.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from ilp_pyramid import parsing
from ilp_pyramid.backends import solvers
from ilp_pyramid.errors import InputError
from ilp_pyramid.ui.runs import DEFAULT_TIME_LIMIT, Run, RunManager

SESSION_COOKIE = "ilp_pyramid_session"
MAX_BODY_BYTES = 1_000_000  # a whole IQ listing or a Bel N=9 solution is far below this
# A page sends its body at once; a body still arriving after this is a stalled client
# holding a connection (the server answers 408 and closes it).
BODY_SECONDS = 10.0
# Every run has a time limit: the page's, or runs.DEFAULT_TIME_LIMIT (the page shows it). A
# run is the CLI's command and stops itself at its limit; the server stops it past that.
MAX_TIME_LIMIT = 86_400.0  # a day: longer is a run left behind, not a search anyone waits for
MAX_MESSAGE_CHARS = 500
MAX_SESSIONS = 10_000  # sessions the server remembers; the oldest idle ones go first


class RequestTimeout(InputError):
    """The request's body did not arrive in time (HTTP 408, connection closed)."""


class NoSession(InputError):
    """A request without a session this server issued."""


class Sessions:
    """The session tokens this server issued (secrets.token_urlsafe): a cookie value the
    server did not issue is no session, so a script cannot make up as many as it likes."""

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self.limit = limit
        self.issued: dict[str, float] = {}

    def new(self, busy: Callable[[str], bool] = lambda _token: False) -> str:
        token = secrets.token_urlsafe(24)
        self.issued[token] = time.monotonic()
        if len(self.issued) > self.limit:
            for old in [t for t in self.issued if not busy(t)][:len(self.issued) - self.limit]:
                del self.issued[old]
        return token

    def __contains__(self, token: object) -> bool:
        return isinstance(token, str) and token in self.issued


def sessions(request: Request) -> Sessions:
    return request.app.state.sessions


def cookie_session(request: Request) -> str | None:
    """The request's session if the server issued it, else None."""
    token = request.cookies.get(SESSION_COOKIE)
    return token if token in sessions(request) else None


def session_of(request: Request) -> str:
    """The request's session; NoSession (400, one line) without one the server issued."""
    token = cookie_session(request)
    if token is None:
        raise NoSession("no session: reload the page")
    return token


def owns(request: Request, run: Run) -> bool:
    """Whether the request comes from the session that started `run`."""
    token = cookie_session(request)
    return token is not None and secrets.compare_digest(run.session, token)


async def _read_body(request: Request) -> bytes:
    size = request.headers.get("content-length")
    if size is not None:
        declared = parsing.bounded_int(size, "Content-Length", 0, 10**18)
        if declared > MAX_BODY_BYTES:
            raise InputError(f"the request is too large ({declared:,} bytes; at most "
                             f"{MAX_BODY_BYTES:,})")
    chunks, total = [], 0
    try:
        async with asyncio.timeout(BODY_SECONDS):
            async for chunk in request.stream():
                total += len(chunk)
                if total > MAX_BODY_BYTES:
                    raise InputError(f"the request is too large (over {MAX_BODY_BYTES:,} "
                                     "bytes)")
                chunks.append(chunk)
    except TimeoutError:
        raise RequestTimeout(f"the request's body did not arrive within {BODY_SECONDS:g} "
                             "s") from None
    return b"".join(chunks)


async def body_json(request: Request) -> dict[str, Any]:
    """The request's JSON object, read as the module says; InputError (one line) else."""
    raw = await _read_body(request)
    try:
        text = raw.decode("utf-8") if raw.strip() else "{}"
    except UnicodeDecodeError:
        raise InputError("the request is not UTF-8 text") from None
    data = parsing.load_json(text)
    parsing.check_unicode(data, "the request")
    if not isinstance(data, dict):
        raise InputError("the request is not a JSON object")
    return data


def one_line(message: str) -> str:
    """`message` as one line of Unicode text, at most MAX_MESSAGE_CHARS long."""
    line = re.sub(r"\s+", " ", message.encode("utf-8", "replace").decode("utf-8")).strip()
    return line if len(line) <= MAX_MESSAGE_CHARS else line[:MAX_MESSAGE_CHARS - 3] + "..."


def error(message: str, status: int = 400, headers: dict[str, str] | None = None
          ) -> JSONResponse:
    """The CLI's one line (without its 'error: '), as JSON."""
    return JSONResponse({"error": one_line(message)}, status_code=status, headers=headers)


def runs(request: Request) -> RunManager:
    return request.app.state.runs


async def start_run(request: Request, args: Sequence[str] | Callable[[int], Sequence[str]],
                    files: dict[str, bytes] | None = None, keep: str | None = None,
                    jobs: int = 1, seconds: float | None = None) -> JSONResponse:
    """Start `ilp-pyramid ARGS` for this page's session; the page then follows
    /api/runs/<id>/events and may POST /api/runs/<id>/stop. `args` may be a function of the
    cores the run is given (at most `jobs`; see RunManager.start, also for `keep`)."""
    run = await runs(request).start(session_of(request), args, files, keep=keep, jobs=jobs,
                                    seconds=seconds)
    return JSONResponse({"run": run.id, "args": run.args, "jobs": run.jobs,
                         "time_limit": run.seconds})


def page_solvers() -> list[str]:
    """The solvers a page offers, in the solver table's order: the installed MIP solvers, the
    SAT solvers by their short names (those with one; the full list is the CLI's), CP-SAT."""
    sat = [name for name in solvers.names("sat", installed=True)
           if name not in solvers.names("sat", installed=True, aliases=False)]
    return [*solvers.names("mip", installed=True), *sat, *solvers.names("cp", installed=True)]


def field_int(data: dict, key: str, low: int, high: int, default: int | None = None) -> int:
    """An integer field of the page's request, in [low, high]; InputError (one line) else."""
    value = data.get(key)
    if value is None and default is not None:
        return default
    return parsing.bounded_int(value, key, low, high)


def field_float(data: dict, key: str, low: float, high: float,
                default: float | None = None) -> float | None:
    """A number field in [low, high]; `default` when absent, null or empty."""
    value = data.get(key)
    if value is None or value == "":
        return default
    return parsing.bounded_float(value, key, low, high)


def field_choice(data: dict, key: str, choices: Sequence[str], default: str | None = None) -> str:
    value = data.get(key)
    if value is None and default is not None:
        return default
    if not isinstance(value, str) or value not in choices:
        raise InputError(f"{key} must be one of: {', '.join(choices)}")
    return value


def field_text(data: dict, key: str, max_chars: int, default: str | None = None) -> str:
    """A text field of at most `max_chars` characters."""
    value = data.get(key)
    if value is None and default is not None:
        return default
    return parsing.check_text(value, key, max_chars)


def time_limit(data: dict, low: float = 0.1) -> float:
    """The run's time limit in seconds: the page's `time_limit`, DEFAULT_TIME_LIMIT when it
    sends none."""
    limit = field_float(data, "time_limit", low, MAX_TIME_LIMIT, DEFAULT_TIME_LIMIT)
    assert limit is not None
    return limit


def time_limit_args(limit: float) -> list[str]:
    return ["--time-limit", f"{limit:g}"]
