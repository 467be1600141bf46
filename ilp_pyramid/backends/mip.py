"""MIP backends through PuLP: the form is a `pulp.LpProblem`, values come back by name.

Solvers are registered in `MIP_REGISTRY`, one line each: the name and the module that makes
PuLP's solver object from `SolveOptions` (`solver(options) -> pulp.LpSolver`, plus, where
the solver can tell a limit from a failure, `failure_message(problem)`, and, where its
library is an optional extra, `require()` raising InputError with the install line). A new
MIP solver through PuLP is one such module and one line here (scip.py, gurobi.py).
"""

from __future__ import annotations

import importlib
import time
from typing import TYPE_CHECKING

from ilp_pyramid.backends import process
from ilp_pyramid.backends.base import Result, SolveOptions, Status
from ilp_pyramid.errors import InputError, SolverError

if TYPE_CHECKING:
    import pulp

MIP_REGISTRY = {
    "highs": "ilp_pyramid.backends.highs",  # highspy in this process, interruptible
    "cbc": "ilp_pyramid.backends.cbc",  # PuLP's CBC binary in its own process group
    "scip": "ilp_pyramid.backends.scip",  # PySCIPOpt in this process (extra: scip)
    "gurobi": "ilp_pyramid.backends.gurobi",  # gurobipy in this process (extra: gurobi)
}
MIP_SOLVERS = tuple(MIP_REGISTRY)
DEFAULT_MIP_SOLVER = "highs"


def require(solver: str) -> None:
    """InputError (exit 2, naming the extra to install) if `solver`'s library is missing."""
    if solver not in MIP_REGISTRY:
        raise InputError(f"unknown MIP solver {solver!r} (choose from {', '.join(MIP_SOLVERS)})")
    load_pulp()
    module = importlib.import_module(MIP_REGISTRY[solver])
    if hasattr(module, "require"):
        module.require()


def load_pulp():
    """PuLP, with highspy imported first: PuLP imports it under a bare `except:`, so a Ctrl-C
    during that import would be swallowed and HiGHS reported "Not Available" instead of the
    run stopping. Loaded on first use: the SAT and hybrid paths never pay for it."""
    import highspy  # noqa: F401
    import pulp

    return pulp


def solve(problem: pulp.LpProblem, solver: str = DEFAULT_MIP_SOLVER,
          options: SolveOptions | None = None) -> Result:
    """Solve `problem` with a registered MIP solver; values come back keyed by variable name.

    SIGINT/SIGTERM during the solve stop the solver (and its process) and raise
    `errors.Interrupted`.
    """
    pulp = load_pulp()
    options = options or SolveOptions()
    if solver not in MIP_REGISTRY:
        raise SolverError(f"unknown MIP solver {solver!r} (choose from {', '.join(MIP_SOLVERS)})")
    module = importlib.import_module(MIP_REGISTRY[solver])
    backend = module.solver(options)
    start = time.perf_counter()
    try:
        with process.interruptible(), process.native_output(options.verbose):
            problem.solve(backend)
    except pulp.PulpSolverError as exc:
        return Result(solver, Status.ERROR, time.perf_counter() - start, message=str(exc))
    seconds = time.perf_counter() - start
    status = _status(problem)
    if status == Status.TIMEOUT and hasattr(module, "failure_message"):
        failure = module.failure_message(problem)
        if failure is not None:
            return Result(solver, Status.ERROR, seconds, message=failure)
    values: dict[str, float] = {}
    if status in (Status.SOLVED, Status.FEASIBLE):
        values = {v.name: (v.varValue or 0.0) for v in problem.variables()}
    objective = pulp.value(problem.objective) if values and problem.objective else None
    return Result(solver, status, seconds, values=values, objective=objective)


def _status(problem: pulp.LpProblem) -> Status:
    pulp = load_pulp()
    # PuLP folds "time limit with an incumbent" into Optimal; sol_status keeps them apart.
    if problem.sol_status == pulp.LpSolutionOptimal:
        return Status.SOLVED
    if problem.sol_status == pulp.LpSolutionIntegerFeasible:
        return Status.FEASIBLE
    if problem.sol_status == pulp.LpSolutionInfeasible or problem.status == pulp.LpStatusInfeasible:
        return Status.INFEASIBLE
    if problem.status == pulp.LpStatusNotSolved:
        return Status.TIMEOUT
    return Status.ERROR
