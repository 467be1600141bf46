"""Solve an IQ instance with any backend: HiGHS/CBC (MIP), a SAT solver, Dancing Links or
CP-SAT (both on the exact-cover form)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from ilp_pyramid import backends
from ilp_pyramid.backends import base
from ilp_pyramid.backends.base import SolveOptions, Status
from ilp_pyramid.errors import InputError
from ilp_pyramid.puzzles.iq.model import Instance

# The one status vocabulary (backends/base.py); NO_SOLUTION is its "infeasible".
SOLVED, TIMEOUT, ERROR = Status.SOLVED, Status.TIMEOUT, Status.ERROR
INFEASIBLE = NO_SOLUTION = Status.INFEASIBLE
SOLVER_CHOICES = ("auto", "dlx", "highs", "cbc", "sat", "cpsat")
# The engine `auto` runs: the fastest measured overall (docs/iq.md, "Solving times").
AUTO_ENGINE = "dlx"


@dataclass
class IQResult:
    status: Status
    solver: str
    seconds: float
    assignment: dict[int, int] = field(default_factory=dict)  # board cell -> piece index
    message: str = ""


def engine_for(solver: str) -> str:
    return AUTO_ENGINE if solver == "auto" else solver


def solver_kind(solver: str) -> str:
    """The form `solver` takes: 'exact_cover', 'mip' or 'cnf'; InputError for an unknown name
    (and for cpsat without OR-Tools)."""
    if solver == backends.CPSAT:
        from ilp_pyramid.backends import cpsat

        cpsat.require()
    if backends.accepts("exact_cover", solver):
        return "exact_cover"
    if solver == "sat" or backends.accepts("mip", solver):
        return "cnf" if solver == "sat" else "mip"
    try:
        backends.kind(solver)
    except ValueError as exc:
        raise InputError(f"{exc} or dlx, auto") from exc
    return "cnf"


def solve_instance(instance: Instance, solver: str = "auto",
                   options: SolveOptions | None = None) -> IQResult:
    options = options or SolveOptions()
    solver = engine_for(solver)
    form = solver_kind(solver)
    start = time.perf_counter()
    if form == "exact_cover":
        return _solve_exact_cover(instance, solver, options)
    if form == "mip":
        from ilp_pyramid.puzzles.iq.model import build_model

        model = build_model(instance)
        result = backends.solve(model.problem, solver, options)
        if solver == "highs" and result.status == Status.ERROR \
                and not _limit_reached(options, result.seconds):
            # HiGHS 1.15's presolve can end in "solve error" on an infeasible cover (pyramid3:
            # "MIP solver claims optimality, but with ... infeasibilities"): ask again without
            # presolve.
            left = None if options.time_limit is None else options.time_limit - result.seconds
            retry = replace(options, time_limit=left,
                            extra={**options.extra, "presolve": "off"})
            result = backends.solve(model.problem, solver, retry)
        chosen = model.chosen(result.values) if result.has_solution else []
        return _from_backend(instance, solver, result, chosen, start, options)
    from ilp_pyramid.backends import sat
    from ilp_pyramid.puzzles.iq.cnf import build_cnf, chosen_rows

    name = sat.DEFAULT_SAT_SOLVER if solver == "sat" else solver
    result = backends.solve(build_cnf(instance), name, options)
    chosen = chosen_rows(instance, result.model) if result.has_solution else []
    return _from_backend(instance, name, result, chosen, start, options)


def _solve_exact_cover(instance: Instance, solver: str, options: SolveOptions) -> IQResult:
    """Dancing Links or CP-SAT; DLX's clock starts after numba is loaded, as MIP's after PuLP."""
    if not instance.free_cells:
        return IQResult(SOLVED, solver, 0.0, instance.assignment([]))
    rows, primary, secondary = instance.exact_cover_rows()
    result = backends.solve(backends.ExactCoverForm(rows, primary, secondary), solver, options)
    if result.has_solution:
        return IQResult(SOLVED, solver, result.seconds, instance.assignment(result.rows))
    if result.status in (Status.INFEASIBLE, Status.TIMEOUT):
        return IQResult(result.status, solver, result.seconds, message=result.message)
    return IQResult(ERROR, solver, result.seconds,
                    message=result.message or f"the solver stopped ({result.status})")


def _limit_reached(options: SolveOptions, seconds: float) -> bool:
    return options.time_limit is not None and seconds >= 0.95 * options.time_limit


def _from_backend(instance: Instance, solver: str, result: base.Result, chosen: list[int],
                  start: float, options: SolveOptions) -> IQResult:
    seconds = time.perf_counter() - start
    if result.has_solution:
        return IQResult(SOLVED, solver, seconds, instance.assignment(chosen))
    if result.status == Status.INFEASIBLE:
        return IQResult(INFEASIBLE, solver, seconds)
    if result.status == Status.TIMEOUT and _limit_reached(options, seconds):
        return IQResult(TIMEOUT, solver, seconds, message=result.message or "time limit reached")
    message = result.message or f"the solver stopped without an answer ({result.status})"
    return IQResult(ERROR, solver, seconds, message=message)
