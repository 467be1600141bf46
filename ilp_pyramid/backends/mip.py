"""MIP backends through PuLP: the form is a `pulp.LpProblem`, values come back by name.

MIP solvers are lines of the one solver table (`solvers.py`, family "mip"); each names the
module (`plugin`) that makes PuLP's solver object from `SolveOptions` (`solver(options) ->
pulp.LpSolver`, plus, where the solver can tell a limit from a failure,
`failure_message(problem)`). A new MIP solver through PuLP is one such module and one table
line (scip.py, gurobi.py).
"""

from __future__ import annotations

import importlib
import time
from typing import TYPE_CHECKING

from ilp_pyramid.backends import process, solvers
from ilp_pyramid.backends.base import Result, SolveOptions, Status
from ilp_pyramid.errors import InputError

if TYPE_CHECKING:
    import pulp

    from ilp_pyramid.backends.solvers import Solver

# The MIP lines of the solver table, in its order (read by listings, never to classify).
MIP_SOLVERS = tuple(solvers.names("mip"))
DEFAULT_MIP_SOLVER = "highs"


def run(form: pulp.LpProblem, what: str, solver: Solver, options: SolveOptions) -> Result:
    """The solver table's door (`Solver.solve`): a PuLP problem."""
    return solve(form, solver, options)


def load_pulp():
    """PuLP, with highspy imported first: PuLP imports it under a bare `except:`, so a Ctrl-C
    during that import would be swallowed and HiGHS reported "Not Available" instead of the
    run stopping. Loaded on first use: the SAT and hybrid paths never pay for it."""
    import highspy  # noqa: F401
    import pulp

    return pulp


def solve(problem: pulp.LpProblem, solver: str | Solver = DEFAULT_MIP_SOLVER,
          options: SolveOptions | None = None) -> Result:
    """Solve `problem` with a registered MIP solver; values come back keyed by variable name.

    SIGINT/SIGTERM during the solve stop the solver (and its process) and raise
    `errors.Interrupted`.
    """
    entry = solvers.solver(solver)
    if entry.family != "mip":
        raise InputError(f"{entry.name} is no MIP solver (MIP: {', '.join(MIP_SOLVERS)})")
    solver = entry.name
    pulp = load_pulp()
    options = options or SolveOptions()
    module = importlib.import_module(entry.plugin)
    from ilp_pyramid.mip_model import orbitopes  # imports PuLP: loaded above, not at start-up

    if orbitopes(problem) and not getattr(module, "DECLARES_ORBITOPES", False):
        # Dropping the declaration would solve another problem's symmetry silently, and no
        # backend writes it as rows (a model that wants rows asks for them).
        raise InputError(f"{solver} cannot take the orbitope this model declares (a MIP "
                         f"backend that declares orbitopes can: scip)")
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
