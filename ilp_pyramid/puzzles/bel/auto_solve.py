"""`ilp_pyramid.solve("bel", N)` with no solver: the engine auto.py's table picks for N, as
`ilp-pyramid solve N` picks it, answered as one verified `protocol.Result`.

An exact engine solves through `protocol.solve` (so the solver's own defaults apply, as at
every door); a hybrid engine runs the search (lns/result.py), racing from auto.RACE_FROM as
`solve` does; an exact engine whose hypotheses left its model without a solution hands over
to auto.fallback(N) with the time that is left, as `solve` does (commands/bel_auto.py). The
result's keys name the engine ("method": "auto", "engine"; "ruled_out" after a hand-over),
as `solve --json`'s do.
"""

from __future__ import annotations

from typing import Any

from ilp_pyramid import protocol
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.machine import cores
from ilp_pyramid.puzzles.bel import auto


def auto_solve(puzzle: protocol.Puzzle, n: int, options: SolveOptions) -> protocol.Result:
    """Solve Bel's Pyramid of N levels with auto's engine for N (N checked by the caller)."""
    engine = auto.choose(n)
    if engine.method != "exact":
        return search(puzzle, n, engine, options, options.time_limit)
    shaped = {"strategies": list(engine.strategies)} if engine.strategies else {}
    result = protocol.solve(puzzle, n, engine.solver, options, **shaped)
    result.keys = {**result.keys, **_named(engine)}
    if not auto.hands_over(engine, result):
        return result
    spent = result.build_seconds + result.solve_seconds
    left = None if options.time_limit is None else max(0.0, options.time_limit - spent)
    return search(puzzle, n, auto.fallback(n), options, left,
                  {"ruled_out": {"engine": engine.name, "hypotheses": engine.hypotheses}})


def search(puzzle: protocol.Puzzle, n: int, engine: auto.Engine, options: SolveOptions,
           time_limit: float | None, keys: dict[str, Any] | None = None) -> protocol.Result:
    """The hybrid search of `engine` (lns+<repair>) as a result, its solution checked again
    by the puzzle's independent checker."""
    from ilp_pyramid.puzzles.bel.lns.result import lns_result, run_search  # numba

    jobs = min(options.threads, cores()) if options.threads else auto.race_jobs(n, cores())
    race = run_search(n, engine.solver, time_limit, options.seed, jobs)
    result = lns_result(race, {**_named(engine), **(keys or {})})
    result.puzzle_object = puzzle
    if result.solution is not None:
        problems = puzzle.verify(n, result.solution)
        if problems:
            result.status, result.solution = Status.ERROR, None
            result.detail = "the search's answer fails the check: " + "; ".join(problems[:3])
    return result


def _named(engine: auto.Engine) -> dict[str, str]:
    return {"method": "auto", "engine": engine.name}
