"""The Bel's Pyramid page: solve N with an engine of the CLI's, watch it, see the pyramid.

Both of its actions are the CLI's own commands in a child process (`runs.py`), so what the
page shows is what a terminal would have printed, verified the same way:
- `POST /api/bel/solve` {n, engine, time_limit} starts `solve N --json` with the engine's
  options; the page follows its progress and Stop like any run;
- `POST /api/bel/open` {text} (a solution file's contents, read by the browser; never a
  path) runs `render FILE --cubes --json` on it in the run's own folder and answers when it
  is done: the checker's verdict, the reasons when the labelling is wrong, and the build
  list (cell, cube, the labels facing x, y, z) the page draws the pyramid from. The page
  sends a finished solve's answer the same way, so everything drawn went through `render`.

The page reaches the puzzle through the registry only (tests/test_layers.py).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ilp_pyramid import puzzles
from ilp_pyramid.backends import CPSAT
from ilp_pyramid.backends.mip import MIP_SOLVERS
from ilp_pyramid.backends.sat import ALIASES
from ilp_pyramid.errors import InputError
from ilp_pyramid.ui.pages import Page
from ilp_pyramid.ui.web import (
    body_json,
    field_choice,
    field_float,
    field_int,
    runs,
    session_of,
    start_run,
)

# `solve --repair`'s choices (bel/lns/repair.py REPAIRS; a test keeps them equal).
REPAIRS = {"sat": "MiniSat", "dlx": "Dancing Links", "mip": "HiGHS", "scip": "SCIP"}
DEFAULT_N = 4
# A day: longer is a run left behind, not a search anyone waits for. Empty: until Stop.
MAX_TIME_LIMIT = 86_400.0
SOLUTION_FILE = "solution.txt"  # the upload's name in the run's folder (never the page's)


def engines() -> dict[str, tuple[str, list[str]]]:
    """Engine name (as `solve --json` reports it, bel/auto.py) -> (what the page shows, the
    `solve` options that pick it)."""
    out: dict[str, tuple[str, list[str]]] = {
        "auto": ("the engine measured fastest for N (solve --help)", [])}
    for repair, how in REPAIRS.items():
        out[f"lns+{repair}"] = (f"local search, repairs by {how}",
                                ["--method", "lns", "--repair", repair])
    for solver in [*MIP_SOLVERS, *ALIASES, CPSAT]:
        out[f"exact:{solver}"] = (f"{solver} on the whole model",
                                  ["--method", "exact", "--solver", solver])
    return out


def max_n() -> int:
    return puzzles.get("bel").max_n


async def options(_request: Request) -> Response:
    return JSONResponse({"engines": [{"name": name, "label": label}
                                     for name, (label, _) in engines().items()],
                         "max_n": max_n(), "default_n": DEFAULT_N})


def solve_args(data: dict) -> list[str]:
    """The `solve` command line for the page's request; InputError (one line) if bad."""
    n = field_int(data, "n", 1, max_n())
    table = engines()
    engine = field_choice(data, "engine", list(table), "auto")
    limit = field_float(data, "time_limit", 0.1, MAX_TIME_LIMIT)
    args = ["solve", str(n), "--json", *table[engine][1]]
    if limit is not None:
        args += ["--time-limit", f"{limit:g}"]
    return args


async def solve(request: Request) -> Response:
    return await start_run(request, solve_args(await body_json(request)))


async def open_solution(request: Request) -> Response:
    """Verify and draw a solution the page sends (a file's text or a solve's answer)."""
    data = await body_json(request)
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        raise InputError("text must be a solution: Knuth's drawing, the solve --json object "
                         "or a --cubes-csv build list")
    # The run's working folder holds the file: its name alone, no folder, reaches messages.
    run = await runs(request).start(session_of(request),
                                    ["render", SOLUTION_FILE, "--cubes", "--json"],
                                    files={SOLUTION_FILE: text.encode()})
    return verdict(await runs(request).finished(run))


def verdict(event: dict) -> Response:
    """`render --cubes --json`'s answer: exit 0 valid (with the build list), 1 invalid (with
    the reasons), 2 bad input (its one line, HTTP 400), 130 stopped."""
    result = event.get("result")
    if event.get("exit") in (0, 1) and isinstance(result, dict):
        return JSONResponse(result)
    if event.get("stopped"):
        raise InputError("stopped before the solution was checked")
    message = event.get("error") or f"render exited {event.get('exit')}"
    raise InputError(message.removeprefix(f"{SOLUTION_FILE}: "))


PAGE = Page(slug="bel", title="Bel's Pyramid", html="bel.html",
            blurb="solve N with the engine of your choice, watch the search, build the "
                  "pyramid from its list; or open a solution file to check and draw it.",
            routes=[Route("/api/bel/options", options),
                    Route("/api/bel/solve", solve, methods=["POST"]),
                    Route("/api/bel/open", open_solution, methods=["POST"])])
