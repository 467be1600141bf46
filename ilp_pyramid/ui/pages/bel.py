"""The Bel's Pyramid page: solve N with an engine of the CLI's, watch it, see the pyramid.

Both of its actions are the CLI's own commands in a child process (`runs.py`), so what the
page shows is what a terminal would have printed, verified the same way:
- `POST /api/bel/solve` {n, engine, time_limit} starts `solve N --json` with the engine's
  options, the cores the server gives it (`--jobs` for a local search from N=5, `--threads`
  for a MIP or CP-SAT solver) and a time limit (the server's default when the page sends
  none); the page follows its progress and Stop like any run;
- `POST /api/bel/open` {text} (a solution file's contents, read by the browser; never a
  path) runs `render FILE --cubes --json` on it in the run's own folder and answers when it
  is done: the checker's verdict, and the build list (cell, cube, the labels facing x, y,
  z) the page draws the pyramid from; for a labelling that is no solution (a hunt's
  best.json), the reasons and the faults too (the repeated cubes and their cells, the
  missing cubes), which the page marks on the drawing. The page sends a finished solve's
  answer the same way, and the `best` state a search without a solution prints (at its time
  limit, or stopped: `solve --json` prints it on SIGINT too), so everything drawn went
  through `render`.

The page reaches the puzzle through the registry only (tests/test_layers.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ilp_pyramid import puzzles
from ilp_pyramid.backends import solvers
from ilp_pyramid.errors import InputError
from ilp_pyramid.ui.pages import Page
from ilp_pyramid.ui.web import (
    DEFAULT_TIME_LIMIT,
    MAX_TIME_LIMIT,
    body_json,
    field_choice,
    field_int,
    field_text,
    page_solvers,
    runs,
    session_of,
    start_run,
    time_limit,
    time_limit_args,
)

# `solve --repair`'s choices and the solver each repairs with (bel/lns/repair.py REPAIRS
# and REPAIR_SOLVERS; a test keeps them equal).
REPAIRS = {"sat": ("MiniSat", "minisat22"), "dlx": ("Dancing Links", "dlx"),
           "mip": ("HiGHS", "highs"), "scip": ("SCIP", "scip")}
DEFAULT_N = 4
PARALLEL_FROM_N = 5  # `solve`'s default --jobs: one search per core from N=5 (solve --help)
SOLUTION_FILE = "solution.txt"  # the upload's name in the run's folder (never the page's)
MAX_SOLUTION_CHARS = 1_000_000
RENDER_SECONDS = 60.0  # a check of one solution file takes well under a second


@dataclass(frozen=True)
class Engine:
    label: str  # what the page shows
    options: tuple[str, ...]  # the `solve` options that pick it
    # How the run's cores reach the command: "--jobs" (racing local searches), "--threads"
    # (a MIP or CP-SAT solver's threads), "" (one core: a SAT solver, Dancing Links).
    cores_option: str = ""


def engines() -> dict[str, Engine]:
    """Engine name (as `solve --json` reports it, bel/auto.py) -> how the page runs it: the
    engines whose solvers are installed here (the solver table says which)."""
    out = {"auto": Engine("the engine measured fastest for N (solve --help)", (), "--jobs")}
    for repair, (how, name) in REPAIRS.items():
        if solvers.solver(name).installed:
            out[f"lns+{repair}"] = Engine(f"local search, repairs by {how}",
                                          ("--method", "lns", "--repair", repair), "--jobs")
    for name in page_solvers():
        out[f"exact:{name}"] = Engine(f"{name} on the whole model",
                                      ("--method", "exact", "--solver", name),
                                      "--threads" if solvers.solver(name).threads else "")
    return out


def max_n() -> int:
    return puzzles.get("bel").max_n


async def options(_request: Request) -> Response:
    return JSONResponse({"engines": [{"name": name, "label": engine.label}
                                     for name, engine in engines().items()],
                         "max_n": max_n(), "default_n": DEFAULT_N,
                         "default_time_limit": DEFAULT_TIME_LIMIT,
                         "max_time_limit": MAX_TIME_LIMIT})


@dataclass(frozen=True)
class SolveRequest:
    n: int
    engine: Engine
    time_limit: float

    @property
    def cores_option(self) -> str:
        """The option the run's cores go on: a local search uses more than one from N=5."""
        if self.engine.cores_option == "--jobs" and self.n < PARALLEL_FROM_N:
            return ""
        return self.engine.cores_option

    def args(self, jobs: int = 1) -> list[str]:
        """The `solve` command line, given `jobs` cores."""
        cores = [self.cores_option, str(jobs)] if self.cores_option else []
        return ["solve", str(self.n), "--json", *self.engine.options, *cores,
                *time_limit_args(self.time_limit)]


def solve_request(data: dict) -> SolveRequest:
    """The page's request read; InputError (one line) if bad."""
    n = field_int(data, "n", 1, max_n())
    table = engines()
    engine = field_choice(data, "engine", list(table), "auto")
    return SolveRequest(n, table[engine], time_limit(data))


def solve_args(data: dict, jobs: int = 1) -> list[str]:
    """The `solve` command line for the page's request, given `jobs` cores."""
    return solve_request(data).args(jobs)


async def solve(request: Request) -> Response:
    wanted = solve_request(await body_json(request))
    cores = runs(request).cores if wanted.cores_option else 1
    return await start_run(request, wanted.args, jobs=cores, seconds=wanted.time_limit)


async def open_solution(request: Request) -> Response:
    """Verify and draw a solution the page sends (a file's text or a solve's answer)."""
    data = await body_json(request)
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        raise InputError("text must be a solution: Knuth's drawing, the solve --json object "
                         "or a --cubes-csv build list")
    text = field_text(data, "text", MAX_SOLUTION_CHARS)
    # The run's working folder holds the file: its name alone, no folder, reaches messages.
    run = await runs(request).start(session_of(request),
                                    ["render", SOLUTION_FILE, "--cubes", "--json"],
                                    files={SOLUTION_FILE: text.encode()},
                                    seconds=RENDER_SECONDS)
    return verdict(await runs(request).finished(run))


def verdict(event: dict) -> Response:
    """`render --cubes --json`'s answer: exit 0 valid (with the build list), 1 invalid (with
    the reasons, the faults and the build list), 2 bad input (its one line, HTTP 400), 130
    stopped."""
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
