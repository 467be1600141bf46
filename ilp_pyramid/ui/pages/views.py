"""The Views page: three clickable n x n grids (or a battery puzzle by number), checked as
they are clicked, and solved by the CLI's own `views solve ... --json` as a run.

Routes:
- GET  /api/views/options: the sizes, the solvers `views solve` takes, the battery's size;
- POST /api/views/check {n, top, front, side}: whether some placement shows the views (the
  package's rule: the largest placement must show every set pixel), the pixels none can
  show, the lower bound; in-process and cheap, for every click;
- POST /api/views/battery {number}: the views of the battery's puzzle of that number;
- POST /api/views/solve {n, top, front, side} or {number}, with solver and time_limit:
  starts the run; its `done` event carries the command's verified answer.

A view is a list of n rows of "x" (set) and "." (clear), as `--top/--front/--side` take them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ilp_pyramid.backends import solvers
from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.views.puzzle import PUZZLE
from ilp_pyramid.ui.pages import Page
from ilp_pyramid.ui.web import (
    DEFAULT_TIME_LIMIT,
    MAX_TIME_LIMIT,
    body_json,
    field_choice,
    field_int,
    start_run,
    time_limit,
    time_limit_args,
)

if TYPE_CHECKING:
    from ilp_pyramid.puzzles.views.geometry import Views

VIEW_NAMES = ("top", "front", "side")


def _solvers() -> list[str]:
    # The installed solvers of the table that take one of the views' model forms (the MIP,
    # the weighted CNF), as `views solve --solver` takes them.

    return solvers.taking(PUZZLE.forms, installed=True)


def views_of(data: dict[str, Any]) -> tuple[Views, int | None]:
    """The views a request names, through the puzzle's own parsing (the CLI's messages), and
    the battery number when it named one."""
    from ilp_pyramid.puzzles.views.geometry import BATTERY_SIZE, EXACT_MAX_N

    if data.get("number") not in (None, ""):
        number = field_int(data, "number", 0, BATTERY_SIZE - 1)
        return PUZZLE.instance(number=number), number
    n = field_int(data, "n", 1, EXACT_MAX_N)
    rows = {}
    for name in VIEW_NAMES:
        value = data.get(name)
        if not isinstance(value, list) or len(value) > EXACT_MAX_N or not all(
                isinstance(row, str) and len(row) <= EXACT_MAX_N and row.isascii()
                for row in value):
            raise InputError(f'{name} must be a list of rows such as "xx.."')
        rows[name] = ",".join(value)
    return PUZZLE.instance(top=rows["top"], front=rows["front"], side=rows["side"], n=n), None


def describe_views(views: Views) -> dict[str, Any]:
    """The views as rows, whether a placement shows them and, if none does, the pixels no
    cell can show. Either verdict is re-checked by the independent checker: the largest
    placement is the witness of a solvable one."""
    from ilp_pyramid.puzzles.views.geometry import (
        maximal_placement,
        placement_bits,
        projections,
        view_rows,
    )
    from ilp_pyramid.puzzles.views.outcome import UNSOLVABLE_REASON, lower_bound, missing_pixels
    from ilp_pyramid.verify.views import verify_answer, verify_unsolvable

    largest = maximal_placement(views)
    solvable = views.solvable()
    verdict = (verify_answer(views.bits(), placement_bits(largest)) if solvable
               else verify_unsolvable(views.bits()))
    if not verdict.valid:
        raise InputError("internal error: the views' verdict failed its check")
    # What the largest placement shows: a set pixel it does not show is one no cube can.
    shown = projections(largest)
    return {"n": views.n, "input": views.hex() or views.bits(),
            **{name: view_rows(getattr(views, name)) for name in VIEW_NAMES},
            "shown": {name: view_rows(getattr(shown, name)) for name in VIEW_NAMES},
            "solvable": solvable, "reason": None if solvable else UNSOLVABLE_REASON,
            "missing": [] if solvable else missing_pixels(views),
            "lower_bound": lower_bound(views)}


async def options(_request: Request) -> Response:
    from ilp_pyramid.puzzles.views.geometry import BATTERY_SIZE, DEFAULT_N, EXACT_MAX_N

    return JSONResponse({"sizes": list(range(1, EXACT_MAX_N + 1)), "default_n": DEFAULT_N,
                         "solvers": _solvers(), "default_solver": "highs",
                         "battery_size": BATTERY_SIZE,
                         "default_time_limit": DEFAULT_TIME_LIMIT,
                         "max_time_limit": MAX_TIME_LIMIT})


async def check(request: Request) -> Response:
    views, _number = views_of(await body_json(request))
    return JSONResponse(describe_views(views))


async def battery(request: Request) -> Response:
    data = await body_json(request)
    if data.get("number") in (None, ""):
        raise InputError("give the battery puzzle's number (0 to 999999)")
    views, number = views_of(data)
    return JSONResponse({**describe_views(views), "number": f"{number:06}"})


async def solve(request: Request) -> Response:
    """`ilp-pyramid views solve` with the views as `--top/--front/--side` rows (rewritten
    from the parsed views, never the page's text) or `--number`; nothing from the page
    reaches the command unparsed."""
    from ilp_pyramid.puzzles.views.geometry import view_rows

    data = await body_json(request)
    views, number = views_of(data)
    solver = field_choice(data, "solver", _solvers(), "highs")
    limit = time_limit(data, low=0.0)
    if number is not None:
        given = ["--number", f"{number:06}"]
    else:
        given = [f"--{name}={','.join(view_rows(getattr(views, name)))}"
                 for name in VIEW_NAMES]
    # One core: the views' MIP is small; its solver's threads stay within the run's core.
    args = ["views", "solve", *given, "--solver", solver, "--threads", "1", "--json",
            *time_limit_args(limit)]
    return await start_run(request, args, seconds=limit)


PAGE = Page(slug="views", title="Views", html="views.html",
            blurb="three clickable views or a battery puzzle: the fewest cubes in 3-D, or "
                  "why no heap of cubes shows them.",
            routes=[Route("/api/views/options", options),
                    Route("/api/views/check", check, methods=["POST"]),
                    Route("/api/views/battery", battery, methods=["POST"]),
                    Route("/api/views/solve", solve, methods=["POST"])])
