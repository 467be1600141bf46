"""MIP backends through PuLP: HiGHS (via highspy, in-process) and CBC (PuLP's bundled binary)."""

from __future__ import annotations

import time
import warnings

import pulp

from ilp_pyramid.backends.base import (
    ERROR,
    FEASIBLE,
    INFEASIBLE,
    OPTIMAL,
    TIMEOUT,
    SolveOptions,
    SolveResult,
)
from ilp_pyramid.errors import SolverError

MIP_SOLVERS = ("highs", "cbc")


def _highs(options: SolveOptions) -> pulp.LpSolver:
    params = dict(options.extra)
    if options.seed is not None:
        params["random_seed"] = int(options.seed)
    return pulp.HiGHS(
        msg=options.verbose,
        timeLimit=options.time_limit,
        threads=options.threads,
        **params,
    )


def _cbc(options: SolveOptions) -> pulp.LpSolver:
    flags = [f"{k} {v}" for k, v in options.extra.items()]
    if options.seed is not None:
        flags.append(f"randomCbcSeed {int(options.seed) + 1}")  # CBC reads 0 as "no seed"
    with warnings.catch_warnings():
        # PuLP 3.3 warns that its bundled CBC moves to an extra in 4.0; 3.3 is what we pin.
        warnings.simplefilter("ignore", DeprecationWarning)
        return pulp.PULP_CBC_CMD(
            msg=options.verbose,
            timeLimit=options.time_limit,
            threads=options.threads,
            options=flags,
        )


_FACTORIES = {"highs": _highs, "cbc": _cbc}


def solve(problem: pulp.LpProblem, solver: str = "highs",
          options: SolveOptions | None = None) -> SolveResult:
    """Solve `problem` with a MIP solver; values come back keyed by variable name."""
    options = options or SolveOptions()
    if solver not in _FACTORIES:
        raise SolverError(f"unknown MIP solver {solver!r} (choose from {', '.join(MIP_SOLVERS)})")
    backend = _FACTORIES[solver](options)
    start = time.perf_counter()
    try:
        problem.solve(backend)
    except pulp.PulpSolverError as exc:
        return SolveResult(solver, ERROR, time.perf_counter() - start, message=str(exc))
    seconds = time.perf_counter() - start
    status = _status(problem)
    if solver == "highs" and status == TIMEOUT and not _highs_hit_a_limit(problem):
        # PuLP calls every HiGHS failure "not solved"; only a limit is a timeout.
        return SolveResult(solver, ERROR, seconds, message=_highs_status_text(problem))
    values: dict[str, float] = {}
    if status in (OPTIMAL, FEASIBLE):
        values = {v.name: (v.varValue or 0.0) for v in problem.variables()}
    objective = pulp.value(problem.objective) if values and problem.objective else None
    return SolveResult(solver, status, seconds, values=values, objective=objective)


def _highs_hit_a_limit(problem: pulp.LpProblem) -> bool:
    import highspy

    limits = {highspy.HighsModelStatus.kTimeLimit, highspy.HighsModelStatus.kIterationLimit,
              highspy.HighsModelStatus.kInterrupt, highspy.HighsModelStatus.kSolutionLimit}
    return problem.solverModel.getModelStatus() in limits


def _highs_status_text(problem: pulp.LpProblem) -> str:
    model = problem.solverModel
    return f"HiGHS: {model.modelStatusToString(model.getModelStatus())}"


def _status(problem: pulp.LpProblem) -> str:
    # PuLP folds "time limit with an incumbent" into Optimal; sol_status keeps them apart.
    if problem.sol_status == pulp.LpSolutionOptimal:
        return OPTIMAL
    if problem.sol_status == pulp.LpSolutionIntegerFeasible:
        return FEASIBLE
    if problem.sol_status == pulp.LpSolutionInfeasible or problem.status == pulp.LpStatusInfeasible:
        return INFEASIBLE
    if problem.status == pulp.LpStatusNotSolved:
        return TIMEOUT
    return ERROR
