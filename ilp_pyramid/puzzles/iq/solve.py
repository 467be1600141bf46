"""Solve an IQ instance with any backend: HiGHS/CBC (MIP), a SAT solver, or exact cover."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from ilp_pyramid import backends
from ilp_pyramid.backends import base
from ilp_pyramid.backends.base import SolveOptions
from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.iq.model import Instance

SOLVED, NO_SOLUTION, TIMEOUT, ERROR = "solved", "no_solution", "timeout", "error"
SOLVER_CHOICES = ("auto", "dlx", "highs", "cbc", "sat")
# The engine `auto` runs: the fastest measured on every board (docs/iq.md, "Solving times").
AUTO_ENGINE = "dlx"


@dataclass
class IQResult:
    status: str
    solver: str
    seconds: float
    assignment: dict[int, int] = field(default_factory=dict)  # board cell -> piece index
    message: str = ""


def engine_for(solver: str) -> str:
    return AUTO_ENGINE if solver == "auto" else solver


def solver_kind(solver: str) -> str:
    """'dlx', 'mip' or 'sat'; InputError for an unknown name."""
    if solver == "dlx":
        return "dlx"
    if solver == "sat":
        return "sat"
    try:
        return backends.kind(solver)
    except ValueError as exc:
        raise InputError(f"{exc} or dlx, auto") from exc


def solve_instance(instance: Instance, solver: str = "auto",
                   options: SolveOptions | None = None) -> IQResult:
    options = options or SolveOptions()
    solver = engine_for(solver)
    kind = solver_kind(solver)
    start = time.perf_counter()
    if kind == "dlx":
        return _solve_dlx(instance, options, start)
    if kind == "mip":
        from ilp_pyramid.backends import mip
        from ilp_pyramid.puzzles.iq.model import build_model

        model = build_model(instance)
        result = mip.solve(model.problem, solver, options)
        if solver == "highs" and result.status == base.ERROR \
                and not _limit_reached(options, result.seconds):
            # HiGHS 1.15's presolve can end in "solve error" on an infeasible cover (pyramid3:
            # "MIP solver claims optimality, but with ... infeasibilities"): ask again without
            # presolve.
            left = None if options.time_limit is None else options.time_limit - result.seconds
            retry = replace(options, time_limit=left,
                            extra={**options.extra, "presolve": "off"})
            result = mip.solve(model.problem, solver, retry)
        chosen = model.chosen(result.values) if result.has_solution else []
        return _from_backend(instance, solver, result, chosen, start, options)
    from ilp_pyramid.backends import sat
    from ilp_pyramid.puzzles.iq.cnf import build_cnf, chosen_rows

    name = sat.DEFAULT_SAT_SOLVER if solver == "sat" else solver
    result = sat.solve(build_cnf(instance), name, options)
    chosen = chosen_rows(instance, result.model) if result.has_solution else []
    return _from_backend(instance, name, result, chosen, start, options)


def _solve_dlx(instance: Instance, options: SolveOptions, start: float) -> IQResult:
    from ilp_pyramid.exact_cover import ExactCover  # numba: loaded only when used

    start = time.perf_counter()  # the clock starts after numba is imported, as MIP's after PuLP
    rows, primary, secondary = instance.exact_cover_rows()
    if not instance.free_cells:
        return IQResult(SOLVED, "dlx", 0.0, instance.assignment([]))
    if not rows:
        return IQResult(NO_SOLUTION, "dlx", time.perf_counter() - start)
    found = ExactCover(rows, primary, secondary).solve(limit=1, time_limit=options.time_limit)
    seconds = time.perf_counter() - start
    if found.solutions:
        return IQResult(SOLVED, "dlx", seconds, instance.assignment(found.solutions[0]))
    if found.exhausted:
        return IQResult(NO_SOLUTION, "dlx", seconds)
    return IQResult(TIMEOUT, "dlx", seconds, message=f"no answer within {options.time_limit} s")


def _limit_reached(options: SolveOptions, seconds: float) -> bool:
    return options.time_limit is not None and seconds >= 0.95 * options.time_limit


def _from_backend(instance: Instance, solver: str, result: base.SolveResult, chosen: list[int],
                  start: float, options: SolveOptions) -> IQResult:
    seconds = time.perf_counter() - start
    if result.has_solution:
        return IQResult(SOLVED, solver, seconds, instance.assignment(chosen))
    if result.status == base.INFEASIBLE:
        return IQResult(NO_SOLUTION, solver, seconds)
    if result.status == base.TIMEOUT and _limit_reached(options, seconds):
        return IQResult(TIMEOUT, solver, seconds, message=result.message or "time limit reached")
    message = result.message or f"the solver stopped without an answer ({result.status})"
    return IQResult(ERROR, solver, seconds, message=message)
