"""What every page's endpoints share: the session, the JSON body (size-capped, in memory),
the one-line error answer, and starting a run."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from ilp_pyramid.errors import InputError
from ilp_pyramid.ui.runs import RunManager

SESSION_COOKIE = "ilp_pyramid_session"
MAX_BODY_BYTES = 1_000_000  # a whole IQ listing or a Bel N=9 solution is far below this


def new_session() -> str:
    return secrets.token_urlsafe(16)


def session_of(request: Request) -> str:
    session = request.cookies.get(SESSION_COOKIE)
    if not session:
        raise InputError("no session: reload the page")
    return session


async def body_json(request: Request) -> dict[str, Any]:
    """The request's JSON object, read in memory up to MAX_BODY_BYTES; InputError else."""
    size = int(request.headers.get("content-length") or 0)
    if size > MAX_BODY_BYTES:
        raise InputError(f"the request is too large ({size:,} bytes; at most "
                         f"{MAX_BODY_BYTES:,})")
    chunks, total = [], 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > MAX_BODY_BYTES:
            raise InputError(f"the request is too large (over {MAX_BODY_BYTES:,} bytes)")
        chunks.append(chunk)
    try:
        data = json.loads(b"".join(chunks) or b"{}")
    except ValueError:
        raise InputError("the request is not JSON") from None
    if not isinstance(data, dict):
        raise InputError("the request is not a JSON object")
    return data


def error(message: str, status: int = 400) -> JSONResponse:
    """The CLI's one line (without its 'error: '), as JSON."""
    return JSONResponse({"error": message}, status_code=status)


def runs(request: Request) -> RunManager:
    return request.app.state.runs


async def start_run(request: Request, args: Sequence[str],
                    files: dict[str, bytes] | None = None,
                    build: Callable[[Path], Sequence[str]] | None = None,
                    keep: str | None = None) -> JSONResponse:
    """Start `ilp-pyramid ARGS` for this page's session; the page then follows
    /api/runs/<id>/events and may POST /api/runs/<id>/stop. `keep`: see RunManager.start."""
    run = await runs(request).start(session_of(request), args, files, build, keep)
    return JSONResponse({"run": run.id, "args": run.args})


def field_int(data: dict, key: str, low: int, high: int, default: int | None = None) -> int:
    """An integer field of the page's request, in [low, high]; InputError (one line) else."""
    value = data.get(key, default)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise InputError(f"{key} must be a whole number from {low} to {high}")
    return value


def field_float(data: dict, key: str, low: float, high: float,
                default: float | None = None) -> float | None:
    value = data.get(key, default)
    if value is None or value == "":
        return default
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{key} must be a number from {low:g} to {high:g}") from None
    if not low <= number <= high:
        raise InputError(f"{key} must be a number from {low:g} to {high:g}")
    return number


def field_choice(data: dict, key: str, choices: Sequence[str], default: str | None = None) -> str:
    value = data.get(key, default)
    if value not in choices:
        raise InputError(f"{key} must be one of: {', '.join(choices)}")
    return value
